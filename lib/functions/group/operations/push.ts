/** Push: an Array of the group's values in record order; records lacking the field add nothing, a null value is kept. */
import type { Value } from '../../../engine/index.js';
import type { GroupOperation } from '../group-operation.js';

export const push: GroupOperation<Value[]> = {
  name: 'Push',
  needsInput: true,
  init: () => [],
  add: (items, v) => {
    if (v !== undefined) items.push(v);
    return items;
  },
  result: (items) => Object.freeze(items),
};
