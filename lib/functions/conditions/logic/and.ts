/** And: `{conditions: [...]}`, true when every condition holds (an empty list holds), evaluated left to right, stopping at the first false. */
import { makeCondition, type ConditionKind } from '../condition.js';
import { compileConditionList } from './condition-list.js';

export const and: ConditionKind = {
  type: 'And',
  unit: false,
  compile: (value, path, ctx) => {
    const conditions = compileConditionList(value, path, ctx);
    return makeCondition('And', (input) => conditions.every((c) => c.test(input)));
  },
};
