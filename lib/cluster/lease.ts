/**
 * The primary's lease: the key `primary` of a key-value bucket whose TTL is
 * the lease's (`--lease-ttl`; on nats-server 2.9 the bucket-wide TTL is what
 * there is, and one key needs no more). The holder renews it with an update
 * that names the revision it last wrote, so a renewal after someone else took
 * the key fails; a replica that finds the key gone creates it, and creation
 * fails when another did first. The revision at creation is the holder's term:
 * it is in the id of every message the holder appends (publisher.ts).
 *
 * The holder counts its lease from when it *sent* the last renewal, less a
 * margin, so it stops appending before the bucket can let the key expire and
 * another node take it (LeaseClock: a pure core on an injectable clock).
 */
import type { KV } from '@nats-io/kv';

/** What the lease key holds: who is primary and where clients reach it. */
export interface LeaseHolder {
  readonly node: string;
  readonly url: string;
}

const KEY = 'primary';

/** The lease's timing, for a holder: when to renew, and until when it may act as primary. */
export class LeaseClock {
  private validUntil = 0;

  constructor(
    readonly ttlMs: number,
    readonly now: () => number,
  ) {}

  /** Kept off the end of the lease: clocks drift, and a renewal's answer takes time. */
  get marginMs(): number {
    return Math.max(100, Math.floor(this.ttlMs / 10));
  }
  /** How often the holder renews: three times a lease, so two renewals may fail before it lapses. */
  get renewEveryMs(): number {
    return Math.max(50, Math.floor(this.ttlMs / 3));
  }
  /** How often a replica looks for an expired lease. */
  get pollEveryMs(): number {
    return Math.max(50, Math.min(1000, Math.floor(this.ttlMs / 8)));
  }

  /** A write of the key sent at `sentAt` (the clock's time) succeeded. */
  renewed(sentAt: number): void {
    this.validUntil = sentAt + this.ttlMs - this.marginMs;
  }
  lost(): void {
    this.validUntil = 0;
  }
  /** True while the holder may still append: its last renewal, sent less than a lease ago, is not yet due to lapse. */
  get valid(): boolean {
    return this.now() < this.validUntil;
  }
  /** Milliseconds of lease left (0 when lapsed). */
  get remainingMs(): number {
    return Math.max(0, this.validUntil - this.now());
  }
}

/** The lease key in its bucket: read, take, renew, give up. */
export class Lease {
  /** The revision this node last wrote; undefined while it holds no lease. */
  private revision: number | undefined;
  /** The revision at which this node took the lease: its term. */
  term = 0;

  constructor(
    private readonly kv: KV,
    readonly clock: LeaseClock,
    private readonly me: LeaseHolder,
  ) {}

  get held(): boolean {
    return this.revision !== undefined && this.clock.valid;
  }

  /** Who holds the lease now; undefined when nobody does (never taken, expired or given up). */
  async holder(): Promise<LeaseHolder | undefined> {
    const entry = await this.kv.get(KEY);
    if (!entry || entry.operation !== 'PUT' || entry.length === 0) return undefined;
    try {
      const value = entry.json<LeaseHolder>();
      return typeof value.node === 'string' && typeof value.url === 'string' ? value : undefined;
    } catch {
      return undefined;
    }
  }

  /** Takes the lease if nobody holds it; false when another node does. */
  async acquire(): Promise<boolean> {
    const sentAt = this.clock.now();
    try {
      this.revision = await this.kv.create(KEY, JSON.stringify(this.me));
    } catch (err) {
      if (isWrongLastSequence(err)) return false;
      throw err;
    }
    this.term = this.revision;
    this.clock.renewed(sentAt);
    return true;
  }

  /** Renews the lease; false when it was lost (another node took it). Throws when NATS does not answer. */
  async renew(): Promise<boolean> {
    if (this.revision === undefined) return false;
    const sentAt = this.clock.now();
    try {
      this.revision = await this.kv.update(KEY, JSON.stringify(this.me), this.revision);
    } catch (err) {
      if (!isWrongLastSequence(err)) throw err;
      this.dropped();
      return false;
    }
    this.clock.renewed(sentAt);
    return true;
  }

  /** Gives the lease up (a clean stop), so a replica takes over without waiting for it to expire. */
  async release(): Promise<void> {
    const revision = this.revision;
    this.dropped();
    if (revision !== undefined) await this.kv.delete(KEY, { previousSeq: revision }).catch(() => undefined);
  }

  /** Forgets the lease locally (lost, or lapsed without a renewal). */
  dropped(): void {
    this.revision = undefined;
    this.clock.lost();
  }
}

/** The server's refusal of a write that named the wrong previous revision or sequence. */
export function isWrongLastSequence(err: unknown): boolean {
  return err instanceof Error && /wrong last (sequence|msg id)/i.test(err.message);
}
