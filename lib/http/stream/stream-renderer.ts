/**
 * The one stream renderer: writes a stream procedure's events to a
 * transport's sink in a frame format (frame-formats.ts), with the
 * slow-consumer policy and cancellation in one place for SSE and WebSocket.
 *
 * Slow consumers: before each frame the sink's unsent bytes are compared
 * with the cap; past it the reader is sent one SlowConsumer error frame,
 * a warning is logged, and the transport drops it (`drop`). Events are never
 * queued behind a slow reader: the socket's own buffer is the only queue.
 *
 * Cancellation: the stream's abort signal (the client went away, an
 * Unsubscribe, a drop) stops the loop; the procedure's iterable ends with it.
 */
import { SlowConsumer, toDbError } from '../../errors.js';
import type { StreamEvent } from '../procedures/procedure.js';
import type { ServerLog } from '../log/server-log.js';
import type { Frame, FrameFormat } from './frame-formats.js';
import { EventQueue } from './event-queue.js';

/** Where frames go: a WebSocket or an HTTP response. */
export interface FrameSink {
  /** Bytes written but not yet sent. */
  queued(): number;
  write(frame: Frame): void;
}

export interface SlowConsumerPolicy {
  readonly maxQueuedBytes: number;
  /** How the log names the transport ("WebSocket", "SSE") and what the reader loses ("connection", "stream"). */
  readonly transport: string;
  readonly closing: string;
  readonly log: ServerLog;
  /** Fields of the warning (key id, collections). */
  describe(): Record<string, unknown>;
  /** Ends the reader's stream(s) and connection. */
  drop(): void;
}

export class StreamRenderer {
  /** No more events: the stream failed or its reader was dropped. */
  private over = false;
  /** The signal fired (kept as a field: reading `signal.aborted` per event costs more than the rest of a fan-out). */
  private cancelled: boolean;

  constructor(
    private readonly sink: FrameSink,
    private readonly format: FrameFormat,
    private readonly policy: SlowConsumerPolicy,
    signal: AbortSignal,
  ) {
    this.cancelled = signal.aborted;
    signal.addEventListener(
      'abort',
      () => {
        this.cancelled = true;
      },
      { once: true },
    );
  }

  /** Writes one event; false once the stream is over (cancelled, failed, or its reader dropped). */
  emit(event: StreamEvent): boolean {
    if (this.over || this.cancelled) return false;
    const policy = this.policy;
    if (this.sink.queued() > policy.maxQueuedBytes) {
      const unsent = `more than ${policy.maxQueuedBytes} bytes unsent`;
      this.fail(new SlowConsumer(`Slow consumer: ${unsent}; closing the ${policy.closing}`));
      policy.log('warn', `dropped a slow ${policy.transport} subscriber: ${unsent}`, policy.describe());
      policy.drop();
      return false;
    }
    this.sink.write(this.format.frame(event));
    return true;
  }

  /** A keep-alive frame, when the format has one; false once the stream is over. */
  heartbeat(): boolean {
    if (this.over || this.cancelled) return false;
    if (this.format.heartbeat) this.sink.write(this.format.heartbeat());
    return true;
  }

  /** A final error frame; nothing is written after it. */
  fail(err: unknown): void {
    if (this.over) return;
    this.over = true;
    this.sink.write(this.format.error(err));
  }

  /** Ends the stream without a frame (the transport has written its own last word, e.g. a cancelled chat). */
  close(): void {
    this.over = true;
  }

  /**
   * Renders `events` until they end, the signal fires or the reader is
   * dropped. `deliver` is asked before each event (credentials still valid);
   * an event it refuses is skipped. A failing stream ends with its error frame.
   */
  async run(events: AsyncIterable<StreamEvent>, deliver: () => boolean = () => true): Promise<void> {
    if (events instanceof EventQueue) return this.listen(events, deliver);
    try {
      for await (const event of events) {
        if (this.over || this.cancelled) break;
        if (deliver() && !this.emit(event)) break;
      }
    } catch (err) {
      if (toDbError(err).status >= 500) this.policy.log('error', 'a stream failed', err);
      this.fail(err);
    }
  }

  /** The same loop for a queue that can push: each event is written inside the producer's call. */
  private listen(queue: EventQueue<StreamEvent>, deliver: () => boolean): Promise<void> {
    return new Promise((resolve) => {
      queue.listen((event) => {
        if (this.over || this.cancelled) queue.end();
        else if (deliver() && !this.emit(event)) queue.end();
      }, resolve);
    });
  }
}
