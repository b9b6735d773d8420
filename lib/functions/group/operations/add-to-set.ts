/**
 * AddToSet: an Array of the group's distinct values (the engine's equality:
 * 1 and 1.0 are one value, objects compare member by member), in order of
 * first appearance; records lacking the field add nothing.
 */
import { hashKey, type Value } from '../../../engine/index.js';
import type { GroupOperation } from '../group-operation.js';
import { valueAt } from '../field-value.js';

interface Distinct { seen: Set<string>; items: Value[] }

function add(s: Distinct, v: Value | undefined): Distinct {
  if (v === undefined) return s;
  const key = hashKey(v);
  if (!s.seen.has(key)) {
    s.seen.add(key);
    s.items.push(v);
  }
  return s;
}

export const addToSet: GroupOperation<Distinct> = {
  name: 'AddToSet',
  needsInput: true,
  init: () => ({ seen: new Set(), items: [] }),
  add,
  result: (s) => Object.freeze(s.items),
  addColumn: (states, rows, groupOf, field) => {
    for (let r = 0; r < rows.length; r++) {
      const g = groupOf[r]!;
      states[g] = add(states[g]!, valueAt(rows[r]!, field));
    }
  },
};
