/** FieldGreaterThanOrEqual: `{field, value}`, true when the first record's field is greater than or equal to the value (field-operand.ts). */
import type { ConditionKind } from '../condition.js';
import { compileFieldComparison } from './field-operand.js';

export const fieldGreaterThanOrEqual: ConditionKind = {
  type: 'FieldGreaterThanOrEqual',
  unit: false,
  compile: (value, path, ctx) => compileFieldComparison('FieldGreaterThanOrEqual', value, path, ctx, (order) => order >= 0),
};
