/**
 * ApproxDistinct: an Integer estimate of the number of distinct values
 * (engine equality), records lacking the field skipped. Exact up to 256
 * distinct values, then HyperLogLog with at most 4 KiB per group
 * (distinct-counter.ts).
 */
import { hashKey } from '../../../engine/index.js';
import { DistinctCounter } from '../distinct-counter.js';
import type { GroupOperation } from '../group-operation.js';

export const approxDistinct: GroupOperation<DistinctCounter> = {
  name: 'ApproxDistinct',
  needsInput: true,
  init: () => new DistinctCounter(),
  add: (counter, v) => {
    if (v !== undefined) counter.add(hashKey(v));
    return counter;
  },
  result: (counter) => counter.estimate(),
};
