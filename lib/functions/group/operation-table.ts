/**
 * Every Group operation, one module each; typed so a missing operation does
 * not compile (each entry's `name` equals its key: spec/functions/group.spec.ts).
 */
import type { GroupOperation, GroupOperationName } from './group-operation.js';
import { addToSet } from './operations/add-to-set.js';
import { approxDistinct } from './operations/approx-distinct.js';
import { average } from './operations/average.js';
import { count } from './operations/count.js';
import { first } from './operations/first.js';
import { last } from './operations/last.js';
import { max } from './operations/max.js';
import { min } from './operations/min.js';
import { push } from './operations/push.js';
import { standardDeviation } from './operations/standard-deviation.js';
import { sum } from './operations/sum.js';

export const GROUP_OPERATION_TABLE: Readonly<Record<GroupOperationName, GroupOperation<any>>> = Object.freeze({
  Count: count,
  Sum: sum,
  Average: average,
  Min: min,
  Max: max,
  First: first,
  Last: last,
  Push: push,
  AddToSet: addToSet,
  StandardDeviation: standardDeviation,
  ApproxDistinct: approxDistinct,
});

export function isGroupOperationName(name: unknown): name is GroupOperationName {
  return typeof name === 'string' && Object.hasOwn(GROUP_OPERATION_TABLE, name);
}
