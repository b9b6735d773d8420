/**
 * Projection of returned records: `select_fields` and `exclude_fields`
 * (protocol.md 2.4 and 2.3 query parameters).
 *
 * Select keeps whole top-level fields (a dotted path keeps its top-level
 * field) and always `id`. Exclude removes top-level fields, or one nested key
 * of a plain object for a dotted path, and never `id`. Projection builds new
 * objects; stored records are never modified.
 */
import { InvalidInput } from '../../errors.js';
import { Tagged, type Fields, type Value } from '../values/index.js';
import { kindOf } from './describe-input.js';
import { parseFieldPath } from './field-path.js';

/**
 * Parses a field list given as an array of strings or a comma-separated
 * string (`"a,b"`, blanks trimmed). Null, undefined and an empty list mean
 * "no projection" and give undefined. Throws InvalidInput naming `name` for
 * any other shape or a bad field name.
 */
export function parseFieldList(raw: unknown, name: string): string[] | undefined {
  if (raw === null || raw === undefined) return undefined;
  let list: unknown[];
  if (typeof raw === 'string') list = raw.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  else if (Array.isArray(raw)) list = raw;
  else throw new InvalidInput(`Invalid ${name}: expected an array of field names or "a,b", got ${kindOf(raw)}`);
  const fields = list.map((f, i) => parseFieldPath(typeof f === 'string' ? f.trim() : f, `${name}[${i}]`));
  return fields.length === 0 ? undefined : fields;
}

function topLevel(fields: Fields, path: string): string {
  if (Object.hasOwn(fields, path)) return path;
  const dot = path.indexOf('.');
  return dot < 0 ? path : path.slice(0, dot);
}

function isPlainValueObject(v: Value | undefined): v is { readonly [k: string]: Value } {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Tagged) && !(v instanceof Uint8Array);
}

/** A copy of `v` without the nested key at `segments`; `v` itself when there is nothing to remove. */
function without(v: Value | undefined, segments: readonly string[]): Value | undefined {
  if (!isPlainValueObject(v) || !Object.hasOwn(v, segments[0]!)) return v;
  const [head, ...rest] = segments as [string, ...string[]];
  const out: Record<string, Value> = { ...v };
  if (rest.length === 0) delete out[head];
  else {
    const inner = without(v[head], rest);
    if (inner === v[head]) return v;
    out[head] = inner!;
  }
  return Object.freeze(out);
}

function exclude(out: Record<string, Value>, path: string): void {
  if (path === 'id') return;
  if (Object.hasOwn(out, path)) {
    delete out[path];
    return;
  }
  const segments = path.split('.');
  const head = segments[0]!;
  if (segments.length < 2 || head === 'id' || !Object.hasOwn(out, head)) return;
  out[head] = without(out[head], segments.slice(1))!;
}

/**
 * Returns a new fields object projected by `select` then `exclude`.
 * REQUIRES: paths come from `parseFieldList` (or are otherwise validated).
 * Top-level field order follows the record. `id` is always kept.
 */
export function projectFields(fields: Fields, select?: readonly string[], excludeList?: readonly string[]): Fields {
  let out: Record<string, Value>;
  if (select) {
    const keep = new Set(select.map((p) => topLevel(fields, p)));
    keep.add('id');
    out = {};
    for (const key of Object.keys(fields)) if (keep.has(key)) out[key] = fields[key]!;
  } else {
    out = { ...fields };
  }
  for (const path of excludeList ?? []) exclude(out, path);
  return out;
}
