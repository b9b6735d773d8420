/**
 * Sort keys of a query: parsing `sort` (protocol.md 2.4) and ordering records.
 *
 * Ordering uses `sortCompare`, a total order across value kinds, so mixed
 * fields never throw. Missing values sort like null: first when ascending,
 * last when descending. Sorts are stable and never reorder the input array.
 * A query's sort runs in slices of the event loop (SortedRows,
 * sortInSlices); sortRecords is for rows a caller already holds.
 */
import { InvalidInput } from '../../errors.js';
import { checkLimit, MAX_SORT_KEYS } from '../input/limits.js';
import { isPlainObject, sortCompare, type Fields, type Value } from '../values/index.js';
import { kindOf, shown } from './describe-input.js';
import { parseFieldPath } from './field-path.js';
import { getPath } from './match.js';
import type { Slicer } from '../time/slices.js';
import { BoundedHeap } from '../../vector/index.js';

export interface SortKey {
  /** A validated dotted path. */
  readonly field: string;
  readonly ascending: boolean;
}

const KEYS = ['field', 'ascending', 'order'];

function parseDirection(entry: Record<string, unknown>, where: string): boolean {
  const { ascending, order } = entry;
  if (ascending !== undefined && ascending !== null && typeof ascending !== 'boolean') {
    throw new InvalidInput(`Invalid 'ascending' at ${where}: expected true or false, got ${kindOf(ascending)}`);
  }
  let fromOrder: boolean | undefined;
  if (order !== undefined && order !== null) {
    const direction = typeof order === 'string' ? order.toLowerCase() : order;
    if (direction !== 'asc' && direction !== 'desc') {
      throw new InvalidInput(`Invalid 'order' ${shown(order)} at ${where}; expected 'asc' or 'desc'`);
    }
    fromOrder = direction === 'asc';
  }
  if (typeof ascending === 'boolean' && fromOrder !== undefined && ascending !== fromOrder) {
    throw new InvalidInput(`Conflicting 'ascending' and 'order' at ${where}`);
  }
  return typeof ascending === 'boolean' ? ascending : (fromOrder ?? true);
}

/**
 * Parses `sort`: an array of `{field, ascending?}` or `{field, order:
 * "asc"|"desc"}` entries, in priority order. Null or absent means no sort
 * (an empty list). `ascending` defaults to true. Throws InvalidInput for any
 * other shape, more than MAX_SORT_KEYS entries, unknown keys, or a bad field
 * name.
 */
export function parseSort(raw: unknown, path = 'sort'): SortKey[] {
  if (raw === null || raw === undefined) return [];
  if (!Array.isArray(raw)) {
    throw new InvalidInput(`Invalid ${path}: expected an array of {field, ascending}, got ${kindOf(raw)}`);
  }
  checkLimit(raw.length, MAX_SORT_KEYS, path, 'sort keys');
  return raw.map((entry, index) => {
    const where = `${path}[${index}]`;
    if (!isPlainObject(entry)) {
      throw new InvalidInput(`Invalid ${where}: expected {field, ascending}, got ${kindOf(entry)}`);
    }
    for (const key of Object.keys(entry)) {
      if (!KEYS.includes(key))
        throw new InvalidInput(`Unknown key ${shown(key)} at ${where}; expected ${KEYS.join(', ')}`);
    }
    return Object.freeze({ field: parseFieldPath(entry.field, where), ascending: parseDirection(entry, where) });
  });
}

interface SortRow {
  readonly record: Fields;
  /** Arrival order: ties on every key keep it (a stable sort). */
  readonly index: number;
  readonly values: ReadonlyArray<Value | undefined>;
}

function compareRows(keys: readonly SortKey[]): (left: SortRow, right: SortRow) => number {
  return (left, right) => {
    for (let i = 0; i < keys.length; i++) {
      const order = sortCompare(left.values[i], right.values[i]);
      if (order !== 0) return keys[i]!.ascending ? order : -order;
    }
    return left.index - right.index;
  };
}

function sortRow(record: Fields, index: number, keys: readonly SortKey[]): SortRow {
  return { record, index, values: keys.map((k): Value | undefined => getPath(record, k.field)) };
}

