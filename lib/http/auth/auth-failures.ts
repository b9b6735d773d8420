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

interface Window {
  readonly start: number;
  failures: number;
}

export class AuthFailureLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly windowMs: number;
  private readonly maxAddresses: number;

  constructor(
    private readonly opts: AuthFailureOptions,
    private readonly log: ServerLog = () => undefined,
  ) {
    this.windowMs = opts.windowSecs * 1000;
    this.maxAddresses = opts.maxAddresses ?? 10_000;
  }

  /** Addresses currently tracked (for tests and health). */
  get size(): number {
    return this.windows.size;
  }

  /** Forgets every address's failures. */
  clear(): void {
    this.windows.clear();
  }

  /**
   * Throws RateLimited (429, `Retry-After` in whole seconds, at least 1)
   * while `address` (its IPv6 /64) has used up its failures for the current window.
   */
  check(address: string, nowMs: number): void {
    if (this.opts.limit <= 0) return;
    const window = this.live(throttleKey(address), nowMs);
    if (!window || window.failures < this.opts.limit) return;
    const retryAfter = Math.max(1, Math.ceil((window.start + this.windowMs - nowMs) / 1000));
    throw new RateLimited(
      `Too many failed token requests from this address (${this.opts.limit} per ${this.opts.windowSecs} s); retry ` +
        `after ${retryAfter} s`,
      { retryAfter },
    );
  }

  /** Counts one failed exchange from `client` (its IPv6 /64), opening its window if none is live. */
  fail(client: string, nowMs: number): void {
    if (this.opts.limit <= 0) return;
    const address = throttleKey(client);
    let window = this.live(address, nowMs);
    if (!window) {
      this.makeRoom(nowMs);
      window = { start: nowMs, failures: 0 };
      this.windows.set(address, window);
    }
    window.failures += 1;
    if (window.failures === this.opts.limit) {
      const refused =
        `client ${address} made ${window.failures} failed token requests ` +
        `within ${this.opts.windowSecs} s; its token requests are refused with 429 until the window closes`;
      this.log('warn', refused, {
        client: address,
        failures: window.failures,
        windowSecs: this.opts.windowSecs,
      });
    }
  }

  /** The address's window, or undefined when it has none or it has closed (then it is forgotten). */
  private live(address: string, nowMs: number): Window | undefined {
    const window = this.windows.get(address);
    if (window && nowMs - window.start >= this.windowMs) {
      this.windows.delete(address);
      return undefined;
    }
    return window;
  }

  private makeRoom(nowMs: number): void {
    for (const [address, window] of this.windows) {
      if (this.windows.size < this.maxAddresses && nowMs - window.start < this.windowMs) return;
      this.windows.delete(address);
    }
  }
}
