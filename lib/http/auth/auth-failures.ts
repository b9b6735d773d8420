/**
 * Brute-force protection for the token exchange (POST /api/auth/token).
 * Failed exchanges are counted per client address (an IPv6 client per /64:
 * client-address.ts `throttleKey`) in a window that opens at the address's
 * first failure. Once an address has `limit` failures it is
 * refused with 429 and Retry-After until that window closes, even with a
 * correct key: answering a right guess would let an attacker keep guessing.
 * Successful exchanges are not counted. Windows follow the injectable clock.
 *
 * Memory is bounded: at most `maxAddresses` addresses are tracked. Windows
 * all have the same length and an entry is inserted when its window opens,
 * so the Map's insertion order is also expiry order: expired entries are
 * dropped from the front, and when every entry is live the oldest goes.
 * An address reaching the limit is logged once per window, as a warning:
 * someone may be guessing keys (or a client has a wrong one).
 */
import { RateLimited } from '../../errors.js';
import { throttleKey } from './client-address.js';
import type { ServerLog } from '../log/server-log.js';

export interface AuthFailureOptions {
  /** Failures allowed per address and window; 0 turns the limit off. */
  readonly limit: number;
  readonly windowSecs: number;
  /** Addresses tracked at once (default 10,000). */
  readonly maxAddresses?: number;
}

interface Window { readonly start: number; failures: number }

export class AuthFailureLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly windowMs: number;
  private readonly maxAddresses: number;

  constructor(private readonly opts: AuthFailureOptions, private readonly log: ServerLog = () => undefined) {
    this.windowMs = opts.windowSecs * 1000;
    this.maxAddresses = opts.maxAddresses ?? 10_000;
  }

  /** Addresses currently tracked (for tests and health). */
  get size(): number { return this.windows.size; }

  /**
   * Throws RateLimited (429, `Retry-After` in whole seconds, at least 1)
   * while `address` (its IPv6 /64) has used up its failures for the current window.
   */
  check(address: string, nowMs: number): void {
    if (this.opts.limit <= 0) return;
    const w = this.live(throttleKey(address), nowMs);
    if (!w || w.failures < this.opts.limit) return;
    const retryAfter = Math.max(1, Math.ceil((w.start + this.windowMs - nowMs) / 1000));
    throw new RateLimited(
      `Too many failed token requests from this address (${this.opts.limit} per ${this.opts.windowSecs} s); retry after ${retryAfter} s`,
      { retryAfter },
    );
  }

  /** Counts one failed exchange from `client` (its IPv6 /64), opening its window if none is live. */
  fail(client: string, nowMs: number): void {
    if (this.opts.limit <= 0) return;
    const address = throttleKey(client);
    let w = this.live(address, nowMs);
    if (!w) {
      this.makeRoom(nowMs);
      w = { start: nowMs, failures: 0 };
      this.windows.set(address, w);
    }
    w.failures += 1;
    if (w.failures === this.opts.limit) {
      this.log('warn', `client ${address} made ${w.failures} failed token requests within ${this.opts.windowSecs} s; its token requests are refused with 429 until the window closes`, {
        client: address, failures: w.failures, windowSecs: this.opts.windowSecs,
      });
    }
  }

  /** The address's window, or undefined when it has none or it has closed (then it is forgotten). */
  private live(address: string, nowMs: number): Window | undefined {
    const w = this.windows.get(address);
    if (w && nowMs - w.start >= this.windowMs) {
      this.windows.delete(address);
      return undefined;
    }
    return w;
  }

  private makeRoom(nowMs: number): void {
    for (const [address, w] of this.windows) {
      if (this.windows.size < this.maxAddresses && nowMs - w.start < this.windowMs) return;
      this.windows.delete(address);
    }
  }
}
