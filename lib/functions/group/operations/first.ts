/** First: the value in the group's first record (records in working order), null when that record lacks the field. */
import type { Value } from '../../../engine/index.js';
import type { GroupOperation } from '../group-operation.js';

const UNSET = Symbol('unset');

export const first: GroupOperation<Value | typeof UNSET> = {
  name: 'First',
  needsInput: true,
  init: () => UNSET,
  add: (s, v) => (s === UNSET ? v ?? null : s),
  result: (s) => (s === UNSET ? null : s),
};
