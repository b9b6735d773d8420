/** What a record offers to search: its vector in a field, and its text fields. */
import { Tagged, type Fields, type Value } from '../values/index.js';

/** A record's vector in `field`: a Vector value or a bare array of numbers. */
export function vectorOf(v: Value | undefined): number[] | undefined {
  const raw = v instanceof Tagged && v.type === 'Vector' ? v.value : v;
  if (!Array.isArray(raw) || raw.length === 0 || !raw.every((x) => typeof x === 'number' && Number.isFinite(x))) return undefined;
  return raw as number[];
}

/** The text a record offers to full-text search: its top-level strings (and string arrays). */
export function textFieldsOf(fields: Fields): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (k === 'id' || k === 'ttl') continue;
    if (typeof v === 'string') out[k] = v;
    else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) out[k] = (v as string[]).join(' ');
  }
  return out;
}
