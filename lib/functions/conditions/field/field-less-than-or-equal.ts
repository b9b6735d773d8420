/** FieldLessThanOrEqual: `{field, value}`, true when the first record's field is less than or equal to the value (field-operand.ts). */
import type { ConditionKind } from '../condition.js';
import { compileFieldComparison } from './field-operand.js';

export const fieldLessThanOrEqual: ConditionKind = {
  type: 'FieldLessThanOrEqual',
  unit: false,
  compile: (value, path, ctx) => compileFieldComparison('FieldLessThanOrEqual', value, path, ctx, (order) => order <= 0),
};
