/**
 * Stored values -> wire values.
 *
 * Typed mode wraps every top-level field as `{type, value}`; untyped mode
 * returns bare values. `id` and the system `ttl` expiry stay bare in both.
 * Binary stays a Uint8Array here; the JSON encoder writes it as an array of
 * byte numbers and the MessagePack encoder as `bin` (protocol.md 1.4 rule 6).
 */
import { Tagged, typeOf, type Fields, type Value } from './tagged.js';
import { JoinedRecords } from './joined.js';

export interface OutputOptions { readonly typed: boolean }

/** The bare wire value of a stored value (what goes in `value` of a wrapper). */
export function bareValue(v: Value): unknown {
  return v instanceof Tagged ? v.value : v;
}

export function valueToWire(v: Value, typed: boolean): unknown {
  return typed ? { type: typeOf(v), value: bareValue(v) } : bareValue(v);
}

const BARE_FIELDS: ReadonlySet<string> = new Set(['id', 'ttl']);

export function recordToWire(fields: Fields, opts: OutputOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(fields)) {
    const v = fields[key]!;
    if ((v as unknown) instanceof JoinedRecords) {
      out[key] = (v as unknown as JoinedRecords).records.map((r) => recordToWire(r, opts));
      continue;
    }
    out[key] = BARE_FIELDS.has(key) ? bareValue(v) : valueToWire(v, opts.typed);
  }
  return out;
}

/**
 * The JSON text of `recordToWire(fields, opts)`, written directly for the
 * common record of top-level strings, numbers, booleans and nulls (a point
 * read's answer), without building the wire object first. Undefined for
 * any other record (a nested, tagged, binary, big-integer or joined value):
 * the caller encodes `recordToWire` as usual. Same text, same key order.
 */
export function recordJson(fields: Fields, opts: OutputOptions): string | undefined {
  let out = '{';
  for (const key of Object.keys(fields)) {
    const v = fields[key]!;
    if (v !== null && typeof v === 'object') return undefined;
    if (out.length > 1) out += ',';
    out += JSON.stringify(key) + ':';
    if (!opts.typed || BARE_FIELDS.has(key)) {
      const scalar = scalarJson(v);
      if (scalar === undefined) return undefined;
      out += scalar;
      continue;
    }
    const type = scalarType(v);
    if (type === undefined) return undefined;
    out += `{"type":"${type}","value":${scalarJson(v)!}}`;
  }
  return out + '}';
}

/** A bare scalar's JSON as JSON.stringify writes it; undefined for a bigint (written with exact digits elsewhere). */
function scalarJson(v: Value): string | undefined {
  return typeof v === 'bigint' ? undefined : JSON.stringify(v);
}

/** `typeOf` for the scalars `recordJson` writes; undefined for anything else. */
function scalarType(v: Value): 'String' | 'Integer' | 'Float' | 'Boolean' | 'Null' | undefined {
  if (v === null) return 'Null';
  switch (typeof v) {
    case 'string': return 'String';
    case 'boolean': return 'Boolean';
    case 'number': return Number.isSafeInteger(v) ? 'Integer' : 'Float';
    default: return undefined;
  }
}
