/**
 * Appends the primary's batches to the stream, in seq order, each at the
 * stream sequence equal to its seq.
 *
 * Every message names the sequence and the message id it must follow
 * (`Nats-Expected-Last-Sequence`, `Nats-Expected-Last-Msg-Id`), so a node
 * that lost the lease can never append after another primary did, and its
 * id (`<node>-<term>-<seq>`) makes a resend after a lost acknowledgement a
 * duplicate the stream answers with the original sequence.
 *
 * Messages go out back to back (pipelined). When one fails, sending stops,
 * what was sent settles, and the first message not acknowledged is resent
 * alone, with a backoff, until it is stored, its deadline passes (the
 * `replicated` mode's bound: the writes fail with 503) or the stream says
 * another node appended (deposed); then the rest go out again. A message
 * refused because its predecessor is missing is not a deposition: only the
 * first unacknowledged one is judged.
 */
import type { JetStreamClient } from '@nats-io/jetstream';
import { Unavailable } from '../errors.js';
import { isWrongLastSequence } from './lease.js';

/** A batch ready to append. */
export interface Outgoing {
  readonly seq: number;
  readonly subject: string;
  readonly body: string;
}

interface Entry extends Outgoing {
  readonly id: string;
  readonly prevId: string | undefined;
  /** performance.now() after which it is given up (Infinity: never, the asynchronous modes). */
  readonly deadline: number;
  sent?: Promise<void>;
  acked: boolean;
  failure?: unknown;
  resolve(): void;
  reject(err: unknown): void;
}

/** The stream refused an append because another node appended since: this node is no longer primary. */
export class Deposed extends Unavailable {}

/** Longest a single send waits for its acknowledgement. */
const SEND_TIMEOUT_MS = 2000;

export class Publisher {
  private unacked: Entry[] = [];
  /** Index in `unacked` of the first entry not sent yet. */
  private nextToSend = 0;
  private recovering = false;
  private term = 0;
  private lastEnqueued = 0;
  private lastId: string | undefined;
  private stopped: Error | undefined = new Unavailable('this node is not the primary');
  /** Called once when the stream shows that another node appended. */
  onDeposed: (err: Deposed) => void = () => undefined;
  /** Called when batches that had no deadline (the asynchronous modes) are given up: they will never be published. */
  onAbandoned: (err: Error, seqs: number[]) => void = () => undefined;

  /** This node's id (in every message id); set once the database is open. */
  node = '';

  constructor(private readonly js: JetStreamClient) {}

  /** Batches handed over and not yet acknowledged by the stream. */
  get backlog(): number {
    return this.unacked.length;
  }

  /** Starts appending after `lastSeq` (whose message id is `lastId`), in lease term `term`. */
  start(term: number, lastSeq: number, lastId: string | undefined): void {
    this.term = term;
    this.lastEnqueued = lastSeq;
    this.lastId = lastId;
    this.stopped = undefined;
  }

  /** Stops appending: every batch not acknowledged fails with `why`. Returns their seqs. */
  stop(why: Error): number[] {
    this.stopped = why;
    const left = this.unacked.map((e) => e.seq);
    this.rejectFrom(0, why);
    return left;
  }

  /**
   * Appends `batches` (seqs following the last one handed over). Resolves once
   * the stream holds all of them; rejects when `timeoutMs` passes first (Infinity:
   * keep trying), when this node is deposed, or when it stops being primary.
   */
  publish(batches: readonly Outgoing[], timeoutMs: number): Promise<void> {
    if (this.stopped) return Promise.reject(this.stopped);
    const deadline = performance.now() + timeoutMs;
    const promises: Array<Promise<void>> = [];
    for (const batch of batches) {
      // A group committed before this node's last change of role: it belongs to the old term.
      if (batch.seq !== this.lastEnqueued + 1)
        return Promise.reject(new Unavailable(`batch ${batch.seq} does not follow ${this.lastEnqueued} in this term`));
      const id = `${this.node}-${this.term}-${batch.seq}`;
      let resolve!: () => void, reject!: (err: unknown) => void;
      promises.push(
        new Promise<void>((res, rej) => {
          resolve = res;
          reject = rej;
        }),
      );
      this.unacked.push({ ...batch, id, prevId: this.lastId, deadline, acked: false, resolve, reject });
      this.lastEnqueued = batch.seq;
      this.lastId = id;
    }
    this.sendMore();
    return promises.length === 1 ? promises[0]! : Promise.all(promises).then(() => undefined);
  }

