/**
 * The ordering Min and Max share: the query engine's sort order (numbers
 * across Integer, Float and Decimal; DateTimes by instant; values of
 * different kinds ordered by kind, as a sort would), with fast paths for
 * two numbers or two strings. Null and missing values are skipped.
 */
import { sortCompare, type Value } from '../../../engine/index.js';

/** Negative when a sorts before b. */
export function order(a: Value, b: Value): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return sortCompare(a, b);
}
