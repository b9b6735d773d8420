/** Last: the value in the group's last record, null when that record lacks the field. */
import type { Value } from '../../../engine/index.js';
import type { GroupOperation } from '../group-operation.js';

export const last: GroupOperation<Value> = {
  name: 'Last',
  needsInput: true,
  init: () => null,
  add: (_s, v) => v ?? null,
  result: (s) => s,
};
