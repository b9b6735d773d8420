/** FieldLessThan: `{field, value}`, true when the first record's field is less than the value (field-operand.ts). */
import type { ConditionKind } from '../condition.js';
import { compileFieldComparison } from './field-operand.js';

export const fieldLessThan: ConditionKind = {
  type: 'FieldLessThan',
  unit: false,
  compile: (value, path, ctx) => compileFieldComparison('FieldLessThan', value, path, ctx, (order) => order < 0),
};
