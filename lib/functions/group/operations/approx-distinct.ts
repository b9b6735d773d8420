/**
 * ApproxDistinct: an Integer estimate of the number of distinct values
 * (engine equality), records lacking the field skipped. Exact up to 256
 * distinct values, then HyperLogLog with at most 4 KiB per group
 * (distinct-counter.ts).
 */
import { hashKey, type Value } from '../../../engine/index.js';
import { DistinctCounter } from '../distinct-counter.js';
import type { GroupOperation } from '../group-operation.js';
import { valueAt } from '../field-value.js';

function add(counter: DistinctCounter, v: Value | undefined): DistinctCounter {
  if (v !== undefined) counter.add(hashKey(v));
  return counter;
}

export const approxDistinct: GroupOperation<DistinctCounter> = {
  name: 'ApproxDistinct',
  needsInput: true,
  init: () => new DistinctCounter(),
  add,
  result: (counter) => counter.estimate(),
  addColumn: (states, rows, groupOf, field) => {
    for (let r = 0; r < rows.length; r++) {
      const g = groupOf[r]!;
      states[g] = add(states[g]!, valueAt(rows[r]!, field));
    }
  },
};
