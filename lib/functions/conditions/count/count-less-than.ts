/** CountLessThan: `{count}`, true when the number of working records is less than `count`. */
import type { ConditionKind } from '../condition.js';
import { compileCountCondition } from './count-operand.js';

export const countLessThan: ConditionKind = {
  type: 'CountLessThan',
  unit: false,
  compile: (value, path, ctx) => compileCountCondition('CountLessThan', value, path, ctx, (length, count) => length < count),
};