/**
 * Returns a new array of `records` ordered by `keys` (first key has priority).
 * Stable: records that compare equal on every key keep their input order.
 * With no keys it returns a copy in input order. In one piece: for rows a
 * caller already holds; a query over a collection uses SortedRows.
 */
export function sortRecords(records: readonly Fields[], keys: readonly SortKey[]): Fields[] {
  if (keys.length === 0) return records.slice();
  return records
    .map((r, i) => sortRow(r, i, keys))
    .sort(compareRows(keys))
    .map((r) => r.record);
}

/** Above this many kept rows, collecting everything and sorting once beats a heap. */
const MAX_HEAP_ROWS = 65_536;

/**
 * Records offered one at a time, handed back sorted by `keys`. With `keep`
 * (a query's skip + limit) only the best `keep` are held, in a bounded heap
 * whose root is the worst of them: O(n log k), and a sorted limit-10 query
 * over a million records holds ten rows, not a million. The final sort runs
 * in slices (sortInSlices).
 */
export class SortedRows {
  private readonly rows: SortRow[] = [];
  private readonly compare: (left: SortRow, right: SortRow) => number;
  /** With a bound: the best rows so far, the worst at the root. */
  private readonly heap: BoundedHeap<SortRow> | undefined;
  private offered = 0;

  constructor(
    private readonly keys: readonly SortKey[],
    keep?: number,
  ) {
    this.compare = compareRows(keys);
    if (keep !== undefined && keep <= MAX_HEAP_ROWS) this.heap = new BoundedHeap(keep, this.compare);
  }

  add(record: Fields): void {
    const index = this.offered++;
    const heap = this.heap;
    if (heap === undefined) this.rows.push(sortRow(record, index, this.keys));
    else if (!heap.full) heap.push(sortRow(record, index, this.keys));
    else if (heap.size > 0 && this.beatsWorst(record, heap.worst()))
      heap.replaceWorst(sortRow(record, index, this.keys));
  }

  async sorted(slicer: Slicer): Promise<Fields[]> {
    const ordered = await sortInSlices(this.heap ? this.heap.items() : this.rows, this.compare, slicer);
    return ordered.map((r) => r.record);
  }

  /**
   * Whether `record`, offered after every kept row, sorts before `worst`,
   * read without building its row: most records of a long scan do not, and
   * allocate nothing. A tie on every key keeps the earlier row, as a stable
   * sort does.
   */
  private beatsWorst(record: Fields, worst: SortRow): boolean {
    for (let i = 0; i < this.keys.length; i++) {
      const key = this.keys[i]!;
      const order = sortCompare(getPath(record, key.field), worst.values[i]);
      if (order !== 0) return key.ascending ? order < 0 : order > 0;
    }
    return false;
  }
}

/** Runs of this many items are sorted whole, then merged in slices. */
const RUN = 2048;

/**
 * A stable sort of `items` (a new array) that yields the event loop between
 * slices: runs sorted by Array.prototype.sort, then merged pairwise,
 * bottom up, so that a long sort never holds the event loop in one call.
 */
export async function sortInSlices<T>(
  items: readonly T[],
  compare: (left: T, right: T) => number,
  slicer: Slicer,
): Promise<T[]> {
  const length = items.length;
  let from: T[] = new Array<T>(length);
  for (let i = 0; i < length; i += RUN) {
    const run = items.slice(i, i + RUN).sort(compare);
    for (let j = 0; j < run.length; j++) from[i + j] = run[j]!;
    await slicer.pause();
  }
  let to: T[] = new Array<T>(length);
  for (let width = RUN; width < length; width *= 2) {
    for (let lo = 0; lo < length; lo += 2 * width) {
      const mid = Math.min(lo + width, length);
      const hi = Math.min(lo + 2 * width, length);
      let left = lo,
        right = mid,
        out = lo;
      while (left < mid && right < hi) {
        to[out++] = compare(from[right]!, from[left]!) < 0 ? from[right++]! : from[left++]!;
        if ((out & 1023) === 0) await slicer.pause();
      }
      while (left < mid) to[out++] = from[left++]!;
      while (right < hi) to[out++] = from[right++]!;
    }
    [from, to] = [to, from];
  }
  return from;
}
