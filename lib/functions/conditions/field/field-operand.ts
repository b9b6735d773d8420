/**
 * The shared part of the Field* conditions: `{field, value}`, where `field`
 * is a dotted path read from the FIRST working record (none means false:
 * there is no record to test), and `value` is an operand (operand.ts).
 *
 * Why the first record: the conditions follow steps that leave one record
 * (FindById, KvGet, IdempotencyClaim, LockAcquire write their output into
 * it), and protocol.md's examples test those (`claim.claimed`,
 * `lock.acquired`); "some record" or "every record" would need a quantifier
 * the wire form does not have.
 */
import { compareValues, getPath, type Fields, type Value } from '../../../engine/index.js';
import { invalidAt } from '../../definition-path.js';
import { makeCondition, type CompileContext, type Condition, type ConditionType } from '../condition.js';
import { conditionField, conditionMembers } from '../members.js';
import { compileOperand, type Operand } from '../operand.js';

export interface FieldOperand {
  readonly field: string;
  readonly operand: Operand;
}

/** Compiles `{field, value}`; `value` is required (it may be null). */
export function compileFieldOperand(value: unknown, path: string, ctx: CompileContext): FieldOperand {
  const members = conditionMembers(value, path, ['field', 'value'], ['field', 'value']);
  return { field: conditionField(members.field, path), operand: compileOperand(members.value, `${path}.value`, ctx) };
}

/** For a constant operand, whose `get` never resolves anything. */
const noResolve = (raw: unknown): unknown => raw;

/** The tested field's value in the first record; undefined when absent or when there is no record. */
export function firstRecordField(rows: readonly Fields[], field: string): Value | undefined {
  return rows.length === 0 ? undefined : getPath(rows[0]!, field);
}

/**
 * A range comparison (the query engine's ordering: numbers across Integer,
 * Float and Decimal, DateTimes by instant, also against RFC 3339 text).
 * False when the field is absent, null, or of a kind the value does not
 * order with. A constant null value is refused at save time.
 */
export function compileFieldComparison(type: ConditionType, value: unknown, path: string, ctx: CompileContext, accept: (order: number) => boolean): Condition {
  const { field, operand } = compileFieldOperand(value, path, ctx);
  if (operand.constant && operand.get(noResolve) === null) {
    throw invalidAt(`${path}.value`, `${type} needs a non-null value to compare with`);
  }
  return makeCondition(type, ({ rows, resolve }) => {
    const actual = firstRecordField(rows, field);
    if (actual === undefined || actual === null) return false;
    const order = compareValues(actual, operand.get(resolve));
    return order !== undefined && accept(order);
  });
}
