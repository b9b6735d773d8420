/**
 * evaluateCondition: a compiled condition against the working records.
 * Field* conditions test the first record (false when there is none),
 * Count* and HasRecords the number of records, And/Or/Not combine.
 */
import type { Fields } from '../../engine/index.js';
import type { Condition, ResolveValue } from './condition.js';

const noPlaceholders: ResolveValue = (raw) => raw;

/**
 * True when `condition` holds for `rows`. `resolve` turns a value that holds
 * placeholders (as given to, or returned by, `prepareValue` at compile time)
 * into the value to compare with; it is called only for such values, at most
 * once per value per evaluation (And/Or stop early). Without `resolve`,
 * placeholder values are compared as the literal text the definition holds.
 * Throws InvalidInput (naming the definition path) when a resolved value is
 * not a usable value, e.g. a DateTime wrapper around a non-date or a
 * negative count.
 */
export function evaluateCondition(condition: Condition, rows: readonly Fields[], resolve: ResolveValue = noPlaceholders): boolean {
  return condition.test({ rows, resolve });
}
