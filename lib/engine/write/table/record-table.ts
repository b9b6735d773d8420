/**
 * A collection's records, kept in columns by insertion ordinal.
 *
 * Each record stands in a slot numbered by its ord (CollectionState.lastOrd
 * hands them out; an update keeps its record's slot): its frozen fields in
 * one array, the seq of the batch that wrote it in another, and its TTL, in
 * the rare record that has one, in a side map. A SlotIndex (slot-index.ts)
 * finds the slot of an id. So a record costs about 30 bytes beside its
 * fields, where a Map of entry objects (`{fields, version, ord}`) cost 77-87;
 * fewer objects also mean less for the collector to trace, in recovery
 * above all. `get` answers the same RecordEntry as ever, made for the
 * caller; walks in order follow the slots.
 *
 * A slot is never used by another record while it stands for one: a deleted
 * record leaves its slot empty, and a checkpoint restore sets it back in its
 * own slot, so the walk order is always the insertion order. Once empty
 * slots outnumber the records, `compact` renumbers the records densely (a
 * new ord each, the order kept); CollectionState calls it only when no
 * reader, no checkpoint's journal and no walk of this table is under way,
 * all of which hold ords.
 */
import assert from 'node:assert';
import type { Fields } from '../../values/index.js';
import { idHash, SlotIndex } from './slot-index.js';

/** A record as readers see it: its fields, the version that wrote them, its expiry and its place. */
export interface RecordEntry {
  readonly fields: Fields;
  /** Seq of the batch that wrote this version. */
  readonly version: number;
  /** Absolute expiry in epoch ms, when the record has a TTL. */
  readonly expiresAt?: number;
  /** Sliding TTL length in ms (ttl_update_on_access). */
  readonly slidingMs?: number;
  /** Insertion ordinal within the collection (kept by updates): the order of unsorted results. */
  readonly ord?: number;
}

/** Empty slots, beyond this many and beyond the records, make a compaction due. */
const COMPACT_AFTER_EMPTY = 4096;

/** A record's TTL. */
interface Expiry {
  readonly expiresAt: number | undefined;
  readonly slidingMs: number | undefined;
}

export class RecordTable implements ReadonlyMap<string, RecordEntry> {
  /** The slot (ord) of each id. */
  private readonly slots = new SlotIndex((slot) => this.idIn(slot)!);
  /** By ord: the record's fields; undefined for an empty slot. Ords start at 1, so slot 0 stays empty. */
  private fieldsBySlot: Array<Fields | undefined> = [undefined];
  /** By ord: the seq of the batch that wrote the record (0 for an empty slot); as long as the slots or longer. */
  private versions = new Float64Array(16);
  /** By ord, for the records whose id is not their own `fields.id` (rare). */
  private otherIds: Map<number, string> | undefined;
  /** By ord, for the records with a TTL. */
  private expiries: Map<number, Expiry> | undefined;
  /** Walks of this table under way (iterators not finished): a compaction waits for them. */
  private walks = 0;

  get size(): number {
    return this.slots.size;
  }

  /** The highest slot a record has stood in since the last compaction (walks in order end there). */
  get lastSlot(): number {
    return this.fieldsBySlot.length - 1;
  }

  get(id: string): RecordEntry | undefined {
    const slot = this.slots.get(id);
    return slot === undefined ? undefined : this.entryIn(slot);
  }

  has(id: string): boolean {
    return this.slots.get(id) !== undefined;
  }

  /** The fields of record `id`, without making its entry. */
  fieldsOf(id: string): Fields | undefined {
    const slot = this.slots.get(id);
    return slot === undefined ? undefined : this.fieldsBySlot[slot];
  }

  /** The fields of the record in slot `slot`, or undefined when it is empty. */
  fieldsIn(slot: number): Fields | undefined {
    return this.fieldsBySlot[slot];
  }

  /** The id of the record in slot `slot`, or undefined when it is empty. */
  idIn(slot: number): string | undefined {
    const fields = this.fieldsBySlot[slot];
    if (fields === undefined) return undefined;
    return this.otherIds?.get(slot) ?? (fields.id as string);
  }

  /** The entry of the record in slot `slot`, or undefined when it is empty. */
  entryIn(slot: number): RecordEntry | undefined {
    const fields = this.fieldsBySlot[slot];
    if (fields === undefined) return undefined;
    const expiry = this.expiries?.get(slot);
    if (expiry === undefined) return { fields, version: this.versions[slot]!, ord: slot };
    const entry: { fields: Fields; version: number; ord: number; expiresAt?: number; slidingMs?: number } = {
      fields,
      version: this.versions[slot]!,
      ord: slot,
    };
    if (expiry.expiresAt !== undefined) entry.expiresAt = expiry.expiresAt;
    if (expiry.slidingMs !== undefined) entry.slidingMs = expiry.slidingMs;
    return entry;
  }

  /** The slot record `id` stands in. */
  slotOf(id: string): number | undefined {
    return this.slots.get(id);
  }

  /** Whether the record in slot `slot` has a TTL. */
  hasExpiryIn(slot: number): boolean {
    return this.expiries?.has(slot) ?? false;
  }

  /** The expiry of the record in slot `slot`, when it has a TTL. */
  expiresAtIn(slot: number): number | undefined {
    return this.expiries?.get(slot)?.expiresAt;
  }

  /** Makes room for `count` records in all, so that putting them grows nothing (loading a snapshot). */
  reserve(count: number): void {
    if (this.versions.length <= count) {
      const versions = new Float64Array(count + 1);
      versions.set(this.versions);
      this.versions = versions;
    }
    this.slots.reserve(count);
  }

