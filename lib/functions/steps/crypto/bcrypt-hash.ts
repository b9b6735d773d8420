/**
 * BcryptHash: a bcrypt hash (`$2b$`, random salt) of `plain` under
 * `output_field`; `cost` a literal from 4 to 31 (default 12).
 *
 * The hash is this server's own (bcrypt/: OpenBSD's algorithm, pinned by
 * the published test vectors and checked against bcryptjs in both
 * directions by spec/functions/steps/bcrypt-differential.spec.ts) because
 * bcryptjs's async API holds the event loop for up to 100 ms at a time and
 * cannot be stopped once started. This one never holds it: the 2^cost
 * rounds run in slices of about half a millisecond with a yield between
 * them, so point reads and other calls are served meanwhile (npm run bench
 * bcrypt-under-load: about 10 hashes/s at cost 10 with reads answered).
 * Between slices the call's time bound (`function_timeout_ms`) is checked,
 * which is what bounds a high cost: each step of cost doubles the time (cost 12 is about 0.3 s
 * here, cost 20 over a minute), and a hash that would outlast the call
 * fails it rather than running on.
 */
import type { Template } from '../../templates/index.js';
import { textInput, writeEach } from '../field-output.js';
import { step } from '../step.js';
import { bcryptHash, DEFAULT_BCRYPT_COST, MAX_BCRYPT_COST, MIN_BCRYPT_COST } from './bcrypt/bcrypt-format.js';

export const bcryptHashStep = step<{ plain: Template; output: readonly string[]; cost: number }>({
  type: 'BcryptHash',
  access: 'none',
  compile: (m) => ({
    plain: m.template('plain'),
    output: m.fieldPath('output_field'),
    cost: m.optionalInteger('cost', MIN_BCRYPT_COST, MAX_BCRYPT_COST) ?? DEFAULT_BCRYPT_COST,
  }),
  run: (cfg, rows, x) => writeEach(rows, cfg.output, (row) => bcryptHash(textInput(x, cfg.plain, row, 'plain'), cfg.cost, () => x.sleep(0))),
});
