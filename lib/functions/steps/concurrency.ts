/**
 * The caching and concurrency steps: IdempotencyClaim, LockAcquire,
 * LockRelease and RateLimit. Each is one check-and-set of the key-value
 * store (`run.kv`) in the engine's single writer, so of any number of
 * concurrent calls exactly the right ones win. `key` and the numbers
 * resolve against the first working record; the result goes into every
 * working record (one record holding only it when there are none), under
 * `output_field`, for an `If` to branch on. They reach outside a
 * transaction, so a transactional function refuses them.
 */
import { randomUUID } from 'node:crypto';
import { InvalidInput, RateLimited } from '../../errors.js';
import type { Template } from '../template.js';
import { keyMember, MAX_SECONDS, resolveKey, resolveWholeNumber, wholeNumberMember } from './kv.js';
import { step } from './step.js';
import { writeOutput } from './working-records.js';

interface ClaimConfig {
  readonly key: Template;
  readonly ttlSecs: Template;
  readonly output: readonly string[];
}

/**
 * IdempotencyClaim: claims `key` once for `ttl_secs` seconds.
 *
 * - The first call stores null under `key` (the claim, expiring after
 *   `ttl_secs`) and writes `{claimed: true, key}` to `output_field`
 *   (default `claim`).
 * - Every later call while the key lives writes `{claimed: false, key,
 *   response}`. `response` is the value stored under the key: null while
 *   the claimer has stored nothing, or what it stored there with KvSet (the
 *   response to replay, e.g. `{type: KvSet, key: "{{idem_key}}", value:
 *   "{{order}}", ttl: 86400}`; give the KvSet a ttl too, or the key stops
 *   expiring).
 */
export const idempotencyClaim = step<ClaimConfig>({
  type: 'IdempotencyClaim',
  access: 'outside',
  compile: (members) => ({
    key: keyMember(members),
    ttlSecs: wholeNumberMember(members, 'ttl_secs', 1, MAX_SECONDS),
    output: members.optionalFieldPath('output_field') ?? ['claim'],
  }),
  run: async (config, rows, run) => {
    const row = rows[0];
    const key = resolveKey(run, config.key, row);
    const ttl = resolveWholeNumber(run, config.ttlSecs, row, 'ttl_secs', 1, MAX_SECONDS);
    const claim = await run.kv.setIfAbsent(key, null, ttl);
    return writeOutput(
      rows,
      config.output,
      claim.created ? { claimed: true, key } : { claimed: false, key, response: claim.value },
    );
  },
});

/**
 * LockAcquire: takes the lock `key` for `ttl_secs` seconds when nobody
 * holds it. The lock is a KV entry under `key` holding a fresh random token
 * (a v4 UUID) and expiring after `ttl_secs`, so a holder that never
 * releases blocks others at most that long.
 *
 * `output_field` (default `lock`) gets `{acquired: true, key, token}`, or
 * `{acquired: false, key, token: null}` while someone else holds it; pass
 * `{{lock.token}}` to LockRelease. Nothing waits: branch with `If` on
 * `lock.acquired` (or retry after a Sleep).
 */
export const lockAcquire = step<ClaimConfig>({
  type: 'LockAcquire',
  access: 'outside',
  compile: (members) => ({
    key: keyMember(members),
    ttlSecs: wholeNumberMember(members, 'ttl_secs', 1, MAX_SECONDS),
    output: members.optionalFieldPath('output_field') ?? ['lock'],
  }),
  run: async (config, rows, run) => {
    const row = rows[0];
    const key = resolveKey(run, config.key, row);
    const ttl = resolveWholeNumber(run, config.ttlSecs, row, 'ttl_secs', 1, MAX_SECONDS);
    const token = randomUUID();
    const taken = await run.kv.setIfAbsent(key, token, ttl);
    return writeOutput(rows, config.output, { acquired: taken.created, key, token: taken.created ? token : null });
  },
});

/**
 * LockRelease: releases the lock `key` only when it is still held with
 * `token` (the one LockAcquire gave), in one check-and-delete: a holder
 * whose lock expired and went to someone else cannot release the new
 * holder's lock.
 *
 * `output_field` (default `lock_release`) gets `{released, key}`: false for
 * a wrong token, an expired or absent lock, or a null or missing token
 * (`{{lock.token}}` after a failed acquire), which is not an error so a
 * function may release unconditionally. Any other non-string token is a 400.
 */
