/**
 * LockAcquire: takes the lock `key` for `ttl_secs` seconds when nobody
 * holds it, atomically (one check-and-set in the engine's single writer: of
 * any number of concurrent calls exactly one acquires). The lock is a KV
 * entry under `key` holding a fresh random token (a v4 UUID) and expiring
 * after `ttl_secs`, so a holder that never releases blocks others at most
 * that long.
 *
 * `output_field` (default `lock`) gets `{acquired: true, key, token}`, or
 * `{acquired: false, key, token: null}` while someone else holds it; pass
 * `{{lock.token}}` to LockRelease. Nothing waits: branch with `If` on
 * `lock.acquired` (or retry after a Sleep).
 *
 * `key` and `ttl_secs` resolve against the first working record; the result
 * goes into every working record (one record holding only it when there are
 * none).
 */
import { randomUUID } from 'node:crypto';
import type { Template } from '../../templates/index.js';
import { step } from '../step.js';
import { keyMember, MAX_SECONDS, resolveKey, resolveWholeNumber, wholeNumberMember, writeOutput } from '../kv/kv-members.js';

interface LockAcquireConfig {
  readonly key: Template;
  readonly ttlSecs: Template;
  readonly output: readonly string[];
}

export const lockAcquire = step<LockAcquireConfig>({
  type: 'LockAcquire',
  access: 'outside',
  compile: (m) => ({
    key: keyMember(m),
    ttlSecs: wholeNumberMember(m, 'ttl_secs', 1, MAX_SECONDS),
    output: m.optionalFieldPath('output_field') ?? ['lock'],
  }),
  run: async (cfg, rows, x) => {
    const row = rows[0];
    const key = resolveKey(x, cfg.key, row);
    const ttl = resolveWholeNumber(x, cfg.ttlSecs, row, 'ttl_secs', 1, MAX_SECONDS);
    const token = randomUUID();
    const taken = await x.kv.setIfAbsent(key, token, ttl);
    return writeOutput(rows, cfg.output, { acquired: taken.created, key, token: taken.created ? token : null });
  },
});
