/**
 * The ordering Min and Max share: the query engine's sort order (numbers
 * across Integer, Float and Decimal; DateTimes by instant; values of
 * different kinds ordered by kind, as a sort would), with fast paths for
 * two numbers or two strings. Null and missing values are skipped.
 */
import { sortCompare, type Value } from '../../../engine/index.js';
import type { GroupOperation } from '../group-operation.js';
import { valueAt } from '../field-value.js';

/** Negative when a sorts before b. */
export function order(a: Value, b: Value): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return sortCompare(a, b);
}

/**
 * Min or Max: keeps the value that `wins` against the one held (by `order`),
 * of its own input type; null when there are none.
 */
export function extremum(name: 'Min' | 'Max', wins: (ordered: number) => boolean): GroupOperation<Value | undefined> {
  const add = (s: Value | undefined, v: Value | undefined): Value | undefined =>
    v === undefined || v === null ? s : s === undefined || wins(order(v, s)) ? v : s;
  return {
    name,
    needsInput: true,
    init: () => undefined,
    add,
    result: (s) => s ?? null,
    addColumn: (states, rows, groupOf, field) => {
      for (let r = 0; r < rows.length; r++) {
        const g = groupOf[r]!;
        states[g] = add(states[g]!, valueAt(rows[r]!, field));
      }
    },
  };
}
