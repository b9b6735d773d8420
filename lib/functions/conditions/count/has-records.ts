/** HasRecords: a unit variant (no `value`), true when there is at least one working record. */
import { makeCondition, type ConditionKind } from '../condition.js';

export const hasRecords: ConditionKind = {
  type: 'HasRecords',
  unit: true,
  compile: () => makeCondition('HasRecords', ({ rows }) => rows.length > 0),
};
