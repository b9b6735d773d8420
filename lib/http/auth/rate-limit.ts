/**
 * Per-key fixed-window rate limiting, off by default (quota 0) as in other
 * self-hosted databases. A key's own `rate_limit` overrides the global
 * `rate_limit_requests` setting. Windows follow the injectable clock.
 */
import { RateLimited } from '../../errors.js';

export interface RateDecision {
  limit: number;
  remaining: number;
  reset: number;
}

export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  /**
   * Counts one request for `key`. Returns the header values, or undefined when
   * limiting is off for this key. Throws RateLimited (429) past the quota.
   */
  /** Forgets every window. */
  clear(): void {
    this.windows.clear();
  }

  hit(key: string, limit: number, windowSecs: number, nowMs: number): RateDecision | undefined {
    if (limit <= 0) return undefined;
    const windowMs = windowSecs * 1000;
    const start = Math.floor(nowMs / windowMs) * windowMs;
    let window = this.windows.get(key);
    if (!window || window.start !== start) {
      window = { start, count: 0 };
      this.windows.set(key, window);
      if (this.windows.size > 100_000) this.prune(start);
    }
    const reset = Math.ceil((start + windowMs) / 1000);
    if (window.count >= limit) {
      const retryAfter = Math.max(1, reset - Math.floor(nowMs / 1000));
      throw new RateLimited(`Rate limit exceeded: ${limit} requests per ${windowSecs} s; retry after ${retryAfter} s`, {
        retryAfter,
        limit,
        remaining: 0,
        resetAt: reset,
      });
    }
    window.count += 1;
    return { limit, remaining: limit - window.count, reset };
  }

  private prune(currentStart: number): void {
    for (const [windowKey, window] of this.windows) if (window.start !== currentStart) this.windows.delete(windowKey);
  }
}
