/**
 * BcryptVerify: true under `output_field` when `plain` matches the bcrypt
 * hash in the field named by `hash_field` (a record field or a parameter;
 * `$2a$`, `$2b$` and `$2y$` hashes). A missing field or a value that is not
 * a bcrypt hash gives false, not an error (a login for an unknown user is
 * a failed login).
 *
 * The hash may come from the caller, so its cost is bounded before any
 * work: above the setting `function_bcrypt_max_cost` (default 14) it is a
 * 400 naming the cost and the limit, not 2^31 rounds. A `plain` over 72
 * bytes of UTF-8 is a 400 as in BcryptHash: no hash made here can come from
 * it (a hash made elsewhere from a longer password, cut there, does not
 * verify here). Runs on `x.bcrypt`, like BcryptHash.
 */
import { isTypedWrapper } from '../../../engine/index.js';
import type { Template } from '../../template.js';
import { textInput, writeEach } from '../field-output.js';
import { step } from '../step.js';
import { bcryptVerify, checkBcryptCost, parseBcryptHash } from './bcrypt/bcrypt-format.js';

export const bcryptVerifyStep = step<{ plain: Template; hashField: readonly string[]; output: readonly string[] }>({
  type: 'BcryptVerify',
  access: 'none',
  compile: (m) => ({ plain: m.template('plain'), hashField: m.fieldPath('hash_field'), output: m.fieldPath('output_field') }),
  run: (cfg, rows, x) => writeEach(rows, cfg.output, async (row) => {
    const plain = textInput(x, cfg.plain, row, 'plain');
    const hit = x.scope(row).lookup(cfg.hashField);
    const value = hit.found && isTypedWrapper(hit.value) ? hit.value.value : hit.value;
    const hash = typeof value === 'string' ? parseBcryptHash(value) : undefined;
    if (!hash) return false;
    checkBcryptCost(hash.cost, x.settings().function_bcrypt_max_cost, 'The bcrypt hash\'s cost');
    return bcryptVerify(plain, hash, x.bcrypt);
  }),
});
