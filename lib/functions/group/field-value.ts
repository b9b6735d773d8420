/** Reading a record's value for a Group by-field or input_field. */
import { getPath, type Fields, type Value } from '../../engine/index.js';

/** What a function without an input_field (Count) reads for each record. */
export const WHOLE_RECORD: Value = true;

/**
 * The value at `field` (getPath's rules), read as a plain own property when
 * the name has no dot, the common case; WHOLE_RECORD when `field` is
 * undefined.
 */
export function valueAt(row: Fields, field: string | undefined): Value | undefined {
  if (field === undefined) return WHOLE_RECORD;
  return Object.hasOwn(row, field) ? row[field] : field.includes('.') ? getPath(row, field) : undefined;
}
