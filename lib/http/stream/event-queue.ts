/**
 * A push-to-pull bridge for stream procedures: a producer that is called
 * back (the engine's change notices) pushes events, and the one consumer
 * (the stream renderer) reads them with `for await`. The queue ends when
 * the signal fires or the consumer stops reading, drops what it still holds,
 * and calls `onEnd` once (to unsubscribe from the producer).
 */
export class EventQueue<T> implements AsyncIterableIterator<T> {
  private readonly items: T[] = [];
  private waiting: ((r: IteratorResult<T>) => void) | undefined;
  private ended = false;

  constructor(signal: AbortSignal, private readonly onEnd: () => void) {
    if (signal.aborted) this.end();
    else signal.addEventListener('abort', () => this.end(), { once: true });
  }

  push(item: T): void {
    if (this.ended) return;
    const waiting = this.waiting;
    if (!waiting) { this.items.push(item); return; }
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
  }

  next(): Promise<IteratorResult<T>> {
    if (this.items.length > 0) return Promise.resolve({ value: this.items.shift()!, done: false });
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => { this.waiting = resolve; });
  }

  return(): Promise<IteratorResult<T>> {
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
