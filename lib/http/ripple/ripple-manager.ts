/**
 * Ripples: propagates committed changes to peer EddyDB instances
 * (operations mode). One PeerSender per peer; a bounded in-memory tail of
 * recent batches spares the senders from reading the log in steady state.
 * `resync` ships whole collections to a peer, for after a bypassed import.
 */
import { NotFound } from '../../errors.js';
import type { LoggedBatch, ResyncPlan } from '../../engine/index.js';
import { PeerSender, type PeerConfig, type PeerEngine, type PeerStatus } from './peer-sender.js';
import type { ServerLog } from '../log/server-log.js';

const TAIL_CAPACITY = 10_000;

/** The engine as ripples use it: what a peer sender reads, plus commit notices, log retention and resync plans. */
export interface RippleEngine extends PeerEngine {
  /** The peers whose unacknowledged batches keep log segments from being removed. */
  retainFor: () => readonly string[];
  onCommit(listener: (batch: LoggedBatch) => void): void;
  readonly replication: PeerEngine['replication'] & {
    /** Batches that rebuild `collections` (all when undefined) on a peer, and the seq they were captured at. */
    resyncPlan(collections?: readonly string[]): ResyncPlan;
  };
}

export class RippleManager {
  private senders = new Map<string, PeerSender>();
  private tail: LoggedBatch[] = [];

  /** `log` receives each peer's transitions between reachable and unreachable (peer-sender.ts). */
  constructor(
    private readonly engine: RippleEngine,
    peers: readonly PeerConfig[],
    private readonly maxBackoffMs = 5000,
    private readonly log: ServerLog = () => undefined,
  ) {
    engine.retainFor = () => [...this.senders.keys()];
    engine.onCommit((batch) => {
      if (this.senders.size === 0) return;
      this.tail.push(batch);
      // Trim in bulk so keeping the tail stays O(1) per commit.
      if (this.tail.length > 2 * TAIL_CAPACITY) this.tail = this.tail.slice(-TAIL_CAPACITY);
      for (const sender of this.senders.values()) sender.wake();
    });
    this.setPeers(peers);
  }

  /** Replaces the peer set (config reload, tests). Acknowledged seqs of kept peers are preserved. */
  setPeers(peers: readonly PeerConfig[]): void {
    for (const [url, sender] of this.senders) {
      if (peers.some((peer) => peer.url === url)) continue;
      sender.stop();
      this.senders.delete(url);
    }
    for (const peer of peers) {
      const url = peer.url.replace(/\/+$/, '');
      if (this.senders.has(url)) continue;
      const fromTail = (after: number) => this.fromTail(after);
      const sender = new PeerSender({ url, key: peer.key }, this.engine, fromTail, this.maxBackoffMs, this.log);
      this.senders.set(url, sender);
      sender.start();
    }
  }

  status(): { node_id: string; seq: number; peers: PeerStatus[] } {
    const peers = [...this.senders.values()].map((sender) => sender.status());
    return { node_id: this.engine.replication.nodeId, seq: this.engine.state.seq, peers };
  }

  stop(): void {
    for (const sender of this.senders.values()) sender.stop();
  }

  /** Batches after `afterSeq` when the tail holds the whole gap. */
  private fromTail(afterSeq: number): LoggedBatch[] | undefined {
    const first = this.tail[0];
    if (!first || first.seq > afterSeq + 1) return undefined;
    const next = this.tail.findIndex((batch) => batch.seq > afterSeq);
    return next < 0 ? [] : this.tail.slice(next);
  }

  /**
   * Ships the current content of `collections` (all by default) to a peer:
   * each collection is dropped and rebuilt there. With every collection
   * shipped, the peer's acknowledged seq moves to the captured seq.
   */
  async resync(
    peerUrl: string | undefined,
    collections: readonly string[] | undefined,
  ): Promise<{ peers: string[]; collections: readonly string[]; records: number }> {
    const senders = [...this.senders.values()];
    const targets = peerUrl ? senders.filter((sender) => sender.peer.url === peerUrl.replace(/\/+$/, '')) : senders;
    if (peerUrl && targets.length === 0) throw new NotFound(`unknown peer ${peerUrl}`);
    const plan = this.engine.replication.resyncPlan(collections);
    for (const sender of targets) {
      for (let i = 0; i < plan.batches.length; i += 50) await sender.post(plan.batches.slice(i, i + 50));
      const { replication } = this.engine;
      const url = sender.peer.url;
      if (!collections) await replication.setAcked(url, Math.max(plan.seq, replication.acked(url)));
      sender.wake();
    }
    return { peers: targets.map((target) => target.peer.url), collections: plan.collections, records: plan.records };
  }
}
