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

/** The numbers of `items` (all numbers) in a fresh array held as doubles, however `items` is held. */
export function storedNumbers(items: readonly number[]): readonly number[] {
  const copy = Float64Array.from(items);
  const out = new Array<number>(copy.length);
  for (let i = 0; i < copy.length; i++) out[i] = copy[i]!;
  return out;
}
