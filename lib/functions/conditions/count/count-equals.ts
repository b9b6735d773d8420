/** CountEquals: `{count}`, true when the number of working records equals `count`. */
import type { ConditionKind } from '../condition.js';
import { compileCountCondition } from './count-operand.js';

export const countEquals: ConditionKind = {
  type: 'CountEquals',
  unit: false,
  compile: (value, path, ctx) => compileCountCondition('CountEquals', value, path, ctx, (length, count) => length === count),
};
