/** Max: the largest value (min-max.ts order), keeping its input type; null when there are none. */
import type { Value } from '../../../engine/index.js';
import type { GroupOperation } from '../group-operation.js';
import { valueAt } from '../field-value.js';
import { order } from './min-max.js';

function add(s: Value | undefined, v: Value | undefined): Value | undefined {
  return v === undefined || v === null ? s : s === undefined || order(v, s!) > 0 ? v : s;
}

export const max: GroupOperation<Value | undefined> = {
  name: 'Max',
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
