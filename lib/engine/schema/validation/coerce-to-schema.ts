/**
 * Converts accepted values to the stored form of their declared type, so
 * reads report the type the schema declares (a bare number array in a Vector
 * field reads back as Vector, a whole number in a Float field as Float).
 *
 * Only values `acceptsType` accepts are converted, and each conversion is
 * lossless; anything else is returned unchanged. Run it after validation.
 */
import { bareValue, typedFromWire, typeOf, type Fields, type TypeName, type Value } from '../../values/index.js';
import { acceptsType } from './accepts-type.js';
import type { Schema } from '../types.js';

/**
 * The stored form of `value` as a `type` value, or `value` itself when it already has
 * that form, is null, or is not accepted by `type`. Never throws for accepted
 * values; `path` only names the value in an error that would be a bug.
 */
export function coerceValue(type: TypeName, value: Value, path = 'value'): Value {
  if (value === null || typeOf(value) === type || !acceptsType(type, value)) return value;
  return typedFromWire(type, bareValue(value), path);
}

/**
 * Returns a new record whose declared fields are converted to their declared
 * types. Undeclared fields and the input record are left untouched.
 * REQUIRES: the record passed `validateRecord`, or unconverted values remain.
 */
export function coerceToSchema(schema: Schema, fields: Fields): Record<string, Value> {
  const out: Record<string, Value> = { ...fields };
  for (const [name, def] of Object.entries(schema.fields)) {
    if (Object.hasOwn(out, name)) out[name] = coerceValue(def.field_type, out[name]!, name);
  }
  return out;
}
