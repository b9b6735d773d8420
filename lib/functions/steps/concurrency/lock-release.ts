/**
 * LockRelease: releases the lock `key` only when it is still held with
 * `token` (the one LockAcquire gave), in one check-and-delete of the
 * engine's single writer: a holder whose lock expired and was taken by
 * someone else cannot release the new holder's lock.
 *
 * `output_field` (default `lock_release`) gets `{released, key}`: false for
 * a wrong token, an expired or absent lock, or a null or missing token
 * (`{{lock.token}}` after a failed acquire), which is not an error so a
 * function may release unconditionally. Any other non-string token is a 400.
 *
 * `key` and `token` resolve against the first working record; the result
 * goes into every working record (one record holding only it when there are
 * none).
 */
import { InvalidInput } from '../../../errors.js';
import type { Template } from '../../templates/index.js';
import { step } from '../step.js';
import { keyMember, resolveKey, writeOutput } from '../kv/kv-members.js';

interface LockReleaseConfig {
  readonly key: Template;
  readonly token: Template;
  readonly output: readonly string[];
}

export const lockRelease = step<LockReleaseConfig>({
  type: 'LockRelease',
  access: 'outside',
  compile: (m) => ({
    key: keyMember(m),
    token: m.template('token'),
    output: m.optionalFieldPath('output_field') ?? ['lock_release'],
  }),
  run: async (cfg, rows, x) => {
    const row = rows[0];
    const key = resolveKey(x, cfg.key, row);
    const token = x.resolve(cfg.token, row);
    if (token !== null && token !== undefined && typeof token !== 'string') throw new InvalidInput("LockRelease 'token' must resolve to a string");
    const released = typeof token === 'string' && token !== '' && await x.kv.deleteIf(key, (held) => held === token);
    return writeOutput(rows, cfg.output, { released, key });
  },
});
