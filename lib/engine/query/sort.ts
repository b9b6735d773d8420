/**
 * Sort keys of a query: parsing `sort` (protocol.md 2.4) and ordering records.
 *
 * Ordering uses `sortCompare`, a total order across value kinds, so mixed
 * fields never throw. Missing values sort like null: first when ascending,
 * last when descending. The sort is stable; it never reorders the input array.
 */
import { InvalidInput } from '../../errors.js';
import { checkLimit, MAX_SORT_KEYS } from '../limits.js';
import { isPlainObject, sortCompare, type Fields, type Value } from '../values/index.js';
import { kindOf, shown } from './describe-input.js';
import { parseFieldPath } from './field-path.js';
import { getPath } from './match.js';

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
    const o = typeof order === 'string' ? order.toLowerCase() : order;
    if (o !== 'asc' && o !== 'desc') {
      throw new InvalidInput(`Invalid 'order' ${shown(order)} at ${where}; expected 'asc' or 'desc'`);
    }
    fromOrder = o === 'asc';
  }
  if (typeof ascending === 'boolean' && fromOrder !== undefined && ascending !== fromOrder) {
    throw new InvalidInput(`Conflicting 'ascending' and 'order' at ${where}`);
  }
  return typeof ascending === 'boolean' ? ascending : fromOrder ?? true;
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
  return raw.map((entry, i) => {
    const where = `${path}[${i}]`;
    if (!isPlainObject(entry)) {
      throw new InvalidInput(`Invalid ${where}: expected {field, ascending}, got ${kindOf(entry)}`);
    }
    for (const key of Object.keys(entry)) {
      if (!KEYS.includes(key)) throw new InvalidInput(`Unknown key ${shown(key)} at ${where}; expected ${KEYS.join(', ')}`);
    }
    return Object.freeze({ field: parseFieldPath(entry.field, where), ascending: parseDirection(entry, where) });
  });
}

/**
 * Returns a new array of `records` ordered by `keys` (first key has priority).
 * Stable: records that compare equal on every key keep their input order.
 * With no keys it returns a copy in input order.
 */
export function sortRecords(records: readonly Fields[], keys: readonly SortKey[]): Fields[] {
  if (keys.length === 0) return records.slice();
  const rows = records.map((record, index) => ({
    record,
    index,
    values: keys.map((k): Value | undefined => getPath(record, k.field)),
  }));
  rows.sort((a, b) => {
    for (let i = 0; i < keys.length; i++) {
      const c = sortCompare(a.values[i], b.values[i]);
      if (c !== 0) return keys[i]!.ascending ? c : -c;
    }
    return a.index - b.index;
  });
  return rows.map((r) => r.record);
}
