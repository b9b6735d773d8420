/**
 * A read of one collection as it was when the read began, walked in slices
 * so that a scan of a million records never holds the event loop: between
 * slices the server answers other requests, and writes commit.
 *
 * Point in time without a copy: the scan opens an undo log on the
 * collection (CollectionState.openReader), which keeps the pre-image of
 * every record written meanwhile. The walk follows the live map, which
 * iterates in insertion order (ords grow with insertion), and so:
 * - a record updated meanwhile is read at its pre-image;
 * - a record inserted meanwhile has an ord above the open's and is skipped
 *   (the walk stops at the first one: all later ones are newer);
 * - a record deleted meanwhile (perhaps inserted again as a new record) has
 *   left the map before the walk reached it; its pre-image is merged back
 *   at its place, by ord, from the log's list of ids gone;
 * - a record a checkpoint restore set back at the end of the map (displaced,
 *   see CollectionState.displace) is merged back at its place by ord too.
 * Expiry is judged at the open's clock reading, once for the whole read.
 */
import type { CollectionState, RecordEntry, UndoLog } from '../write/state.js';
import { Slicer } from '../time/slices.js';
import { isExpired } from '../time/ttl.js';
import type { Fields } from '../values/index.js';
import { sortInSlices } from './sort.js';

/** Records looked at between looks at the clock. */
export const SCAN_CHECK_EVERY = 256;

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

  /** Visits each live record as it was at the open, in insertion order, in slices; stops when `visit` returns false. */
  each(visit: (record: Fields) => boolean | void, slicer = new Slicer(SCAN_CHECK_EVERY)): Promise<void> {
    if (this.coll.displacedByOrd() === undefined) return this.eachLive(visit, slicer);
    const now = this.now;
    return this.eachEntry((_id, e) => isExpired(e, now) || visit(e.fields) !== false, slicer);
  }

  /**
   * `each` when no record is displaced, the common case: walks the map's values, which allocates nothing per
   * record (an [id, entry] pair per record was a third of a scan's time, and most of its garbage). An id is
   * looked up only for a record that has a pre-image, that is, one written since the open.
   */
  private async eachLive(visit: (record: Fields) => boolean | void, slicer: Slicer): Promise<void> {
    const log = this.log;
    const before = log.before;
    const now = this.now;
    const pending: Gone[] = [];
    let next = 0;
    let goneSeen = 0;
    let position = 0;
    const visitEntry = (entry: RecordEntry): boolean => isExpired(entry, now) || visit(entry.fields) !== false;
    for (const live of this.coll.records.values()) {
      const ord = live.ord ?? 0;
      if (ord > log.openOrd) break;
      for (; next < pending.length && pending[next]!.ord < ord; next++) if (!visitEntry(pending[next]!.entry)) return;
      position = ord;
      if (!visitEntry(before.size === 0 ? live : (before.get(this.idOf(live)) ?? live))) return;
      if (slicer.counted() && slicer.due()) {
        await slicer.pause();
        goneSeen = this.collectGone(goneSeen, position, pending, next, undefined);
      }
    }
    this.collectGone(goneSeen, position, pending, next, undefined);
    for (; next < pending.length; next++) if (!visitEntry(pending[next]!.entry)) return;
  }

  /** Entries by identity to their ids, for a record whose `fields.id` is not its key; rebuilt when it misses. */
  private idsByEntry: Map<RecordEntry, string> | undefined;

  /** The key of a live entry of the map: its `fields.id` as a rule. */
  private idOf(live: RecordEntry): string {
    const own = live.fields.id;
    if (typeof own === 'string' && this.coll.records.get(own) === live) return own;
    let id = this.idsByEntry?.get(live);
    if (id === undefined) {
      this.idsByEntry = new Map();
      for (const [key, entry] of this.coll.records) this.idsByEntry.set(entry, key);
      id = this.idsByEntry.get(live)!;
    }
    return id;
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
    /**
     * Pre-images of records gone since the open that the walk has not reached yet, by ord; `next` is the first
     * unvisited.
     */
    const pending: Gone[] = [];
    let next = 0;
    let goneSeen = 0;
    let position = 0;
    /** Records a checkpoint restore set back at the end of the map (state.ts `displace`), merged in by ord. */
    const displaced = this.coll.displacedByOrd() ?? [];
    const displacedIds = displaced.length > 0 ? new Set(displaced.map((d) => d.id)) : undefined;
    let nextDisplaced = 0;
    const noteGone = (): void => {
      goneSeen = this.collectGone(goneSeen, position, pending, next, displacedIds);
    };
    /** A visit's answer when it waits: awaited, then what went meanwhile is noted. */
    const settle = async (result: Promise<boolean>): Promise<boolean> => {
      const kept = await result;
      noteGone();
      return kept;
    };
    /** The next gone or displaced record standing before `ord`, taken off its list; undefined when none. */
    const takeBefore = (ord: number): { id: string; entry: RecordEntry } | undefined => {
      for (;;) {
        const gone = next < pending.length && pending[next]!.ord < ord ? pending[next]! : undefined;
        const moved =
          nextDisplaced < displaced.length && displaced[nextDisplaced]!.ord < ord
            ? displaced[nextDisplaced]!
            : undefined;
        if (!gone && !moved) return undefined;
        if (gone && (!moved || gone.ord < moved.ord)) {
          next++;
          return gone;
        }
        nextDisplaced++;
        position = moved!.ord;
        const entry = log.entryAt(this.coll.records, moved!.id);
        if (entry) return { id: moved!.id, entry };
      }
    };
    for (const [id, live] of this.coll.records) {
      if (displacedIds?.has(id)) continue;
      const ord = live.ord ?? 0;
      if (ord > log.openOrd) break;
      // Most walks meet no gone or displaced record: only then is the merge looked at.
      if (next < pending.length || nextDisplaced < displaced.length) {
        for (let earlier = takeBefore(ord); earlier; earlier = takeBefore(ord)) {
          const kept = visit(earlier.id, earlier.entry);
          if (!(kept instanceof Promise ? await settle(kept) : kept)) return;
        }
      }
      position = ord;
      const result = visit(id, before.size === 0 ? live : (before.get(id) ?? live));
      if (!(result instanceof Promise ? await settle(result) : result)) return;
      if (slicer.counted() && slicer.due()) {
        await slicer.pause();
        noteGone();
      }
    }
    noteGone();
    for (let rest = takeBefore(Infinity); rest; rest = takeBefore(Infinity)) {
      const result = visit(rest.id, rest.entry);
      if (!(result instanceof Promise ? await settle(result) : result)) return;
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

  /**
   * Adds to `pending` (kept in ord order from `from` on) the pre-images of
   * records gone since the last look that lie beyond `position`, the ord
   * the walk has reached; returns how many gone ids have been looked at.
   */
  private collectGone(
    seen: number,
    position: number,
    pending: Gone[],
    from: number,
    displaced: ReadonlySet<string> | undefined,
  ): number {
    const gone = this.log.gone;
    for (let i = seen; i < gone.length; i++) {
      const id = gone[i]!;
      // A displaced record is merged in by the walk's own list, gone or not.
      if (displaced?.has(id)) continue;
      const entry = this.log.before.get(id);
      const ord = entry?.ord ?? 0;
      if (!entry || ord <= position) continue;
      let at = pending.length;
      while (at > from && pending[at - 1]!.ord > ord) at--;
      pending.splice(at, 0, { id, entry, ord });
    }
    return gone.length;
  }
}

const byOrd = (a: RecordEntry, b: RecordEntry): number => (a.ord ?? 0) - (b.ord ?? 0);

/** A record gone since the open, not reached yet: its id, its pre-image and where it stood. */
interface Gone {
  readonly id: string;
  readonly entry: RecordEntry;
  readonly ord: number;
}

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
