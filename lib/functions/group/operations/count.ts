/**
 * Count: an Integer. Without `input_field` it counts the group's records;
 * with one, the records whose field is present and not null (SQL's
 * COUNT(column)).
 */
import type { Value } from '../../../engine/index.js';
import type { GroupOperation } from '../group-operation.js';
import { valueAt } from '../field-value.js';

function add(n: number, value: Value | undefined): number {
  return value === undefined || value === null ? n : n + 1;
}

export const count: GroupOperation<number> = {
  name: 'Count',
  needsInput: false,
  init: () => 0,
  add,
  result: (n) => n,
  addColumn: (states, rows, groupOf, field) => {
    for (let r = 0; r < rows.length; r++) {
      const g = groupOf[r]!;
      states[g] = add(states[g]!, valueAt(rows[r]!, field));
    }
  },
};
