/**
 * The shared part of the Count* conditions: `{count}`, a non-negative
 * integer compared with the number of working records. A constant count is
 * checked at save time; a placeholder count when it is resolved.
 */
import { Tagged, type Value } from '../../../engine/index.js';
import { invalidAt, kindOfRaw } from '../../definition-path.js';
import { makeCondition, type CompileContext, type Condition, type ConditionType, type ResolveValue } from '../condition.js';
import { conditionMembers } from '../members.js';
import { compileOperand } from '../operand.js';

/** Compiles `{count}` into a condition that tests `accept(rows.length, count)`. */
export function compileCountCondition(type: ConditionType, value: unknown, path: string, ctx: CompileContext, accept: (length: number, count: number) => boolean): Condition {
  const members = conditionMembers(value, path, ['count'], ['count']);
  const where = `${path}.count`;
  const operand = compileOperand(members.count, where, ctx);
  if (operand.constant) {
    const count = countOf(operand.get(noResolve), where);
    return makeCondition(type, ({ rows }) => accept(rows.length, count));
  }
  return makeCondition(type, ({ rows, resolve }) => accept(rows.length, countOf(operand.get(resolve), where)));
}

const noResolve: ResolveValue = (raw) => raw;

/** A count as a number; bigints are beyond any record count and compare as such. */
function countOf(v: Value, where: string): number {
  const n = v instanceof Tagged && (v.type === 'Float' || v.type === 'Number') ? v.value : v;
  if (typeof n === 'bigint' && n > 0n) return Number.MAX_SAFE_INTEGER;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) throw invalidAt(where, `expected a non-negative integer, got ${kindOfRaw(n)}${typeof n === 'number' ? ` ${n}` : ''}`);
  return n;
}
