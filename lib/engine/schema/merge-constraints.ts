/**
 * One field of a partial schema update (`PUT /api/schemas/{c}` with
 * `{constraints: {<field>: {...}}}`): the attributes present in the patch
 * replace the current ones, absent attributes keep their value, and an
 * attribute set to null is cleared (`required`/`unique` back to false).
 *
 * The merged definition is parsed again as a whole, so a patch that leaves
 * the definition inconsistent (a `regex` kept on a field changed to Integer,
 * a default outside a new max) is rejected rather than half applied.
 */
import { InvalidInput } from '../../errors.js';
import { isPlainObject } from '../values/index.js';
import { assertFieldDefKeys, parseFieldDef } from './field-def.js';
import type { FieldDef } from './types.js';
import { fieldDefToRaw } from './field-def-to-wire.js';

/**
 * The definition of `field` after applying `patch` to `current` (undefined
 * for a field not yet in the schema, in which case the patch must carry
 * `field_type`). Throws InvalidInput like `parseFieldDef`, and when the patch
 * tries to clear `field_type`. Never mutates `current`.
 */
export function mergeConstraints(current: FieldDef | undefined, patch: unknown, field: string): FieldDef {
  if (!isPlainObject(patch)) throw new InvalidInput(`Field '${field}': constraints must be an object`);
  assertFieldDefKeys(patch, field);
  if (current === undefined) return parseFieldDef(patch, field);
  if (patch.field_type === null) throw new InvalidInput(`Field '${field}': field_type cannot be cleared`);
  const merged = fieldDefToRaw(current);
  for (const key of Object.keys(patch)) {
    if (patch[key] === null) delete merged[key];
    else if (patch[key] !== undefined) merged[key] = patch[key];
  }
  return parseFieldDef(merged, field);
}