  private sendMore(): void {
    if (this.recovering) return;
    while (this.nextToSend < this.unacked.length) this.send(this.unacked[this.nextToSend++]!);
  }

  private send(entry: Entry): void {
    entry.failure = undefined;
    entry.sent = this.attempt(entry).then(
      () => {
        entry.acked = true;
        this.settlePrefix();
      },
      (err: unknown) => {
        entry.failure = err;
        if (!this.recovering) {
          this.recovering = true;
          void this.recover();
        }
      },
    );
  }

  private attempt(entry: Entry): Promise<unknown> {
    const left = entry.deadline - performance.now();
    return this.js.publish(entry.subject, entry.body, {
      msgID: entry.id,
      expect:
        entry.prevId === undefined
          ? { lastSequence: entry.seq - 1 }
          : { lastSequence: entry.seq - 1, lastMsgID: entry.prevId },
      timeout: Math.max(50, Math.min(SEND_TIMEOUT_MS, left)),
    });
  }

  /** Resolves the acknowledged entries at the head, in order. */
  private settlePrefix(): void {
    while (this.unacked[0]?.acked) {
      this.unacked.shift()!.resolve();
      this.nextToSend -= 1;
    }
  }

  /** After a failure: settle what was sent, then resend the first unacknowledged entry alone until judged. */
  private async recover(): Promise<void> {
    let backoff = 50;
    try {
      for (;;) {
        await Promise.allSettled(this.unacked.slice(0, this.nextToSend).map((e) => e.sent));
        this.settlePrefix();
        const first = this.unacked[0];
        // Nothing failed at the head (it was stored, or never sent): back to sending back to back.
        if (!first || this.stopped || first.failure === undefined) return;
        if (isWrongLastSequence(first.failure)) {
          const deposed = new Deposed(
            `another node appended to the cluster's log after seq ${first.seq - 1}: this node is no longer primary`,
            { cause: first.failure },
          );
          this.stop(deposed);
          this.onDeposed(deposed);
          return;
        }
        if (performance.now() >= first.deadline || isTooLarge(first.failure)) {
          this.giveUp(first.failure, first.deadline === Infinity);
          return;
        }
        await new Promise((r) => setTimeout(r, backoff).unref());
        // This node may have stopped while it waited, and started again in a new term: `first` was failed then,
        // and resending it would append a batch its writer was told was not applied, while what is queued now
        // (the new term's, not sent yet) would wait for ever. Back to sending back to back from the new head.
        if (this.stopped || this.unacked[0] !== first) return;
        backoff = Math.min(1000, backoff * 2);
        // Everything after `first` was sent over its missing predecessor: it is sent again once `first` is stored.
        for (const later of this.unacked.slice(1)) later.failure = undefined;
        this.nextToSend = 1;
        this.send(first);
      }
    } finally {
      this.recovering = false;
      this.sendMore();
    }
  }

  /**
   * The first unacknowledged batch could not be stored in time: it and every
   * batch after it fail, and this publisher stops until started again (the
   * node checks the stream before it appends anything more).
   */
  private giveUp(cause: unknown, abandoned: boolean): void {
    const message = (cause as Error)?.message ?? String(cause);
    const why = isTooLarge(cause)
      ? new Unavailable(
          `the batch is larger than the NATS server's max_payload (${message}); raise max_payload in the NATS ` +
            'configuration, or write smaller batches',
          { cause },
        )
      : new Unavailable(
          `the cluster's log (NATS JetStream) did not acknowledge the write in time; it was not applied (${message})`,
          { cause },
        );
    const left = this.stop(why);
    if (abandoned) this.onAbandoned(why, left);
  }

  private rejectFrom(index: number, err: Error): void {
    const failed = this.unacked.splice(index);
    this.nextToSend = Math.min(this.nextToSend, this.unacked.length);
    for (const entry of failed) entry.reject(err);
  }
}

/** The server refused the message for its size: resending cannot help. */
function isTooLarge(err: unknown): boolean {
  return err instanceof Error && /maximum payload|max_payload|payload.*(exceed|too large)/i.test(err.message);
}
