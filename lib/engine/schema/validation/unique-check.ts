/**
 * Finds values of `unique` fields that another record already holds.
 *
 * A pure scan over the records it is given, O(records x unique fields): the
 * caller decides which records to pass (a collection, a batch, a transaction
 * view) and may replace this with an index lookup. Values compare with
 * `equalValues`, so 3 and 3.0 or a DateTime and its RFC 3339 string collide.
 * Null and absent values never collide.
 */
import type { ValidationDetail } from '../../../errors.js';
import { bareValue, equalValues, type Fields, type Value } from '../../values/index.js';
import { showValue } from './check-value.js';
import type { Schema } from '../types.js';

/**
 * One 'unique' detail per unique field of `fields` whose value appears in a
 * record of `existing`, skipping the record whose `id` is `selfId` (the
 * record being updated). Iterates `existing` once.
 */
export function findUniqueViolations(
  schema: Schema,
  fields: Fields,
  existing: Iterable<Fields>,
  selfId?: string,
): ValidationDetail[] {
  const candidates: [string, Value][] = [];
  for (const [name, def] of Object.entries(schema.fields)) {
    const value = Object.hasOwn(fields, name) ? fields[name] : undefined;
    if (def.unique && value !== undefined && value !== null) candidates.push([name, value]);
  }
  if (candidates.length === 0) return [];
  const taken = new Set<string>();
  for (const record of existing) {
    if (selfId !== undefined && record.id === selfId) continue;
    for (const [name, value] of candidates) {
      if (!taken.has(name) && Object.hasOwn(record, name) && equalValues(record[name], value)) taken.add(name);
    }
    if (taken.size === candidates.length) break;
  }
  return candidates
    .filter(([name]) => taken.has(name))
    .map(([name, value]) => ({
      field: name,
      constraint: 'unique',
      expected: 'a value no other record holds',
      actual: bareValue(value),
      message: `Field '${name}' must be unique: another record already has ${showValue(value)}`,
    }));
}
