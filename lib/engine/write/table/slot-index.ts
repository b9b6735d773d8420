/**
 * The slot of each record id in a RecordTable: an open-addressing hash
 * table of slot numbers and id hashes in an Int32Array, probed linearly,
 * kept at most three quarters full. It holds no ids: a probe compares the
 * id's hash with the one beside the slot and then the id with the record's
 * own (`idOf`). So an id costs 11-21 bytes outside the collector's heap,
 * where a Map from id to slot cost 29-39 (three words an entry plus
 * buckets, half its table empty after each doubling) in one large array the
 * collector scans.
 *
 * The hash is FNV-1a over the id's UTF-16 code units from a per-process
 * random start, mixed (murmur3's finalizer) so that the low bits the table
 * uses depend on every character; the random start keeps ids that collide
 * from being chosen in advance. A delete shifts the rest of its probe run
 * back, so no tombstones build up.
 */
import { randomBytes } from 'node:crypto';

/** An empty position in the table (slots start at 1). */
const EMPTY = 0;
const SEED = randomBytes(4).readInt32LE(0);
const MIN_CAPACITY = 16;

/** The hash of `id` for this process. */
export function idHash(id: string): number {
  let h = 0x811c9dc5 ^ SEED;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

export class SlotIndex {
  /**
   * Positions of two numbers each: a slot (EMPTY where none) and the hash of
   * its id, side by side so that a probe reads one cache line. Its number of
   * positions is a power of two.
   */
  private table = new Int32Array(2 * MIN_CAPACITY);
  private mask = MIN_CAPACITY - 1;
  private count = 0;

  /** `idOf(slot)`: the id of the record in `slot` (one the index holds). */
  constructor(private readonly idOf: (slot: number) => string) {}

  get size(): number {
    return this.count;
  }

  /** The slot of `id`, or undefined; `h` is idHash(id), when the caller has it already. */
  get(id: string, h = idHash(id)): number | undefined {
    const at = this.find(id, h);
    return at < 0 ? undefined : this.table[2 * at]!;
  }

  /** Files `id` (not held) under `slot` (not used by another id); `h` is idHash(id), when the caller has it already. */
  add(id: string, slot: number, h = idHash(id)): void {
    if ((this.count + 1) * 4 > (this.mask + 1) * 3) this.resize((this.mask + 1) * 2);
    this.place(slot, h);
    this.count++;
  }

  /** Makes room for `count` ids in all without growing again. */
  reserve(count: number): void {
    const capacity = capacityFor(count);
    if (capacity > this.mask + 1) this.resize(capacity);
  }

  /** Forgets `id`; its slot, or undefined when it was not held. */
  delete(id: string): number | undefined {
    let at = this.find(id, idHash(id));
    if (at < 0) return undefined;
    const table = this.table,
      mask = this.mask;
    const slot = table[2 * at]!;
    table[2 * at] = EMPTY;
    this.count--;
    // Backward shift: move each later entry of the run whose home is not between the hole and it into the hole.
    for (let next = (at + 1) & mask; table[2 * next] !== EMPTY; next = (next + 1) & mask) {
      const home = table[2 * next + 1]! & mask;
      const between = at <= next ? at < home && home <= next : at < home || home <= next;
      if (between) continue;
      table[2 * at] = table[2 * next]!;
      table[2 * at + 1] = table[2 * next + 1]!;
      table[2 * next] = EMPTY;
      at = next;
    }
    return slot;
  }

  /** Forgets every id. */
  clear(): void {
    this.table = new Int32Array(2 * MIN_CAPACITY);
    this.mask = MIN_CAPACITY - 1;
    this.count = 0;
  }

  /**
   * Files the ids again after a compaction moved their records: the record
   * now in slot `to` was in slot `from[to]`, for `to` from 1 to `count`.
   */
  moved(from: Int32Array, count: number): void {
    let last = 0;
    for (let to = 1; to <= count; to++) last = Math.max(last, from[to]!);
    const newSlot = new Int32Array(last + 1);
    for (let to = 1; to <= count; to++) newSlot[from[to]!] = to;
    const old = this.table;
    this.table = new Int32Array(2 * capacityFor(count));
    this.mask = this.table.length / 2 - 1;
    for (let at = 0; at < old.length; at += 2) {
      const slot = old[at]!;
      if (slot !== EMPTY) this.place(newSlot[slot]!, old[at + 1]!);
    }
    this.count = count;
  }

  /** The position holding `id` (of hash `h`), or -1. */
  private find(id: string, h: number): number {
    const table = this.table,
      mask = this.mask;
    for (let at = h & mask; ; at = (at + 1) & mask) {
      const slot = table[2 * at]!;
      if (slot === EMPTY) return -1;
      if (table[2 * at + 1] === h && this.idOf(slot) === id) return at;
    }
  }

  private place(slot: number, h: number): void {
    const table = this.table,
      mask = this.mask;
    let at = h & mask;
    while (table[2 * at] !== EMPTY) at = (at + 1) & mask;
    table[2 * at] = slot;
    table[2 * at + 1] = h;
  }

  private resize(capacity: number): void {
    const old = this.table;
    this.table = new Int32Array(2 * capacity);
    this.mask = capacity - 1;
    for (let at = 0; at < old.length; at += 2) if (old[at] !== EMPTY) this.place(old[at]!, old[at + 1]!);
  }
}

/** The power of two (at least MIN_CAPACITY) that holds `count` ids at most three quarters full. */
function capacityFor(count: number): number {
  let capacity = MIN_CAPACITY;
  while (capacity * 3 < count * 4) capacity *= 2;
  return capacity;
}
