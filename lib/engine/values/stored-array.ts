/**
 * Stored arrays are read-only: frozen, except arrays of numbers, which are
 * kept as arrays of doubles. V8 holds an array of numbers as raw doubles
 * until something makes it hold them tagged: freezing it, or an optimized
 * loop that has read arrays of other kinds at the same place (V8 then
 * generalizes the arrays it reads there). Tagged, every element is a heap
 * object: three times the memory (a 384-dimension vector 9 KB instead of
 * 3 KB) and hundreds of objects per record for the collector to trace and
 * copy. So an array of numbers is stored as a fresh copy made through a
 * Float64Array (a copy no JavaScript loop has read), left unfrozen and
 * read-only by its type (`readonly number[]`), as the arrays decoded from
 * the log and snapshots are; encoders hand msgpackr a copy (codec.ts).
 */
export function storedArray<T>(items: T[]): readonly T[] {
  return isNumberList(items) ? (storedNumbers(items) as T[]) : Object.freeze(items);
}

/** True when `items` holds numbers only, and at least one. */
export function isNumberList(items: readonly unknown[]): items is number[] {
  if (items.length === 0) return false;
  for (let i = 0; i < items.length; i++) if (typeof items[i] !== 'number') return false;
  return true;
}

/** Lists up to this long are copied through one reused Float64Array (512 KiB at most); longer ones through their own. */
const SCRATCH_MAX = 65_536;
let scratch = new Float64Array(1024);

/**
 * The numbers of `items` (all numbers) in a fresh array held as doubles, however `items` is held.
 * The Float64Array they pass through is reused: one of its own per list was an allocation outside
 * the heap per vector, a third of the copy's time.
 */
export function storedNumbers(items: readonly number[]): readonly number[] {
  const n = items.length;
  if (n > scratch.length) {
    if (n > SCRATCH_MAX) return copied(Float64Array.from(items), n);
    scratch = new Float64Array(Math.min(SCRATCH_MAX, Math.max(n, 2 * scratch.length)));
  }
  scratch.set(items);
  return copied(scratch, n);
}

function copied(numbers: Float64Array, n: number): number[] {
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = numbers[i]!;
  return out;
}
