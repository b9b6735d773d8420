/**
 * Name lookup for templates: ForEach frames (innermost first), then the
 * parameters, then the step's current record. Record values are stored
 * values; they come out as wire values (a Tagged value as its typed
 * wrapper) so writes keep their types. Only own members are followed, so
 * no path reaches the prototype chain.
 */
import { isPlainObject, isTypedWrapper, Tagged, valueToWire, type Fields, type Value } from '../../engine/index.js';

export type Found = { found: boolean; value: unknown };

const MISSING: Found = Object.freeze({ found: false, value: undefined });

/** Follows `path` inside a stored record. */
export function lookupInRecord(record: Fields | undefined, path: readonly string[]): Found {
  if (record === undefined || !Object.hasOwn(record, path[0]!)) return MISSING;
  let cur: Value | undefined = record[path[0]!];
  for (let i = 1; i < path.length; i++) {
    cur = childOfValue(cur, path[i]!);
    if (cur === undefined) return MISSING;
  }
  return { found: true, value: cur instanceof Tagged ? valueToWire(cur, true) : cur };
}

function childOfValue(v: Value | undefined, key: string): Value | undefined {
  if (Array.isArray(v)) return /^\d+$/.test(key) ? (v as readonly Value[])[Number(key)] : undefined;
  if (isPlainObject(v)) return Object.hasOwn(v, key) ? (v as Fields)[key] : undefined;
  return undefined;
}

/** Follows `path` inside the call parameters (wire JSON; an Object wrapper is stepped through). */
export function lookupInParams(params: Readonly<Record<string, unknown>>, path: readonly string[]): Found {
  if (!Object.hasOwn(params, path[0]!)) return MISSING;
  let cur: unknown = params[path[0]!];
  for (let i = 1; i < path.length; i++) {
    if (isTypedWrapper(cur)) cur = cur.value;
    const key = path[i]!;
    if (Array.isArray(cur) && /^\d+$/.test(key)) cur = cur[Number(key)];
    else if (isPlainObject(cur) && Object.hasOwn(cur, key)) cur = cur[key];
    else return MISSING;
    if (cur === undefined) return MISSING;
  }
  return { found: true, value: cur };
}
