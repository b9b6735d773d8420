/**
 * Every FunctionCondition type, one module each; typed so a missing type does
 * not compile (each entry's `type` equals its key: spec/functions/conditions.spec.ts).
 */
import type { ConditionKind, ConditionType } from './condition.js';
import { countEquals } from './count/count-equals.js';
import { countGreaterThan } from './count/count-greater-than.js';
import { countLessThan } from './count/count-less-than.js';
import { hasRecords } from './count/has-records.js';
import { fieldEquals } from './field/field-equals.js';
import { fieldExists } from './field/field-exists.js';
import { fieldGreaterThanOrEqual } from './field/field-greater-than-or-equal.js';
import { fieldGreaterThan } from './field/field-greater-than.js';
import { fieldLessThanOrEqual } from './field/field-less-than-or-equal.js';
import { fieldLessThan } from './field/field-less-than.js';
import { and } from './logic/and.js';
import { not } from './logic/not.js';
import { or } from './logic/or.js';

export const CONDITIONS: Readonly<Record<ConditionType, ConditionKind>> = Object.freeze({
  HasRecords: hasRecords,
  FieldEquals: fieldEquals,
  FieldExists: fieldExists,
  FieldGreaterThan: fieldGreaterThan,
  FieldLessThan: fieldLessThan,
  FieldGreaterThanOrEqual: fieldGreaterThanOrEqual,
  FieldLessThanOrEqual: fieldLessThanOrEqual,
  CountEquals: countEquals,
  CountGreaterThan: countGreaterThan,
  CountLessThan: countLessThan,
  And: and,
  Or: or,
  Not: not,
});
