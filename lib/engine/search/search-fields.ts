/** What a record offers to search: its vector in a field, and its text fields. */
import { isVectorComponent } from '../../vector/index.js';
import { Tagged, type Fields, type Value } from '../values/index.js';

/** A record's vector in `field`: a Vector value or a bare array of numbers, each fitting a 32-bit float. */
export function vectorOf(value: Value | undefined): number[] | undefined {
  const raw = value instanceof Tagged && value.type === 'Vector' ? value.value : value;
  if (!Array.isArray(raw) || raw.length === 0 || !raw.every(isVectorComponent)) return undefined;
  return raw as number[];
}

/** The text a record offers to full-text search: its top-level strings (and string arrays). */
export function textFieldsOf(fields: Fields): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (key === 'id' || key === 'ttl') continue;
    if (typeof value === 'string') out[key] = value;
    else if (Array.isArray(value) && value.every((x) => typeof x === 'string'))
      out[key] = (value as string[]).join(' ');
  }
  return out;
}
