/** First: the value in the group's first record (records in working order), null when that record lacks the field. */
import type { Value } from '../../../engine/index.js';
import type { GroupOperation } from '../group-operation.js';
import { valueAt } from '../field-value.js';

const UNSET = Symbol('unset');

function add(s: Value | typeof UNSET, v: Value | undefined): Value | typeof UNSET {
  return s === UNSET ? v ?? null : s;
}

export const first: GroupOperation<Value | typeof UNSET> = {
  name: 'First',
  needsInput: true,
  init: () => UNSET,
  add,
  result: (s) => (s === UNSET ? null : s),
  addColumn: (states, rows, groupOf, field) => {
    for (let r = 0; r < rows.length; r++) {
      const g = groupOf[r]!;
      states[g] = add(states[g]!, valueAt(rows[r]!, field));
    }
  },
};
