/**
 * FieldEquals: `{field, value}`, true when the first record's field equals
 * the value with the query engine's equality (Eq): numbers across types,
 * DateTimes by instant, objects and arrays member by member. A null value
 * tests null or missing. No records: false.
 */
import { equalValues } from '../../../engine/index.js';
import { makeCondition, type ConditionKind } from '../condition.js';
import { compileFieldOperand, firstRecordField } from './field-operand.js';

export const fieldEquals: ConditionKind = {
  type: 'FieldEquals',
  unit: false,
  compile: (value, path, ctx) => {
    const { field, operand } = compileFieldOperand(value, path, ctx);
    return makeCondition('FieldEquals', ({ rows, resolve }) => rows.length > 0 && equalValues(firstRecordField(rows, field), operand.get(resolve)));
  },
};
