/** Push: an Array of the group's values in record order; records lacking the field add nothing, a null value is kept. */
import type { Value } from '../../../engine/index.js';
import type { GroupOperation } from '../group-operation.js';
import { valueAt } from '../field-value.js';

function add(items: Value[], v: Value | undefined): Value[] {
  if (v !== undefined) items.push(v);
  return items;
}

export const push: GroupOperation<Value[]> = {
  name: 'Push',
  needsInput: true,
  init: () => [],
  add,
  result: (items) => Object.freeze(items),
  addColumn: (states, rows, groupOf, field) => {
    for (let r = 0; r < rows.length; r++) {
      const g = groupOf[r]!;
      states[g] = add(states[g]!, valueAt(rows[r]!, field));
    }
  },
};
