/** CountGreaterThan: `{count}`, true when the number of working records is greater than `count`. */
import type { ConditionKind } from '../condition.js';
import { compileCountCondition } from './count-operand.js';

export const countGreaterThan: ConditionKind = {
  type: 'CountGreaterThan',
  unit: false,
  compile: (value, path, ctx) => compileCountCondition('CountGreaterThan', value, path, ctx, (length, count) => length > count),
};
