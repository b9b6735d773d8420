/** Min: the smallest value (min-max.ts order), of its own type; null when there are none. */
import type { Value } from '../../../engine/index.js';
import type { GroupOperation } from '../group-operation.js';
import { order } from './min-max.js';

export const min: GroupOperation<Value | undefined> = {
  name: 'Min',
  needsInput: true,
  init: () => undefined,
  add: (s, v) => (v === undefined || v === null ? s : s === undefined || order(v, s!) < 0 ? v : s),
  result: (s) => s ?? null,
};