  /** Stores `entry` as record `id`, in slot `entry.ord` (see `put`). */
  set(id: string, entry: RecordEntry): this {
    if (entry.ord === undefined) assert.fail(`record ${id} has no insertion ordinal`);
    this.put(id, entry.fields, entry.version, entry.ord, entry.expiresAt, entry.slidingMs);
    return this;
  }

  /**
   * Stores record `id` in slot `slot`. REQUIRES: a slot of at least 1 that no
   * other record stands in (a new record's is the collection's next ord; an
   * update keeps its record's).
   */
  put(
    id: string,
    fields: Fields,
    version: number,
    slot: number,
    expiresAt: number | undefined,
    slidingMs: number | undefined,
  ): void {
    // Messages are made only on failure (this runs for every record of a batch).
    if (!(slot >= 1)) assert.fail(`record ${id} has no insertion ordinal`);
    // Hashed once for both the lookup and the filing of a new id.
    const h = idHash(id);
    const was = this.slots.get(id, h);
    if (was !== slot) {
      if (was !== undefined) this.delete(id);
      if (this.fieldsBySlot[slot] !== undefined) assert.fail(`slot ${slot} holds another record than ${id}`);
    }
    while (this.fieldsBySlot.length <= slot) this.fieldsBySlot.push(undefined);
    if (this.versions.length <= slot) this.versions = grown(this.versions, slot + 1);
    this.fieldsBySlot[slot] = fields;
    this.versions[slot] = version;
    if (fields.id !== id) (this.otherIds ??= new Map()).set(slot, id);
    else if (this.otherIds !== undefined) this.otherIds.delete(slot);
    if (expiresAt !== undefined || slidingMs !== undefined)
      (this.expiries ??= new Map()).set(slot, { expiresAt, slidingMs });
    else if (this.expiries !== undefined) this.expiries.delete(slot);
    // Filed once its id can be read at the slot.
    if (was !== slot) this.slots.add(id, slot, h);
  }

  delete(id: string): boolean {
    const slot = this.slots.delete(id);
    if (slot === undefined) return false;
    this.emptySlot(slot);
    return true;
  }

  clear(): void {
    this.slots.clear();
    this.fieldsBySlot = [undefined];
    this.versions = new Float64Array(16);
    this.otherIds = this.expiries = undefined;
  }

  private emptySlot(slot: number): void {
    this.fieldsBySlot[slot] = undefined;
    this.versions[slot] = 0;
    this.otherIds?.delete(slot);
    this.expiries?.delete(slot);
  }

  /** True when empty slots outnumber the records (and COMPACT_AFTER_EMPTY) and no walk is under way. */
  get compactionDue(): boolean {
    const empty = this.fieldsBySlot.length - 1 - this.slots.size;
    return this.walks === 0 && empty > COMPACT_AFTER_EMPTY && empty > this.slots.size;
  }

  /**
   * Moves every record to a new slot, 1 to `size`, in the order they stood;
   * returns the last slot used. REQUIRES: nothing holds an ord of this table
   * (no reader, journal or walk).
   */
  compact(): number {
    assert(this.walks === 0, 'a walk of the table is under way');
    const count = this.slots.size;
    const fields: Array<Fields | undefined> = [undefined];
    const versions = new Float64Array(Math.max(16, count + 1));
    const from = new Int32Array(count + 1);
    const otherIds = this.otherIds && new Map<number, string>();
    const expiries = this.expiries && new Map<number, Expiry>();
    for (let slot = 1; slot < this.fieldsBySlot.length; slot++) {
      const record = this.fieldsBySlot[slot];
      if (record === undefined) continue;
      const to = fields.length;
      from[to] = slot;
      fields.push(record);
      versions[to] = this.versions[slot]!;
      const id = this.otherIds?.get(slot);
      if (id !== undefined) otherIds!.set(to, id);
      const expiry = this.expiries?.get(slot);
      if (expiry !== undefined) expiries!.set(to, expiry);
    }
    this.fieldsBySlot = fields;
    this.versions = versions;
    this.otherIds = otherIds?.size ? otherIds : undefined;
    this.expiries = expiries?.size ? expiries : undefined;
    this.slots.moved(from, count);
    return count;
  }

  /** Every record, in slot order; a record written meanwhile is seen as the walk reaches it (as a Map's walk). */
  *entries(): MapIterator<[string, RecordEntry]> {
    this.walks++;
    try {
      for (let slot = 1; slot < this.fieldsBySlot.length; slot++) {
        const entry = this.entryIn(slot);
        if (entry !== undefined) yield [this.idIn(slot)!, entry];
      }
    } finally {
      this.walks--;
    }
  }

  [Symbol.iterator](): MapIterator<[string, RecordEntry]> {
    return this.entries();
  }

  *keys(): MapIterator<string> {
    this.walks++;
    try {
      for (let slot = 1; slot < this.fieldsBySlot.length; slot++) {
        const id = this.idIn(slot);
        if (id !== undefined) yield id;
      }
    } finally {
      this.walks--;
    }
  }

  *values(): MapIterator<RecordEntry> {
    for (const [, entry] of this.entries()) yield entry;
  }

  forEach(visit: (entry: RecordEntry, id: string, table: ReadonlyMap<string, RecordEntry>) => void): void {
    for (const [id, entry] of this.entries()) visit(entry, id, this);
  }
}

/** A copy of `array` at least `length` long, half as long again each time (as V8 grows an array). */
function grown(array: Float64Array, length: number): Float64Array<ArrayBuffer> {
  let capacity = array.length;
  while (capacity < length) capacity = Math.ceil(capacity * 1.5) + 16;
  const out = new Float64Array(capacity);
  out.set(array);
  return out;
}
