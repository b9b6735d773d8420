/**
 * Validates a record against its collection's schema, and fills defaults.
 *
 * The write path runs, in order: `applyDefaults`, `validateRecord` (reject
 * with SchemaViolation when it returns details), `coerceToSchema`. Validation
 * reports every violated constraint of every field, not just the first, as
 * the schema-validation body of product.md expects. Schemas are open: fields
 * the schema does not declare are not checked. Uniqueness needs the other
 * records and lives in `unique-check.ts`.
 */
import type { ValidationDetail } from '../../../errors.js';
import type { Fields, Value } from '../../values/index.js';
import { checkValue } from './check-value.js';
import type { Schema } from '../types.js';

export type ValidationMode = 'insert' | 'update';

/**
 * The violations of `fields` against `schema`, one detail per violated
 * constraint ('required', 'type', 'min', 'max', 'regex', 'enums'); empty when
 * the record is valid. A null value satisfies every constraint except
 * `required` (unless the field is declared Null).
 * REQUIRES: for updates, `fields` is the merged record (stored record plus
 * the update), so `mode` does not change the rules; it is kept for callers
 * and future use.
 */
export function validateRecord(schema: Schema, fields: Fields, mode: ValidationMode): ValidationDetail[] {
  const out: ValidationDetail[] = [];
  for (const [name, def] of Object.entries(schema.fields)) {
    const value = Object.hasOwn(fields, name) ? fields[name] : undefined;
    const isMissing = value === undefined || (value === null && def.field_type !== 'Null');
    if (isMissing) {
      if (def.required) {
        out.push({
          field: name,
          constraint: 'required',
          expected: 'a value',
          actual: value === null ? null : 'missing',
          message: `Field '${name}' is required`,
        });
      }
      continue;
    }
    out.push(...checkValue(def, name, value));
  }
  return out;
}

/**
 * A new record with each declared default set for the fields `fields` omits
 * (an explicit null is kept). Defaults are frozen stored values, shared by
 * reference. Never mutates `fields`.
 */
export function applyDefaults(schema: Schema, fields: Fields): Record<string, Value> {
  const out: Record<string, Value> = { ...fields };
  for (const [name, def] of Object.entries(schema.fields)) {
    if (def.default !== undefined && !Object.hasOwn(out, name)) out[name] = def.default;
  }
  return out;
}
