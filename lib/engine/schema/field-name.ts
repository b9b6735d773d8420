/**
 * Rules for the names of schema fields.
 *
 * A name must be non-empty, at most 256 characters, must not start with `$`
 * (reserved for operators) and must not be one of the prototype-polluting
 * keys. Dots are allowed; how they address nested values is the query
 * layer's business.
 */
import { InvalidInput } from '../../errors.js';

export const MAX_FIELD_NAME_LENGTH = 256;
const HOSTILE_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Throws InvalidInput when `name` cannot name a schema field. */
export function assertFieldName(name: string): void {
  if (name.length === 0) throw new InvalidInput('Field names must not be empty');
  if (name.length > MAX_FIELD_NAME_LENGTH) {
    throw new InvalidInput(`Field name '${name.slice(0, 32)}…' is longer than ${MAX_FIELD_NAME_LENGTH} characters`);
  }
  if (HOSTILE_NAMES.has(name)) throw new InvalidInput(`Forbidden field name '${name}'`);
  if (name.startsWith('$')) throw new InvalidInput(`Field name '${name}' must not start with '$'`);
}
