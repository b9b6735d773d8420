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
  constructor(private readonly engine: RippleEngine, peers: readonly PeerConfig[], private readonly maxBackoffMs = 5000,
    private readonly log: ServerLog = () => undefined) {
    engine.retainFor = () => [...this.senders.keys()];
    engine.onCommit((b) => {
      if (this.senders.size === 0) return;
      this.tail.push(b);
      // Trim in bulk so keeping the tail stays O(1) per commit.
      if (this.tail.length > 2 * TAIL_CAPACITY) this.tail = this.tail.slice(-TAIL_CAPACITY);
      for (const s of this.senders.values()) s.wake();
    });
    this.setPeers(peers);
  }

  /** Replaces the peer set (config reload, tests). Acknowledged seqs of kept peers are preserved. */
  setPeers(peers: readonly PeerConfig[]): void {
    for (const [url, s] of this.senders) if (!peers.some((p) => p.url === url)) { s.stop(); this.senders.delete(url); }
    for (const p of peers) {
      const url = p.url.replace(/\/+$/, '');
      if (this.senders.has(url)) continue;
      const fromTail = (after: number) => this.fromTail(after);
      const sender = new PeerSender({ url, key: p.key }, this.engine, fromTail, this.maxBackoffMs, this.log);
      this.senders.set(url, sender);
      sender.start();
    }
  }

  status(): { node_id: string; seq: number; peers: PeerStatus[] } {
    const peers = [...this.senders.values()].map((sender) => sender.status());
    return { node_id: this.engine.replication.nodeId, seq: this.engine.state.seq, peers };
  }

  stop(): void {
    for (const s of this.senders.values()) s.stop();
  }

  /** Batches after `afterSeq` when the tail holds the whole gap. */
  private fromTail(afterSeq: number): LoggedBatch[] | undefined {
    const first = this.tail[0];
    if (!first || first.seq > afterSeq + 1) return undefined;
    const i = this.tail.findIndex((b) => b.seq > afterSeq);
    return i < 0 ? [] : this.tail.slice(i);
  }

  /**
   * Ships the current content of `collections` (all by default) to a peer:
   * each collection is dropped and rebuilt there. With every collection
   * shipped, the peer's acknowledged seq moves to the captured seq.
   */
  async resync(peerUrl: string | undefined, collections: readonly string[] | undefined): Promise<{ peers: string[]; collections: readonly string[]; records: number }> {
    const targets = peerUrl ? [...this.senders.values()].filter((s) => s.peer.url === peerUrl.replace(/\/+$/, '')) : [...this.senders.values()];
    if (peerUrl && targets.length === 0) throw new NotFound(`unknown peer ${peerUrl}`);
    const plan = this.engine.replication.resyncPlan(collections);
    for (const s of targets) {
      for (let i = 0; i < plan.batches.length; i += 50) await s.post(plan.batches.slice(i, i + 50));
      const { replication } = this.engine;
      if (!collections) await replication.setAcked(s.peer.url, Math.max(plan.seq, replication.acked(s.peer.url)));
      s.wake();
    }
    return { peers: targets.map((t) => t.peer.url), collections: plan.collections, records: plan.records };
  }
}
