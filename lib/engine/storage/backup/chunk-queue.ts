/**
 * A bounded hand-over of byte chunks from a writer that pushes (a snapshot
 * capture writing its frames) to a reader that pulls (an HTTP answer
 * written with back-pressure). The writer waits while `highWaterBytes` are
 * unread, so a slow reader holds a few frames in memory, never the whole
 * backup. A reader that takes nothing for `stallMs`, or goes away, makes
 * the writer's next push reject, which ends the writer and lets it release
 * what it holds.
 */

export class ChunkQueue {
  private readonly chunks: Buffer[] = [];
  private queued = 0;
  private ended = false;
  private failure: unknown;
  private cancelled: Error | undefined;
  private wakeReader: (() => void) | undefined;
  private wakeWriter: (() => void) | undefined;

  constructor(
    private readonly highWaterBytes: number,
    private readonly stallMs: number,
  ) {}

  /** Hands `chunk` to the reader; resolves once there is room for more. Rejects once the reader is gone or stalled. */
  async push(chunk: Buffer): Promise<void> {
    if (this.cancelled) throw this.cancelled;
    this.chunks.push(chunk);
    this.queued += chunk.length;
    this.wakeReader?.();
    while (this.queued >= this.highWaterBytes && !this.cancelled) await this.room();
    if (this.cancelled) throw this.cancelled;
  }

  /** No more chunks: the reader ends after the queued ones, with `failure` thrown when given. */
  end(failure?: unknown): void {
    this.ended = true;
    this.failure = failure;
    this.wakeReader?.();
  }

  /** Stops the hand-over: the writer's next push rejects with `reason`. Idempotent. */
  cancel(reason: Error): void {
    this.cancelled ??= reason;
    this.wakeWriter?.();
    this.wakeReader?.();
  }

  /** The chunks in order; ending the iteration early (the reader went away) cancels the writer. */
  async *read(): AsyncGenerator<Buffer> {
    try {
      for (;;) {
        const chunk = this.chunks.shift();
        if (chunk) {
          this.queued -= chunk.length;
          if (this.queued < this.highWaterBytes) this.wakeWriter?.();
          yield chunk;
          continue;
        }
        if (this.ended) {
          if (this.failure !== undefined) throw this.failure;
          return;
        }
        if (this.cancelled) throw this.cancelled;
        await new Promise<void>((resolve) => (this.wakeReader = resolve));
        this.wakeReader = undefined;
      }
    } finally {
      this.cancel(new Error('the reader went away'));
    }
  }

  /** Resolves when the reader made room, or cancels after `stallMs` without a read. */
  private room(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(
        () => this.cancel(new Error(`the reader took nothing for ${this.stallMs} ms`)),
        this.stallMs,
      );
      this.wakeWriter = () => {
        clearTimeout(timer);
        this.wakeWriter = undefined;
        resolve();
      };
    });
  }
}
