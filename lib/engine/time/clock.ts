/**
 * Injectable time source. Everything time-dependent (TTL, trash retention,
 * token expiry, transaction timeouts, rate windows) reads a Clock so tests
 * can move time without sleeping.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  constructor(private ms = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
  set(ms: number): void {
    this.ms = ms;
  }
}
