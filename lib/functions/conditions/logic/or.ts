/** Or: `{conditions: [...]}`, true when some condition holds (an empty list does not), evaluated left to right, stopping at the first true. */
import { makeCondition, type ConditionKind } from '../condition.js';
import { compileConditionList } from './condition-list.js';

export const or: ConditionKind = {
  type: 'Or',
  unit: false,
  compile: (value, path, ctx) => {
    const conditions = compileConditionList(value, path, ctx);
    return makeCondition('Or', (input) => conditions.some((c) => c.test(input)));
  },
};
