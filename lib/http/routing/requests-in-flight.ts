/**
 * The requests being answered right now that outlive one turn of the event
 * loop (writes, slow reads, WebSocket calls; an open stream is not one), so
 * that something that must not overlap them (a checkpoint restored) can wait
 * for them, and name them when they take too long.
 */
import { Unavailable } from '../../errors.js';

export class RequestsInFlight {
  private readonly open = new Map<number, { readonly what: string; readonly since: number }>();
  private next = 0;
  /** Each answers whether it is done (and so leaves the list). */
  private waiters: Array<() => boolean> = [];

  get size(): number {
    return this.open.size;
  }

  /** Each request in flight, oldest first, with how long it has run: "POST /api/insert/users (running 20 ms)". */
  describe(): string[] {
    const now = performance.now();
    return [...this.open.values()].map((r) => `${r.what} (running ${Math.round(now - r.since)} ms)`);
  }

  /** Counts `answer` as in flight until it settles; `what` names it ("POST /api/insert/users"). */
  track<T>(what: string, answer: Promise<T>): Promise<T> {
    const id = this.next++;
    this.open.set(id, { what, since: performance.now() });
    const done = () => {
      this.open.delete(id);
      if (this.waiters.length > 0) this.wake();
    };
    answer.then(done, done);
    return answer;
  }

  /**
   * Resolves once at most `own` requests are in flight (the caller's own: a
   * reset asked for over the wire is itself one); rejects with a 503 naming
   * the requests still running after `timeoutMs` (real time: they wait on I/O).
   */
  idle(timeoutMs: number, why: string, own = 0): Promise<void> {
    if (this.open.size <= own) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(
          new Unavailable(
            `${why} waited ${timeoutMs} ms for requests still in flight: ${this.describe().join(', ')}; ` +
              `await them before, or give a longer timeout`,
          ),
        );
      }, timeoutMs);
      const waiter = () => {
        if (this.open.size > own) return false;
        clearTimeout(timer);
        resolve();
        return true;
      };
      this.waiters.push(waiter);
    });
  }

  private wake(): void {
    this.waiters = this.waiters.filter((waiter) => !waiter());
  }
}
