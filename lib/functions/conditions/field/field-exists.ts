/**
 * FieldExists: `{field}`, true when the first record has the field (a null
 * value counts as present, as the query engine's Exists). The spec groups it
 * with `{field, value}`, so a `value` member is accepted and ignored
 * (protocol.md 5.3). No records: false.
 */
import { makeCondition, type ConditionKind } from '../condition.js';
import { conditionField, conditionMembers } from '../members.js';
import { firstRecordField } from './field-operand.js';

export const fieldExists: ConditionKind = {
  type: 'FieldExists',
  unit: false,
  compile: (value, path) => {
    const field = conditionField(conditionMembers(value, path, ['field', 'value'], ['field']).field, path);
    return makeCondition('FieldExists', ({ rows }) => firstRecordField(rows, field) !== undefined);
  },
};