export const lockRelease = step<{
  readonly key: Template;
  readonly token: Template;
  readonly output: readonly string[];
}>({
  type: 'LockRelease',
  access: 'outside',
  compile: (members) => ({
    key: keyMember(members),
    token: members.template('token'),
    output: members.optionalFieldPath('output_field') ?? ['lock_release'],
  }),
  run: async (config, rows, run) => {
    const row = rows[0];
    const key = resolveKey(run, config.key, row);
    const token = run.resolve(config.token, row);
    if (token !== null && token !== undefined && typeof token !== 'string')
      throw new InvalidInput("LockRelease 'token' must resolve to a string");
    const released =
      typeof token === 'string' && token !== '' && (await run.kv.deleteIf(key, (held) => held === token));
    return writeOutput(rows, config.output, { released, key });
  },
});

const MAX_LIMIT = 1_000_000_000;

type OnExceed = 'fail' | 'skip';
const isOnExceed = (value: string): value is OnExceed => value === 'fail' || value === 'skip';

interface RateLimitConfig {
  readonly key: Template;
  readonly limit: Template;
  readonly windowSecs: Template;
  readonly output: readonly string[];
  readonly onExceed: OnExceed;
}

/**
 * RateLimit: a fixed-window counter. Windows are `window_secs` long and
 * aligned on the epoch (the engine's clock); the counter of the current
 * window lives under the KV key `rate:<key>:<window start, epoch seconds>`
 * and expires with the window. Each call takes one slot in ONE write of the
 * single writer (no read-then-write across an await), so exactly `limit`
 * calls per window are allowed; a refused call writes nothing.
 *
 * `output_field` (default `rate_limit`) gets `{allowed, key, limit,
 * remaining, window_secs, reset_at}` (reset_at: end of the window, epoch
 * seconds). Over the limit, `on_exceed` decides:
 * - `fail` (default): the step fails with 429 (RateLimited: Retry-After is
 *   the seconds until the window ends, details carry the same numbers);
 * - `skip`: the call goes on with `{allowed: false, ..., retry_after_secs}`
 *   in the output field, for an `If` on `rate_limit.allowed`.
 */
export const rateLimit = step<RateLimitConfig>({
  type: 'RateLimit',
  access: 'outside',
  compile: (members) => {
    const onExceed = members.optionalString('on_exceed') ?? 'fail';
    if (!isOnExceed(onExceed)) return members.fail("must be 'fail' or 'skip'", 'on_exceed');
    return {
      key: keyMember(members),
      limit: wholeNumberMember(members, 'limit', 1, MAX_LIMIT),
      windowSecs: wholeNumberMember(members, 'window_secs', 1, MAX_SECONDS),
      output: members.optionalFieldPath('output_field') ?? ['rate_limit'],
      onExceed,
    };
  },
  run: async (config, rows, run) => {
    const row = rows[0];
    const key = resolveKey(run, config.key, row);
    const limit = resolveWholeNumber(run, config.limit, row, 'limit', 1, MAX_LIMIT);
    const windowSecs = resolveWholeNumber(run, config.windowSecs, row, 'window_secs', 1, MAX_SECONDS);
    const nowSecs = Math.floor(run.now() / 1000);
    const start = nowSecs - (nowSecs % windowSecs);
    const resetAt = start + windowSecs;
    const counterKey = `rate:${key}:${start}`;
    if (counterKey.length > 1024) throw new InvalidInput("RateLimit 'key' is too long for its counter key");
    const { count, incremented } = await run.kv.incrementBelow(counterKey, limit, resetAt * 1000);
    const window = { key, limit, remaining: limit - count, window_secs: windowSecs, reset_at: resetAt };
    if (incremented) return writeOutput(rows, config.output, { allowed: true, ...window });
    const retryAfter = Math.max(1, resetAt - nowSecs);
    if (config.onExceed === 'skip')
      return writeOutput(rows, config.output, { allowed: false, ...window, retry_after_secs: retryAfter });
    throw new RateLimited(`Rate limit exceeded: ${limit} calls per ${windowSecs} s`, {
      retryAfter,
      limit,
      remaining: 0,
      resetAt,
      details: { limit, remaining: 0, window_secs: windowSecs, reset_at: resetAt, retry_after_secs: retryAfter },
    });
  },
});
