/**
 * Evaluation of a parsed filter against one record's stored fields.
 *
 * Pure and allocation-light: it is the inner loop of every scan. Path lookup
 * only follows own properties, so names such as `toString` never reach the
 * prototype. Parsing and operand rules live in filter.ts and operators.ts.
 */
import { equalValues, Tagged, type Fields, type Value } from '../values/index.js';
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

/** A compiled filter: true when a record's stored fields satisfy it. */
export type Matcher = (fields: Fields) => boolean;

/** Reads one field: a plain property read for a top-level name that no object inherits, else `getPath`. */
function fieldReader(path: string): (fields: Fields) => Value | undefined {
  if (path.includes('.') || path in Object.prototype) return (fields) => getPath(fields, path);
  return (fields) => fields[path];
}

const PRIMITIVE_TYPES: ReadonlySet<string> = new Set(['string', 'number', 'bigint', 'boolean']);

function compileCondition(filter: Extract<Filter, { kind: 'condition' }>): Matcher {
  const read = fieldReader(filter.field);
  const { op, value, members } = filter;
  const valueType = typeof value;
  if ((op === 'Eq' || op === 'Ne') && PRIMITIVE_TYPES.has(valueType)) {
    // equalValues compares two primitives of one type with ===: decided here without the call.
    const eq = (fields: Fields): boolean => {
      const actual = read(fields);
      return typeof actual === valueType ? actual === value : equalValues(actual, value);
    };
    return op === 'Eq' ? eq : (fields) => !eq(fields);
  }
  return (fields) => testOperator(op, read(fields), value, members);
}

/** Turns a parsed filter into one closure per node, each knowing its operator and field ahead of the scan. */
function compile(filter: Filter): Matcher {
  switch (filter.kind) {
    case 'condition':
      return compileCondition(filter);
    case 'and': {
      const parts = filter.filters.map(compile);
      return (fields) => {
        for (const part of parts) if (!part(fields)) return false;
        return true;
      };
    }
    case 'or': {
      const parts = filter.filters.map(compile);
      return (fields) => {
        for (const part of parts) if (part(fields)) return true;
        return false;
      };
    }
    case 'not': {
      const inner = compile(filter.filter);
      return (fields) => !inner(fields);
    }
    default: {
      const never: never = filter;
      return never;
    }
  }
}

/** Parsed filters are frozen and reused (a query's, a subscription's): each is compiled once. */
const compiled = new WeakMap<Filter, Matcher>();

/** The compiled form of `filter`: take it once, outside a loop over records. */
export function matcherOf(filter: Filter): Matcher {
  let matcher = compiled.get(filter);
  if (matcher === undefined) compiled.set(filter, (matcher = compile(filter)));
  return matcher;
}

/**
 * True when the record's fields satisfy `filter`. Never throws for a filter
 * produced by `parseFilter`; a missing field is `undefined` to the operators
 * (see operators.ts `testOperator`).
 */
export function matchFilter(filter: Filter, fields: Fields): boolean {
  return matcherOf(filter)(fields);
}
