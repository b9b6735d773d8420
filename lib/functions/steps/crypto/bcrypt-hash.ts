/**
 * BcryptHash: a bcrypt hash (`$2b$`, random salt) of `plain` under
 * `output_field`; `cost` a literal from 4 to 31 (default 12), and at run
 * time at most the setting `function_bcrypt_max_cost` (default 14), else a
 * 400 naming both. A password over 72 bytes of UTF-8 is a 400: bcrypt reads
 * only 72, and cutting it silently would make every password sharing those
 * bytes match.
 *
 * The hash is this server's own (bcrypt/: OpenBSD's algorithm, pinned by
 * the published test vectors and checked against bcryptjs in both
 * directions by spec/functions/steps/bcrypt-differential.spec.ts) so that
 * it can run on the server's worker threads (`x.bcrypt`, bcrypt-pool.ts)
 * and be stopped there: the event loop keeps answering other requests
 * while it runs (npm run bench bcrypt-under-load). The call's time bound
 * (`function_timeout_ms`) ends a hash that would outlast it: each step of
 * cost doubles the time (cost 12 is about 0.3 s here, cost 14 over a
 * second).
 */
import type { Template } from '../../template.js';
import { textInput, writeEach } from '../field-output.js';
import { step } from '../step.js';
import { bcryptHash, checkBcryptCost, DEFAULT_BCRYPT_COST, MAX_BCRYPT_COST, MIN_BCRYPT_COST } from './bcrypt/bcrypt-format.js';

export const bcryptHashStep = step<{ plain: Template; output: readonly string[]; cost: number }>({
  type: 'BcryptHash',
  access: 'none',
  compile: (m) => ({
    plain: m.template('plain'),
    output: m.fieldPath('output_field'),
    cost: m.optionalInteger('cost', MIN_BCRYPT_COST, MAX_BCRYPT_COST) ?? DEFAULT_BCRYPT_COST,
  }),
  run: (cfg, rows, x) => {
    checkBcryptCost(cfg.cost, x.settings().function_bcrypt_max_cost, 'BcryptHash cost');
    return writeEach(rows, cfg.output, (row) => bcryptHash(textInput(x, cfg.plain, row, 'plain'), cfg.cost, x.bcrypt));
  },
});
