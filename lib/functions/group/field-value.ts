/** Reading a record's value for a Group by-field or input_field. */
import { getPath, type Fields, type Value } from '../../engine/index.js';

/** What a function without an input_field (Count) reads for each record. */
export const WHOLE_RECORD: Value = true;

/**
 * The value at `field` (getPath's rules: an exact top-level key first, then
 * the dotted path), read as a plain property first, the common case;
 * WHOLE_RECORD when `field` is undefined. Field names never reach
 * `__proto__` or `constructor` (compile-group.ts refuses them).
 */
export function valueAt(row: Fields, field: string | undefined): Value | undefined {
  if (field === undefined) return WHOLE_RECORD;
  const v = row[field];
  // A plain read may reach Object.prototype, whose members are all functions, and a field value never is one.
  if (v !== undefined) return typeof v === 'function' ? undefined : v;
  return field.includes('.') ? getPath(row, field) : undefined;
}
