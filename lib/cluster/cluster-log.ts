/**
 * The commit log of a cluster node: the local log (LogWriter) plus, on the
 * primary, the cluster's stream. The writer hands it each group with the
 * group's changes (WriteQueue.describeWhenStaged); on a replica groups come
 * from the stream and only the local log is written.
 *
 * - `replicated`: the group is published first and appended locally once
 *   the stream holds it (a quorum of NATS servers for a replicated stream);
 *   the append resolves when both are done, so an acknowledged write is in
 *   the cluster's log and on the local disk. The local log therefore never
 *   holds a batch the stream does not. When the stream does not take a group
 *   in time (NATS unreachable) the group fails with 503, nothing of it or of
 *   the groups after it is written locally, and appends fail at once until
 *   the node has checked the stream again (`resume`).
 * - `always`, `batch`, `none`: the local append answers as on a single node;
 *   once it has, the group is published in the background, in order, retried
 *   until the stream takes it. A primary that loses its lease with batches not
 *   yet published holds writes the cluster never got (docs/cluster.md).
 */
import { Unavailable } from '../errors.js';
import { framePayloads, type CommitLog, type DurabilityMode, type StagedGroup } from '../engine/index.js';
import type { StorageFault } from '../engine/index.js';
import { feedMessage } from './feed-message.js';
import type { Outgoing, Publisher } from './publisher.js';

/** Batches published in the background and not yet acknowledged, past which a primary refuses writes (503). */
export const MAX_BACKLOG = 100_000;

export class ClusterLog implements CommitLog {
  /** True on the primary: groups are published. */
  publishing = false;
  /** Set after a `replicated` group failed: appends fail at once until `resume`. */
  private broken: Error | undefined;
  /** Local appends of `replicated` groups, chained so they reach the local log in group order. */
  private chain: Promise<void> = Promise.resolve();
  /** Told when a `replicated` group fails (the node checks the stream and its lease). */
  onBroken: (err: Error) => void = () => undefined;

  constructor(
    private readonly local: CommitLog,
    private readonly publisher: Publisher,
    private readonly cluster: string,
    private readonly node: () => string,
    private readonly now: () => number,
    /** How long a `replicated` group waits for the stream before it fails. */
    private readonly publishTimeoutMs: number,
  ) {}

  get mode(): DurabilityMode {
    return this.local.mode;
  }
  set mode(mode: DurabilityMode) {
    this.local.mode = mode;
  }
  get onFailure(): (fault: StorageFault) => void {
    return this.local.onFailure;
  }
  set onFailure(listener: (fault: StorageFault) => void) {
    this.local.onFailure = listener;
  }
  get bytesInSegment(): number {
    return this.local.bytesInSegment;
  }
  get currentSegment(): string {
    return this.local.currentSegment;
  }

  /** True after a `replicated` group failed, until `resume`. */
  get isBroken(): boolean {
    return this.broken !== undefined;
  }

  /** Appends may go on (after the node found the stream and its own state agree again). */
  resume(): void {
    this.broken = undefined;
  }

  encode(batches: Parameters<CommitLog['encode']>[0]): Buffer | Promise<Buffer> {
    return this.local.encode(batches);
  }

  /** Frames published to the cluster are read after the local append: only others are handed over to the local log. */
  appendEncoded(data: Buffer, group?: StagedGroup, handedOver?: boolean): Promise<void> {
    if (!this.publishing || !group) return this.local.appendEncoded(data, undefined, handedOver);
    if (this.broken) return Promise.reject(this.broken);
    if (this.publisher.backlog >= MAX_BACKLOG)
      return Promise.reject(
        new Unavailable(
          `${this.publisher.backlog} committed batches are waiting for the cluster's log (NATS JetStream); ` +
            'writes resume once it takes them',
        ),
      );
    const outgoing = this.messages(data, group);
    if (this.mode !== 'replicated') {
      const appended = this.local.appendEncoded(data);
      // Published once kept locally, in order (local appends resolve in call order); failures are the publisher's.
      appended.then(
        () => this.publisher.publish(outgoing, Infinity).catch(() => undefined),
        () => undefined,
      );
      return appended;
    }
    const published = this.publisher.publish(outgoing, this.publishTimeoutMs);
    // The chain orders the hand-overs to the local log, not their fsyncs: groups handed over while one fsync runs
    // share the next (the local log's group commit).
    const handOver = this.chain.then(async () => {
      await published;
      if (this.broken) throw this.broken;
      return { appended: this.local.appendEncoded(data) };
    });
    this.chain = handOver.then(
      () => undefined,
      (err: unknown) => {
        if (this.broken) return;
        this.broken = err instanceof Error ? err : new Error(String(err));
        this.onBroken(this.broken);
      },
    );
    return handOver.then((step) => step.appended);
  }

  private messages(data: Buffer, group: StagedGroup): Outgoing[] {
    const payloads = framePayloads(data);
    const now = this.now();
    return group.batches.map((batch, i) => {
      const message = feedMessage(this.cluster, batch, group.infos[i]!, payloads[i]!, this.node(), now);
      return { seq: batch.seq, subject: message.subject, body: message.body };
    });
  }

  openSegment(startSeq: number): Promise<void> {
    return this.local.openSegment(startSeq);
  }
  flush(): Promise<void> {
    return this.local.flush();
  }
  heal(): Promise<void> {
    return this.local.heal();
  }
  close(): Promise<void> {
    return this.local.close();
  }
}
