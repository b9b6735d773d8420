/**
 * BcryptVerify: true under `output_field` when `plain` matches the bcrypt
 * hash in the field named by `hash_field` (a record field or a parameter;
 * `$2a$`, `$2b$` and `$2y$` hashes). A missing field or a value that is not
 * a bcrypt hash gives false, not an error (a login for an unknown user is
 * a failed login). Runs in slices like BcryptHash, at the hash's own cost.
 */
import { isTypedWrapper } from '../../../engine/index.js';
import type { Template } from '../../templates/index.js';
import { textInput, writeEach } from '../field-output.js';
import { step } from '../step.js';
import { bcryptVerify } from './bcrypt/bcrypt-format.js';

export const bcryptVerifyStep = step<{ plain: Template; hashField: readonly string[]; output: readonly string[] }>({
  type: 'BcryptVerify',
  access: 'none',
  compile: (m) => ({ plain: m.template('plain'), hashField: m.fieldPath('hash_field'), output: m.fieldPath('output_field') }),
  run: (cfg, rows, x) => writeEach(rows, cfg.output, async (row) => {
    const plain = textInput(x, cfg.plain, row, 'plain');
    const hit = x.scope(row).lookup(cfg.hashField);
    const hash = hit.found && isTypedWrapper(hit.value) ? hit.value.value : hit.value;
    return typeof hash === 'string' ? bcryptVerify(plain, hash, () => x.sleep(0)) : false;
  }),
});
