/**
 * RateLimit: a fixed-window counter. Windows are `window_secs` long and
 * aligned on the epoch (the engine's clock); the counter of the current
 * window lives under the KV key `rate:<key>:<window start, epoch seconds>`
 * and expires with the window. Each call takes one slot in ONE write of the
 * engine's single writer (no read-then-write across an await), so of any
 * number of concurrent calls exactly `limit` per window are allowed; a
 * refused call writes nothing.
 *
 * `output_field` (default `rate_limit`) gets `{allowed, key, limit,
 * remaining, window_secs, reset_at}` (reset_at: end of the window, epoch
 * seconds). Over the limit, `on_exceed` decides:
 * - `fail` (default): the step fails with 429 (RateLimited: Retry-After is
 *   the seconds until the window ends, details carry the same numbers);
 * - `skip`: the call goes on with `{allowed: false, ..., retry_after_secs}`
 *   in the output field, for an `If` on `rate_limit.allowed`.
 *
 * `key`, `limit` and `window_secs` resolve against the first working
 * record; the result goes into every working record (one record holding only
 * it when there are none).
 */
import { InvalidInput, RateLimited } from '../../../errors.js';
import type { Template } from '../../templates/index.js';
import { step } from '../step.js';
import { keyMember, MAX_SECONDS, resolveKey, resolveWholeNumber, wholeNumberMember, writeOutput } from '../kv/kv-members.js';

const MAX_LIMIT = 1_000_000_000;

type OnExceed = 'fail' | 'skip';
const isOnExceed = (v: string): v is OnExceed => v === 'fail' || v === 'skip';

interface RateLimitConfig {
  readonly key: Template;
  readonly limit: Template;
  readonly windowSecs: Template;
  readonly output: readonly string[];
  readonly onExceed: OnExceed;
}

export const rateLimit = step<RateLimitConfig>({
  type: 'RateLimit',
  access: 'outside',
  compile: (m) => {
    const onExceed = m.optionalString('on_exceed') ?? 'fail';
    if (!isOnExceed(onExceed)) return m.fail("must be 'fail' or 'skip'", 'on_exceed');
    return {
      key: keyMember(m),
      limit: wholeNumberMember(m, 'limit', 1, MAX_LIMIT),
      windowSecs: wholeNumberMember(m, 'window_secs', 1, MAX_SECONDS),
      output: m.optionalFieldPath('output_field') ?? ['rate_limit'],
      onExceed,
    };
  },
  run: async (cfg, rows, x) => {
    const row = rows[0];
    const key = resolveKey(x, cfg.key, row);
    const limit = resolveWholeNumber(x, cfg.limit, row, 'limit', 1, MAX_LIMIT);
    const windowSecs = resolveWholeNumber(x, cfg.windowSecs, row, 'window_secs', 1, MAX_SECONDS);
    const nowSecs = Math.floor(x.now() / 1000);
    const start = nowSecs - (nowSecs % windowSecs);
    const resetAt = start + windowSecs;
    const counterKey = `rate:${key}:${start}`;
    if (counterKey.length > 1024) throw new InvalidInput("RateLimit 'key' is too long for its counter key");
    const { count, incremented } = await x.kv.incrementBelow(counterKey, limit, resetAt * 1000);
    const window = { key, limit, remaining: limit - count, window_secs: windowSecs, reset_at: resetAt };
    if (incremented) return writeOutput(rows, cfg.output, { allowed: true, ...window });
    const retryAfter = Math.max(1, resetAt - nowSecs);
    if (cfg.onExceed === 'skip') return writeOutput(rows, cfg.output, { allowed: false, ...window, retry_after_secs: retryAfter });
    throw new RateLimited(`Rate limit exceeded: ${limit} calls per ${windowSecs} s`, {
      retryAfter, limit, remaining: 0, resetAt,
      details: { limit, remaining: 0, window_secs: windowSecs, reset_at: resetAt, retry_after_secs: retryAfter },
    });
  },
});
