/** Not: `{condition}`, true when the nested condition does not hold. */
import { makeCondition, type ConditionKind } from '../condition.js';
import { conditionMembers } from '../members.js';

export const not: ConditionKind = {
  type: 'Not',
  unit: false,
  compile: (value, path, ctx) => {
    const members = conditionMembers(value, path, ['condition'], ['condition']);
    const condition = ctx.child(members.condition, `${path}.condition`);
    return makeCondition('Not', (input) => !condition.test(input));
  },
};
