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
