/**
 * A read of one collection as it was when the read began, walked in slices
 * so that a scan of a million records never holds the event loop: between
 * slices the server answers other requests, and writes commit.
 *
 * Point in time without a copy: the scan opens an undo log on the
 * collection (CollectionState.openReader), which keeps the pre-image of
 * every record written meanwhile. The walk follows the record table's slots
 * in order, which is insertion order (a record's slot is its ord), up to the
 * last ord handed out before the open, and so:
 * - a record updated meanwhile is read at its pre-image;
 * - a record inserted meanwhile stands beyond the open's last ord and is
 *   not reached (or, in an ord a checkpoint restore handed out again, its
 *   pre-image says it was not there);
 * - a record deleted meanwhile (perhaps inserted again as a new record) has
 *   left its slot; its pre-image is read at that slot, from the log's ids
 *   gone by slot.
 * Expiry is judged at the open's clock reading, once for the whole read.
 */
import type { CollectionState, RecordEntry, UndoLog } from '../write/state.js';
import { Slicer } from '../time/slices.js';
import { isExpired } from '../time/ttl.js';
import type { Fields } from '../values/index.js';
import { sortInSlices } from './sort.js';

/** Records looked at between looks at the clock. */
export const SCAN_CHECK_EVERY = 256;

/** What CollectionScan.walk answers once `visit` has said stop. */
const STOPPED = -1;

/** Something a query can walk in slices: a collection scan, or a list of records. */
export interface RecordSource {
  /** Visits each live record in order; `visit` returns false to stop. Yields the event loop between slices. */
  each(visit: (record: Fields) => boolean | void, slicer: Slicer): Promise<void>;
}

export class CollectionScan implements RecordSource {
  private readonly log: UndoLog;
  private open = true;

  constructor(
    private readonly coll: CollectionState,
    readonly now: number,
  ) {
    this.log = coll.openReader();
  }

  /** Ends the read; the collection stops keeping pre-images for it. Idempotent. */
  close(): void {
    if (!this.open) return;
    this.open = false;
    this.coll.closeReader(this.log);
  }

  /** Number of records the walk will look at, at most (for plans and progress). */
  get size(): number {
    return this.coll.records.size;
  }

  /** The live record `id` as it was at the open, if any. */
  get(id: string): Fields | undefined {
    const entry = this.log.entryAt(this.coll.records, id);
    return entry !== undefined && !isExpired(entry, this.now) ? entry.fields : undefined;
  }

  /**
   * Visits each live record as it was at the open, in insertion order, in slices; stops when `visit` returns false.
   * Reads the fields from their slots, making no entry per record: the inner loop of every unindexed query.
   */
  async each(visit: (record: Fields) => boolean | void, slicer = new Slicer(SCAN_CHECK_EVERY)): Promise<void> {
    for (let ord = this.walk(1, visit, slicer); ord !== STOPPED && ord <= this.log.openOrd;) {
      await slicer.pause();
      ord = this.walk(ord, visit, slicer);
    }
  }

  /**
   * One slice of `each`, from slot `from`: the slot to go on from once the slice is used up (past the last when
   * done), or STOPPED. Synchronous, so the engine compiles the hot loop alone, not the awaits around it.
   */
  private walk(from: number, visit: (record: Fields) => boolean | void, slicer: Slicer): number {
    const log = this.log;
    const before = log.before;
    const records = this.coll.records;
    const now = this.now;
    const live = (entry: RecordEntry | undefined): boolean =>
      entry === undefined || isExpired(entry, now) || visit(entry.fields) !== false;
    for (let ord = from; ord <= log.openOrd; ord++) {
      // Records gone from this slot since the open (most slots have none), then the one standing in it.
      const gone = log.goneAt(ord);
      if (gone !== undefined) for (const id of gone) if (!live(before.get(id) ?? undefined)) return STOPPED;
      const fields = records.fieldsIn(ord);
      if (fields === undefined) continue;
      if (before.size > 0) {
        const preImage = before.get(records.idIn(ord)!);
        // null: not there at the open (an ord a checkpoint restore handed out again); a pre-image: written since.
        if (preImage === null) continue;
        if (preImage !== undefined) {
          if (!live(preImage)) return STOPPED;
          if (slicer.counted() && slicer.due()) return ord + 1;
          continue;
        }
      }
      const expiresAt = records.expiresAtIn(ord);
      if ((expiresAt === undefined || expiresAt > now) && visit(fields) === false) return STOPPED;
      if (slicer.counted() && slicer.due()) return ord + 1;
    }
    return log.openOrd + 1;
  }

  /**
   * Visits the entry of every record as it was at the open (expired ones
   * too), in insertion order, each exactly once, in slices. `visit` returns
   * false to stop, or a promise the walk awaits (writes may commit
   * meanwhile, as during a pause).
   */
  async eachEntry(
    visit: (id: string, entry: RecordEntry) => boolean | Promise<boolean>,
    slicer = new Slicer(SCAN_CHECK_EVERY),
  ): Promise<void> {
    const log = this.log;
    const before = log.before;
    const records = this.coll.records;
    for (let ord = 1; ord <= log.openOrd; ord++) {
      // Records gone from this slot since the open (most slots have none), then the one standing in it.
      const gone = log.goneAt(ord);
      if (gone !== undefined) {
        for (const id of gone) {
          const entry = before.get(id);
          if (!entry) continue;
          const kept = visit(id, entry);
          if (!(kept instanceof Promise ? await kept : kept)) return;
        }
      }
      const id = records.idIn(ord);
      if (id === undefined) continue;
      let entry: RecordEntry | null | undefined = before.size === 0 ? undefined : before.get(id);
      // null: not there at the open (an ord a checkpoint restore handed out again); a pre-image: written since.
      if (entry === null) continue;
      entry ??= records.entryIn(ord)!;
      const result = visit(id, entry);
      if (!(result instanceof Promise ? await result : result)) return;
      if (slicer.counted() && slicer.due()) await slicer.pause();
    }
  }

  /**
   * Visits the live records among `ids` as at the open, in insertion order
   * (the order `each` gives), in slices. For a query answered by an index.
   */
  async eachOf(
    ids: Iterable<string>,
    visit: (record: Fields) => boolean | void,
    slicer = new Slicer(SCAN_CHECK_EVERY),
  ): Promise<void> {
    const entries: RecordEntry[] = [];
    for (const id of ids) {
      const entry = this.log.entryAt(this.coll.records, id);
      if (entry !== undefined && !isExpired(entry, this.now)) entries.push(entry);
      if (slicer.counted()) await slicer.pause();
    }
    const ordered = await sortInSlices(entries, byOrd, slicer);
    for (const entry of ordered) {
      if (visit(entry.fields) === false) return;
      if (slicer.counted()) await slicer.pause();
    }
  }
}

const byOrd = (a: RecordEntry, b: RecordEntry): number => (a.ord ?? 0) - (b.ord ?? 0);

/** A list of records walked in slices (rows a query already holds). */
export class ListSource implements RecordSource {
  constructor(private readonly records: readonly Fields[]) {}

  async each(visit: (record: Fields) => boolean | void, slicer: Slicer): Promise<void> {
    for (const record of this.records) {
      if (visit(record) === false) return;
      if (slicer.counted()) await slicer.pause();
    }
  }
}

/** Opens a scan of `coll` for `read`, closing it however `read` ends. */
export async function withScan<T>(
  coll: CollectionState,
  now: number,
  read: (scan: CollectionScan) => Promise<T>,
): Promise<T> {
  const scan = new CollectionScan(coll, now);
  try {
    return await read(scan);
  } finally {
    scan.close();
  }
}
