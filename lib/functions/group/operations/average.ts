/** Average: the mean of the number-typed values as a Float (also when whole: 60 is Float 60); null when there are none. */
import type { Value } from '../../../engine/index.js';
import { floatValue, numericValue, type GroupOperation } from '../group-operation.js';
import { valueAt } from '../field-value.js';

interface Mean { sum: number; n: number }

function add(s: Mean, value: Value | undefined): Mean {
  const x = numericValue(value);
  if (x !== undefined) {
    s.sum += x;
    s.n++;
  }
  return s;
}

export const average: GroupOperation<Mean> = {
  name: 'Average',
  needsInput: true,
  init: () => ({ sum: 0, n: 0 }),
  add,
  result: (s) => (s.n === 0 ? null : floatValue(s.sum / s.n)),
  addColumn: (states, rows, groupOf, field) => {
    for (let r = 0; r < rows.length; r++) {
      const g = groupOf[r]!;
      states[g] = add(states[g]!, valueAt(rows[r]!, field));
    }
  },
};
