/**
 * A push-to-pull bridge for stream procedures: a producer that is called
 * back (the engine's change notices) pushes events, and the one consumer
 * reads them with `for await`, or, when it can take them synchronously (the
 * stream renderer), through `listen`: then each push is handed over at once,
 * inside the producer's call, with no promise per event (a fan-out to
 * thousands of subscribers costs what a direct callback costs). The queue
 * ends when the signal fires or the consumer stops reading, drops what it
 * still holds, and calls `onEnd` once (to unsubscribe from the producer).
 */
export class EventQueue<T> implements AsyncIterableIterator<T> {
  private readonly items: T[] = [];
  private waiting: ((result: IteratorResult<T>) => void) | undefined;
  private listener: { take: (item: T) => void; ended: () => void } | undefined;
  private ended = false;

  constructor(
    signal: AbortSignal,
    private readonly onEnd: () => void,
  ) {
    if (signal.aborted) this.end();
    else signal.addEventListener('abort', () => this.end(), { once: true });
  }

  push(item: T): void {
    if (this.ended) return;
    if (this.listener) {
      this.listener.take(item);
      return;
    }
    const waiting = this.waiting;
    if (!waiting) {
      this.items.push(item);
      return;
    }
    this.waiting = undefined;
    waiting({ value: item, done: false });
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.items.length = 0;
    this.onEnd();
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.({ value: undefined, done: true });
    this.listener?.ended();
  }

  /**
   * Hands every item, those held and those pushed later, to `take` as it
   * comes (instead of `next`); `ended` is called once when the queue ends.
   */
  listen(take: (item: T) => void, ended: () => void): void {
    if (this.ended) {
      ended();
      return;
    }
    this.listener = { take, ended };
    while (this.items.length > 0 && !this.ended) take(this.items.shift()!);
  }

  next(): Promise<IteratorResult<T>> {
    if (this.items.length > 0) return Promise.resolve({ value: this.items.shift()!, done: false });
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  return(): Promise<IteratorResult<T>> {
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
