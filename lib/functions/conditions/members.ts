/**
 * Reading a condition's `value` object: its members, checked by name, so a
 * misspelt member fails the save instead of being ignored.
 */
import { isPlainObject, parseFieldPath } from '../../engine/index.js';
import { atPath, invalidAt, kindOfRaw } from '../definition-path.js';

/**
 * `value` as an object holding only `allowed` members and every `required`
 * one. Throws InvalidInput starting with `path` otherwise.
 */
export function conditionMembers(value: unknown, path: string, allowed: readonly string[], required: readonly string[]): Record<string, unknown> {
  if (!isPlainObject(value)) throw invalidAt(path, `expected an object with ${allowed.join(', ')}, got ${kindOfRaw(value)}`);
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) throw invalidAt(path, `unknown member '${key}'; expected ${allowed.join(', ')}`);
  }
  for (const key of required) {
    if (!Object.hasOwn(value, key)) throw invalidAt(path, `missing member '${key}'`);
  }
  return value;
}

/** A literal dotted field path (no placeholders), with the engine's field-path rules. */
export function conditionField(raw: unknown, path: string): string {
  const field = atPath(path, () => parseFieldPath(raw, 'field'));
  if (field.includes('{{')) throw invalidAt(path, `'field' must name a field literally; placeholders are not substituted in field names`);
  return field;
}
