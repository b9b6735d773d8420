/**
 * Evaluation of a parsed filter against one record's stored fields.
 *
 * Pure and allocation-light: it is the inner loop of every scan. Path lookup
 * only follows own properties, so names such as `toString` never reach the
 * prototype. Parsing and operand rules live in filter.ts and operators.ts.
 */
import { Tagged, type Fields, type Value } from '../values/index.js';
import type { Filter } from './filter.js';
import { testOperator } from './operators.js';

const INDEX = /^(0|[1-9]\d*)$/;

function child(value: Value | undefined, segment: string): Value | undefined {
  if (value === null || value === undefined || typeof value !== 'object') return undefined;
  if (value instanceof Tagged || value instanceof Uint8Array) return undefined;
  if (Array.isArray(value)) {
    const items = value as readonly Value[];
    return INDEX.test(segment) ? items[Number(segment)] : undefined;
  }
  const obj = value as { readonly [key: string]: Value };
  return Object.hasOwn(obj, segment) ? obj[segment] : undefined;
}

/**
 * The value at a dotted `path`, or undefined when absent.
 *
 * An exact top-level key wins (so `id`, or a key that itself contains a dot,
 * is found directly). Otherwise each segment descends into a plain object, or
 * into an array when the segment is a decimal index. Tagged values (DateTime,
 * Set, Vector, ...) are leaves: only a top-level match reaches them.
 */
export function getPath(fields: Fields, path: string): Value | undefined {
  if (Object.hasOwn(fields, path)) return fields[path];
  if (!path.includes('.')) return undefined;
  let cur: Value | undefined = fields;
  for (const segment of path.split('.')) {
    cur = child(cur, segment);
    if (cur === undefined) return undefined;
  }
  return cur;
}

/**
 * True when the record's fields satisfy `filter`. Never throws for a filter
 * produced by `parseFilter`; a missing field is `undefined` to the operators
 * (see operators.ts `testOperator`).
 */
export function matchFilter(filter: Filter, fields: Fields): boolean {
  switch (filter.kind) {
    case 'condition':
      return testOperator(filter.op, getPath(fields, filter.field), filter.value, filter.members);
    case 'and':
      return filter.filters.every((f) => matchFilter(f, fields));
    case 'or':
      return filter.filters.some((f) => matchFilter(f, fields));
    case 'not':
      return !matchFilter(filter.filter, fields);
    default: {
      const never: never = filter;
      return never;
    }
  }
}
