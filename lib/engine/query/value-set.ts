/**
 * The operand of `In` / `NotIn` as a hash set, so that testing one record
 * costs O(1) per value tested instead of a scan of the whole list.
 *
 * Membership means exactly what `equalValues` means: scalars are found by
 * `equalityKey`; lists and objects (compared structurally) are kept apart
 * and scanned, and they only ever equal other lists and objects. The one
 * equality across kinds, a DateTime and an RFC 3339 string at the same
 * instant, is covered by a second key: members that are date strings are
 * also stored under `x<instant>`, which only DateTime probes look up, and
 * string probes that are date strings look up `D<instant>`.
 */
import { dateTimeOrderKey, equalityKey, equalValues, normalizeDateTime, Tagged, type Value } from '../values/index.js';

/** The order key of a string that is an RFC 3339 instant, else undefined. */
function instantOf(text: string): number | undefined {
  const normalized = normalizeDateTime(text);
  return normalized === undefined ? undefined : dateTimeOrderKey(normalized);
}

export class ValueSet {
  private readonly keys = new Set<string>();
  /** Lists and objects (and NaN), compared with equalValues. */
  private readonly structured: Value[] = [];
  private hasDates = false;
  private hasDateStrings = false;

  constructor(values: readonly Value[]) {
    for (const value of values) {
      const key = equalityKey(value);
      if (key === undefined) {
        this.structured.push(value);
        continue;
      }
      this.keys.add(key);
      if (value instanceof Tagged && value.type === 'DateTime') this.hasDates = true;
      else if (typeof value === 'string') {
        const instant = instantOf(value);
        if (instant !== undefined) {
          this.keys.add('x' + instant);
          this.hasDateStrings = true;
        }
      }
    }
  }

  /** True when some member `equalValues` `actual` (a missing field is null). */
  has(actual: Value | undefined): boolean {
    const key = equalityKey(actual);
    if (key === undefined) return this.structured.some((m) => equalValues(actual, m));
    if (this.keys.has(key)) return true;
    if (actual instanceof Tagged && actual.type === 'DateTime')
      return this.hasDateStrings && this.keys.has('x' + key.slice(1));
    if (this.hasDates && typeof actual === 'string') {
      const instant = instantOf(actual);
      return instant !== undefined && this.keys.has('D' + instant);
    }
    return false;
  }
}
