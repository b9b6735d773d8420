/**
 * LOCAL ADAPTER, replaced at merge by F-pure's `lib/functions/conditions/`
 * (same two functions, same signatures): the If step imports these two
 * names only. Evaluates a FunctionCondition (protocol.md 4.4) against the
 * working records; field tests look at the first record.
 */
import { InvalidInput } from '../../../errors.js';
import { compareValues, equalValues, fieldFromWire, isPlainObject, type Value } from '../../../engine/index.js';
import { isHostileName, type TemplateScope } from '../../templates/index.js';
import type { Row } from '../step.js';

export type Condition =
  | { readonly t: 'has' }
  | { readonly t: 'count'; readonly op: 'eq' | 'gt' | 'lt'; readonly n: number }
  | { readonly t: 'field'; readonly op: 'eq' | 'exists' | 'gt' | 'lt' | 'gte' | 'lte'; readonly path: readonly string[]; readonly value?: Value }
  | { readonly t: 'all' | 'any'; readonly of: readonly Condition[] }
  | { readonly t: 'not'; readonly of: Condition };

const FIELD_OPS: Record<string, 'eq' | 'exists' | 'gt' | 'lt' | 'gte' | 'lte'> = {
  FieldEquals: 'eq', FieldExists: 'exists', FieldGreaterThan: 'gt', FieldLessThan: 'lt',
  FieldGreaterThanOrEqual: 'gte', FieldLessThanOrEqual: 'lte',
};
const COUNT_OPS: Record<string, 'eq' | 'gt' | 'lt'> = { CountEquals: 'eq', CountGreaterThan: 'gt', CountLessThan: 'lt' };

export function compileCondition(raw: unknown, path: string, depth = 0): Condition {
  if (depth > 32) throw new InvalidInput(`${path}: conditions nested too deep`);
  if (!isPlainObject(raw) || typeof raw.type !== 'string') throw new InvalidInput(`${path}: a condition must be an object with a 'type'`);
  const value = isPlainObject(raw.value) ? raw.value : {};
  const type = raw.type;
  if (type === 'HasRecords') return { t: 'has' };
  if (Object.hasOwn(COUNT_OPS, type)) {
    if (typeof value.count !== 'number') throw new InvalidInput(`${path}.value.count: must be a number`);
    return { t: 'count', op: COUNT_OPS[type]!, n: value.count };
  }
  if (Object.hasOwn(FIELD_OPS, type)) {
    if (typeof value.field !== 'string' || value.field === '') throw new InvalidInput(`${path}.value.field: must be a non-empty string`);
    const segments = value.field.split('.');
    if (segments.some((s) => s === '' || isHostileName(s))) throw new InvalidInput(`${path}.value.field: bad field path '${value.field}'`);
    const op = FIELD_OPS[type]!;
    return op === 'exists' ? { t: 'field', op, path: segments } : { t: 'field', op, path: segments, value: fieldFromWire(value.value ?? null, `${path}.value.value`) };
  }
  if (type === 'And' || type === 'Or') {
    if (!Array.isArray(value.conditions)) throw new InvalidInput(`${path}.value.conditions: must be an array of conditions`);
    return { t: type === 'And' ? 'all' : 'any', of: value.conditions.map((c, i) => compileCondition(c, `${path}.value.conditions[${i}]`, depth + 1)) };
  }
  if (type === 'Not') return { t: 'not', of: compileCondition(value.condition, `${path}.value.condition`, depth + 1) };
  throw new InvalidInput(`${path}: unknown condition type '${type}'`);
}

export function evaluateCondition(c: Condition, rows: readonly Row[], scope: TemplateScope): boolean {
  switch (c.t) {
    case 'has': return rows.length > 0;
    case 'count': return c.op === 'eq' ? rows.length === c.n : c.op === 'gt' ? rows.length > c.n : rows.length < c.n;
    case 'all': return c.of.every((x) => evaluateCondition(x, rows, scope));
    case 'any': return c.of.some((x) => evaluateCondition(x, rows, scope));
    case 'not': return !evaluateCondition(c.of, rows, scope);
    case 'field': {
      const v = fieldOf(rows[0], c.path);
      if (c.op === 'exists') return v !== undefined;
      if (c.op === 'eq') return c.value === null ? v === undefined || v === null : equalValues(v, c.value);
      const order = compareValues(v, c.value);
      if (order === undefined) return false;
      return c.op === 'gt' ? order > 0 : c.op === 'lt' ? order < 0 : c.op === 'gte' ? order >= 0 : order <= 0;
    }
  }
}

function fieldOf(row: Row | undefined, path: readonly string[]): Value | undefined {
  let cur: Value | undefined = row;
  for (const key of path) {
    if (!isPlainObject(cur) || !Object.hasOwn(cur, key)) return undefined;
    cur = (cur as Row)[key];
  }
  return cur;
}
