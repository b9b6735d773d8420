/** FieldGreaterThan: `{field, value}`, true when the first record's field is greater than the value (field-operand.ts). */
import type { ConditionKind } from '../condition.js';
import { compileFieldComparison } from './field-operand.js';

export const fieldGreaterThan: ConditionKind = {
  type: 'FieldGreaterThan',
  unit: false,
  compile: (value, path, ctx) => compileFieldComparison('FieldGreaterThan', value, path, ctx, (order) => order > 0),
};
