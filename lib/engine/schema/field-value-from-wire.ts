/**
 * Wire value -> stored value, when the declared type of the field is known.
 *
 * Same as `fieldFromWire` except that a bare string sent to a String field
 * stays a string: bare RFC 3339 strings are otherwise inferred as DateTime,
 * and that normalisation cannot be undone afterwards. Other conversions to
 * the declared type happen after validation, in `coerceValue`.
 */
import { fieldFromWire, type TypeName, type Value } from '../values/index.js';

/**
 * Converts `raw` for a field declared as `type` (undefined for undeclared
 * fields). Throws InvalidInput on malformed typed wrappers, like `fieldFromWire`.
 */
export function fieldValueFromWire(type: TypeName | undefined, raw: unknown, path: string): Value {
  if (type === 'String' && typeof raw === 'string') return raw;
  return fieldFromWire(raw, path);
}
