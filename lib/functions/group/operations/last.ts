/** Last: the value in the group's last record, null when that record lacks the field. */
import type { Value } from '../../../engine/index.js';
import type { GroupOperation } from '../group-operation.js';
import { valueAt } from '../field-value.js';

function add(_s: Value, v: Value | undefined): Value {
  return v ?? null;
}

export const last: GroupOperation<Value> = {
  name: 'Last',
  needsInput: true,
  init: () => null,
  add,
  result: (s) => s,
  addColumn: (states, rows, groupOf, field) => {
    for (let r = 0; r < rows.length; r++) {
      const g = groupOf[r]!;
      states[g] = add(states[g]!, valueAt(rows[r]!, field));
    }
  },
};
