/**
 * A replica's half of the cluster: reads the stream from the seq after its
 * own and hands each batch to the single writer (WriteQueue.submitReplicated),
 * which logs it locally, applies it with applyBatch (the function recovery
 * replays with) and tells the commit listeners, so indexes, search and change
 * subscriptions follow on a replica as on the primary. Batches read together
 * form one group: one local fsync.
 *
 * The stream sequence of each message is its batch's seq; a batch that does
 * not follow the state (a gap, or a message that is not a batch) stops the
 * follower, which starts again from the state's seq after `retryMs`.
 */
import type { ConsumerMessages, JetStreamClient } from '@nats-io/jetstream';
import type { LoggedBatch, WriteQueue } from '../engine/index.js';
import { batchOfMessage } from './feed-message.js';

/** Batches handed to the writer and not yet applied, past which reading waits. */
const MAX_OUTSTANDING = 4096;

export type FollowerLog = (level: 'info' | 'warn' | 'error', msg: string, cause?: unknown) => void;

export class Follower {
  private messages: ConsumerMessages | undefined;
  private running: Promise<void> | undefined;
  private stopping = false;
  private outstanding = 0;
  private roomWaiter: (() => void) | undefined;
  /** Ends the wait before reading again (set while waiting). */
  private wake: (() => void) | undefined;
  /** The highest stream sequence known to exist (from the messages read). */
  streamLast = 0;

  constructor(
    private readonly js: JetStreamClient,
    private readonly stream: string,
    private readonly queue: WriteQueue,
    private readonly state: { readonly seq: number },
    private readonly log: FollowerLog,
    private readonly retryMs = 1000,
  ) {}

  get active(): boolean {
    return this.running !== undefined;
  }

  /** Starts reading after the state's seq (no-op when reading already). */
  start(): void {
    if (this.running) return;
    this.stopping = false;
    this.running = this.loop().finally(() => {
      this.running = undefined;
    });
  }

  /** Stops reading; resolves once every batch handed to the writer is applied. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.messages?.close().catch(() => undefined);
    await this.running;
    await this.queue.idle();
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      try {
        await this.follow();
      } catch (err) {
        if (this.stopping) break;
        this.log('warn', `replica: reading the cluster's log stopped (${(err as Error).message}); retrying`, err);
      }
      if (this.stopping) break;
      await this.queue.idle();
      await this.pause();
    }
  }

  /** Waits `retryMs`, or until stop(). */
  private async pause(): Promise<void> {
    if (this.stopping) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, this.retryMs).unref();
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    this.wake = undefined;
  }

  private async follow(): Promise<void> {
    await this.queue.idle();
    const from = this.state.seq + 1;
    const consumer = await this.js.consumers.get(this.stream, {
      deliver_policy: 'by_start_sequence',
      opt_start_seq: from,
    });
    const messages = await consumer.consume({ max_messages: 1024 });
    // nats.js resolves close() only once an iteration reads the end it queues (or leaves the loop).
    if (this.stopping) {
      // Stopped while the consumer was being made, so stop() did not close these: end them, apply nothing.
      void messages.close();
      for await (const _ of messages) break;
      return;
    }
    this.messages = messages;
    let expected = from;
    for await (const message of messages) {
      this.streamLast = Math.max(this.streamLast, message.seq + message.info.pending);
      if (message.seq < expected) continue;
      if (message.seq !== expected)
        throw new Error(
          `the cluster's log has no batch ${expected} (next is ${message.seq}): this node fell behind the log's ` +
            "floor; restart it to load the cluster's snapshot",
        );
      this.apply(batchOfMessage(message.data));
      expected += 1;
      if (this.outstanding >= MAX_OUTSTANDING) await new Promise<void>((r) => (this.roomWaiter = r));
    }
  }

  private apply(batch: LoggedBatch): void {
    this.outstanding += 1;
    const origin = batch.origin !== undefined ? { node: batch.origin, seq: batch.originSeq! } : undefined;
    this.queue
      .submitReplicated((view) => {
        if (view.nextSeq !== batch.seq)
          throw new Error(`replica: batch ${batch.seq} from the cluster's log does not follow seq ${view.nextSeq - 1}`);
        return { effects: batch.effects, result: undefined, origin };
      })
      .catch((err: unknown) => {
        this.log('error', `replica: applying batch ${batch.seq} failed; reading again from the state's seq`, err);
        void this.messages?.close();
      })
      .finally(() => {
        this.outstanding -= 1;
        const waiter = this.roomWaiter;
        this.roomWaiter = undefined;
        waiter?.();
      });
  }
}
