/**
 * StandardDeviation: the POPULATION standard deviation (divide by n, like
 * MongoDB's $stdDevPop) of the number-typed values, as a Float; one value
 * gives 0, none gives null. Population rather than sample because a group of
 * one record has a defined answer. Welford's update keeps it stable in one
 * pass.
 */
import type { Value } from '../../../engine/index.js';
import { floatValue, numericValue, type GroupOperation } from '../group-operation.js';
import { valueAt } from '../field-value.js';

interface Welford { n: number; mean: number; m2: number }

function add(s: Welford, value: Value | undefined): Welford {
  const x = numericValue(value);
  if (x !== undefined) {
    s.n++;
    const delta = x - s.mean;
    s.mean += delta / s.n;
    s.m2 += delta * (x - s.mean);
  }
  return s;
}

export const standardDeviation: GroupOperation<Welford> = {
  name: 'StandardDeviation',
  needsInput: true,
  init: () => ({ n: 0, mean: 0, m2: 0 }),
  add,
  result: (s) => (s.n === 0 ? null : floatValue(Math.sqrt(s.m2 / s.n))),
  addColumn: (states, rows, groupOf, field) => {
    for (let r = 0; r < rows.length; r++) {
      const g = groupOf[r]!;
      states[g] = add(states[g]!, valueAt(rows[r]!, field));
    }
  },
};
