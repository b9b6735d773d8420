/**
 * TTL upkeep: sliding expiry on access, a sweeper that removes expired
 * records, and a bounded memory of recently expired ids so a read of one
 * says "Record has been deleted" rather than "Record not found".
 *
 * Reads never depend on the sweeper: expired records are filtered at read
 * time by comparing `expiresAt` with the clock.
 */
import { ReadOnlyRefusal } from '../../errors.js';
import type { EngineCore } from '../core.js';
import type { Effect } from '../write/effects.js';
import type { KvStore } from '../kv/kv.js';
import type { RecordEntry } from '../write/state.js';
import { Slicer } from '../time/slices.js';
import { collectDue, writeInChunks } from './sweep.js';
import { ttlString } from '../time/ttl.js';
import type { Fields } from '../values/index.js';

const MAX_TOMBSTONES = 100_000;
/** Records looked at between looks at the clock while scanning. */
const SCAN_CHECK_EVERY = 1024;

export class ExpiryTracker {
  private readonly tombstones = new RecentIds(MAX_TOMBSTONES);
  private sweeping: Promise<number> | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Records that carry a TTL (`collection\u0000id` -> expiry), so a sweep never scans whole collections. */
  private readonly expiring = new Map<string, number>();
  private tracked: Promise<void> | undefined;

  /** `kv` is swept on the same timer as records. */
  constructor(
    private readonly db: EngineCore,
    private readonly kv: KvStore,
  ) {}

  /**
   * Starts following commits, then indexes the records already stored, the
   * first time a sweep needs it. The scan runs in slices (in one piece, a
   * large collection would hold the event loop); a record a commit changes
   * meanwhile is kept current by the listener, which is why it comes first,
   * and the scan reads each record as it is when reached.
   */
  private track(): Promise<void> {
    return (this.tracked ??= this.startTracking());
  }

  private async startTracking(): Promise<void> {
    this.db.onCommit((batch) => {
      for (const effect of batch.effects) {
        // With nothing expiring, a put without a TTL has nothing to forget: no key to build (a 10k batch is 10k puts).
        if (effect.kind === 'put') {
          if (effect.expiresAt !== undefined)
            this.expiring.set(effect.collection + '\u0000' + effect.id, effect.expiresAt);
          else if (this.expiring.size > 0) this.expiring.delete(effect.collection + '\u0000' + effect.id);
        } else if (effect.kind === 'delete') this.expiring.delete(effect.collection + '\u0000' + effect.id);
        else if (effect.kind === 'dropCollection') {
          for (const key of this.expiring.keys()) if (key.startsWith(effect.name + '\u0000')) this.expiring.delete(key);
        }
      }
    });
    const slicer = new Slicer(SCAN_CHECK_EVERY);
    for (const [collection, coll] of this.db.state.collections) {
      // A collection without a TTL record needs no walk (a TTL record put meanwhile comes through the listener).
      if (coll.expiringRecords === 0) continue;
      for (const [id, entry] of coll.records) {
        if (entry.expiresAt !== undefined) this.expiring.set(collection + '\u0000' + id, entry.expiresAt);
        if (slicer.counted()) await slicer.pause();
      }
    }
  }

  /** Starts periodic sweeping (the server does; tests call sweep() directly). */
  start(intervalMs: number): void {
    this.stop();
    this.timer = setInterval(() => {
      this.sweep().catch((err) => this.logFailure('TTL sweep of records', err));
      this.kv.sweep().catch((err) => this.logFailure('TTL sweep of KV keys', err));
    }, intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  wasExpired(collection: string, id: string): boolean {
    return this.tombstones.has(collection + '\u0000' + id);
  }

  /** Extends a sliding TTL, logging the new expiry in the background; returns the record as extended. */
  touch(collection: string, id: string, entry: RecordEntry): Fields {
    const expiresAt = this.db.now() + entry.slidingMs!;
    const fields = Object.freeze({ ...entry.fields, ttl: ttlString(expiresAt) });
    if (!this.db.readOnly && !this.db.replica) {
      this.db
        .write((view) => {
          const current = view.record(collection, id);
          if (!current || current.version !== entry.version) return { effects: [], result: undefined };
          return {
            effects: [{ kind: 'put', collection, id, fields, expiresAt, slidingMs: entry.slidingMs! }],
            result: undefined,
          };
        })
        .catch((err) => this.logFailure('sliding TTL extension', err));
    }
    return fields;
  }

  /**
   * Removes expired records (no trash: they expired, nobody deleted them),
   * in chunks of one durable write each (sweep.ts). Returns how many. A
   * sweep still running when the timer fires again is left to finish.
   */
  sweep(): Promise<number> {
    return (this.sweeping ??= this.sweepOnce().finally(() => {
      this.sweeping = undefined;
    }));
  }

  private async sweepOnce(): Promise<number> {
    await this.track();
    const now = this.db.now();
    const expired = await collectDue(this.expiring, ([key, at]): [string, string] | undefined => {
      if (at > now) return undefined;
      const index = key.indexOf('\u0000');
      return [key.slice(0, index), key.slice(index + 1)];
    });
    await writeInChunks(
      this.db,
      expired,
      (view, chunk) => {
        const effects: Effect[] = [];
        for (const [collection, id] of chunk) {
          const entry = view.record(collection, id);
          if (entry?.expiresAt !== undefined && entry.expiresAt <= now)
            effects.push({ kind: 'delete', collection, id });
        }
        return effects;
      },
      (chunk) => {
        for (const [c, id] of chunk) this.tombstones.add(c + '\u0000' + id);
      },
    );
    return expired.length;
  }

  /**
   * Background TTL work that failed is logged at error level with its cause;
   * the next sweep retries. A refusal because the engine is read-only is not
   * logged again: StorageHealth has logged that failure.
   */
  private logFailure(what: string, err: unknown): void {
    if (err instanceof ReadOnlyRefusal) return;
    this.db.log(`${what} failed: ${(err as Error)?.message ?? String(err)}`, 'error', err);
  }
}

/**
 * The ids of the last MAX_TOMBSTONES records the sweeper removed, forgotten
 * oldest first through a ring (evicting the first key of a Map whose front
 * is all deleted entries costs a walk over them: 300,000 expiries took a
 * minute that way).
 */
class RecentIds {
  /** Id -> its slot in the ring. */
  private readonly slots = new Map<string, number>();
  private readonly ring: Array<string | undefined> = [];
  private next = 0;

  constructor(private readonly capacity: number) {}

  has(key: string): boolean {
    return this.slots.has(key);
  }

  add(key: string): void {
    const evicted = this.ring[this.next];
    if (evicted !== undefined && this.slots.get(evicted) === this.next) this.slots.delete(evicted);
    this.ring[this.next] = key;
    this.slots.set(key, this.next);
    this.next = (this.next + 1) % this.capacity;
  }
}
