/**
 * TTL upkeep: sliding expiry on access, a sweeper that removes expired
 * records, and a bounded memory of recently expired ids so a read of one
 * says "Record has been deleted" rather than "Record not found".
 *
 * Reads never depend on the sweeper: expired records are filtered at read
 * time by comparing `expiresAt` with the clock.
 */
import { ReadOnlyRefusal } from '../errors.js';
import type { EngineCore } from './core.js';
import type { Effect } from './effects.js';
import type { KvStore } from './kv.js';
import type { RecordEntry } from './state.js';
import { Slicer } from './slices.js';
import { ttlString } from './ttl.js';
import type { Fields } from './values/index.js';

const MAX_TOMBSTONES = 100_000;
const SWEEP_CHUNK = 10_000;
/** Records looked at between looks at the clock while scanning. */
const SCAN_CHECK_EVERY = 1024;

export class ExpiryTracker {
  private readonly tombstones = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  /** Records that carry a TTL (`collection\u0000id` -> expiry), so a sweep never scans whole collections. */
  private readonly expiring = new Map<string, number>();
  private tracked: Promise<void> | undefined;

  /** `kv` is swept on the same timer as records. */
  constructor(private readonly db: EngineCore, private readonly kv: KvStore) {}

  /**
   * Starts following commits, then indexes the records already stored, the
   * first time a sweep needs it. The scan runs in slices (a million records
   * held the event loop about 150 ms in one piece); a record a commit changes
   * meanwhile is kept current by the listener, which is why it comes first,
   * and the scan reads each record as it is when reached.
   */
  private track(): Promise<void> {
    return (this.tracked ??= this.startTracking());
  }

  private async startTracking(): Promise<void> {
    this.db.onCommit((b) => {
      for (const e of b.effects) {
        // With nothing expiring, a put without a TTL has nothing to forget: no key to build (a 10k batch is 10k puts).
        if (e.t === 'put') {
          if (e.expiresAt !== undefined) this.expiring.set(e.c + '\u0000' + e.id, e.expiresAt);
          else if (this.expiring.size > 0) this.expiring.delete(e.c + '\u0000' + e.id);
        } else if (e.t === 'delete') this.expiring.delete(e.c + '\u0000' + e.id);
        else if (e.t === 'dropCollection') for (const k of this.expiring.keys()) if (k.startsWith(e.name + '\u0000')) this.expiring.delete(k);
      }
    });
    const slicer = new Slicer(SCAN_CHECK_EVERY);
    for (const [c, coll] of this.db.state.collections) {
      for (const [id, e] of coll.records) {
        if (e.expiresAt !== undefined) this.expiring.set(c + '\u0000' + id, e.expiresAt);
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

  wasExpired(c: string, id: string): boolean {
    return this.tombstones.has(c + '\u0000' + id);
  }

  /** Extends a sliding TTL, logging the new expiry in the background; returns the record as extended. */
  touch(c: string, id: string, entry: RecordEntry): Fields {
    const expiresAt = this.db.now() + entry.slidingMs!;
    const fields = Object.freeze({ ...entry.fields, ttl: ttlString(expiresAt) });
    if (!this.db.readOnly) {
      this.db.write((view) => {
        const current = view.record(c, id);
        if (!current || current.version !== entry.version) return { effects: [], result: undefined };
        return { effects: [{ t: 'put', c, id, fields, expiresAt, slidingMs: entry.slidingMs! }], result: undefined };
      }).catch((err) => this.logFailure('sliding TTL extension', err));
    }
    return fields;
  }

  /** Removes expired records (no trash: they expired, nobody deleted them). Returns how many. */
  async sweep(): Promise<number> {
    await this.track();
    const now = this.db.now();
    const expired: Array<[string, string]> = [];
    // In slices too: every record with a TTL is looked at.
    const slicer = new Slicer(SCAN_CHECK_EVERY);
    for (const [key, at] of this.expiring) {
      if (slicer.counted()) await slicer.pause();
      if (at > now) continue;
      const i = key.indexOf('\u0000');
      expired.push([key.slice(0, i), key.slice(i + 1)]);
    }
    for (let i = 0; i < expired.length; i += SWEEP_CHUNK) {
      const chunk = expired.slice(i, i + SWEEP_CHUNK);
      await this.db.write((view) => {
        const effects: Effect[] = [];
        for (const [c, id] of chunk) {
          const e = view.record(c, id);
          if (e?.expiresAt !== undefined && e.expiresAt <= now) effects.push({ t: 'delete', c, id });
        }
        return { effects, result: undefined };
      });
      for (const [c, id] of chunk) this.remember(c, id);
    }
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

  private remember(c: string, id: string): void {
    const key = c + '\u0000' + id;
    this.tombstones.set(key, this.db.now());
    if (this.tombstones.size > MAX_TOMBSTONES) this.tombstones.delete(this.tombstones.keys().next().value!);
  }
}
