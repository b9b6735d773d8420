/**
 * The condition operators of protocol.md 2.4: the closed list, how each one's
 * operand is validated and converted, and how each one tests a field value.
 *
 * Operands go through `fieldFromWire`, so typed wrappers and RFC 3339 strings
 * compare as the stored values they denote. There is deliberately no Regex:
 * the real server rejects it and the clients removed it. This file knows
 * nothing about filter structure (filter.ts) or record paths (match.ts).
 */
import { InvalidInput } from '../../errors.js';
import { checkLimit, MAX_IN_VALUES } from '../input/limits.js';
import { compareValues, equalValues, fieldFromWire, isTypedWrapper, Tagged, type Value } from '../values/index.js';
import { kindOf, shown } from './describe-input.js';
import { ValueSet } from './value-set.js';

export const OPERATORS = [
  'Eq',
  'Ne',
  'Gt',
  'Gte',
  'Lt',
  'Lte',
  'In',
  'NotIn',
  'Contains',
  'StartsWith',
  'EndsWith',
  'Exists',
] as const;

export type Operator = (typeof OPERATORS)[number];

const OPERATOR_SET: ReadonlySet<string> = new Set(OPERATORS);

export function isOperator(raw: unknown): raw is Operator {
  return typeof raw === 'string' && OPERATOR_SET.has(raw);
}

/** Throws InvalidInput unless `raw` is one of OPERATORS (case-sensitive). */
export function parseOperator(raw: unknown, where: string): Operator {
  if (isOperator(raw)) return raw;
  const got = raw === undefined ? 'missing operator' : `Unknown operator ${shown(raw)}`;
  throw new InvalidInput(`${got} in ${where}; expected one of ${OPERATORS.join(', ')}`);
}

function needs(op: Operator, what: string, raw: unknown, where: string): InvalidInput {
  return new InvalidInput(`Operator '${op}' in ${where} needs ${what}, got ${kindOf(raw)}`);
}

/** Unwraps a `{type, value}` wrapper of the given type name; other input is returned as is. */
function unwrap(raw: unknown, type: string): unknown {
  return isTypedWrapper(raw) && raw.type === type ? raw.value : raw;
}

/**
 * Validates and converts the operand of `op` for a condition on `field`.
 * Eq/Ne accept anything (absent means null); range operators need a non-null
 * value; In/NotIn an array of at most MAX_IN_VALUES (converted element-wise);
 * Contains, StartsWith and EndsWith a string (kept as is, never turned into a
 * DateTime); Exists a boolean. Throws InvalidInput naming the operator and
 * `where`.
 */
export function parseOperand(op: Operator, raw: unknown, field: string, where: string): Value {
  switch (op) {
    case 'Eq':
    case 'Ne':
      return fieldFromWire(raw ?? null, field);
    case 'Gt':
    case 'Gte':
    case 'Lt':
    case 'Lte':
      if (raw === null || raw === undefined) throw needs(op, 'a non-null value', raw, where);
      return fieldFromWire(raw, field);
    case 'In':
    case 'NotIn': {
      const list = unwrap(unwrap(raw, 'Array'), 'Set');
      if (!Array.isArray(list)) throw needs(op, 'an array value', raw, where);
      checkLimit(list.length, MAX_IN_VALUES, `${where}.value`, 'values');
      return Object.freeze(list.map((item, i) => fieldFromWire(item, `${field}[${i}]`)));
    }
    case 'Contains':
    case 'StartsWith':
    case 'EndsWith': {
      const text = unwrap(raw, 'String');
      if (typeof text !== 'string') throw needs(op, 'a string value', raw, where);
      return text;
    }
    case 'Exists': {
      const flag = unwrap(raw, 'Boolean');
      if (typeof flag !== 'boolean') throw needs(op, 'a boolean value', raw, where);
      return flag;
    }
    default: {
      const never: never = op;
      throw new InvalidInput(`Unknown operator ${shown(never)} in ${where}`);
    }
  }
}

/** The elements of an array-like stored value (Array, Set, Vector), else undefined. */
export function elementsOf(value: Value | undefined): readonly Value[] | undefined {
  if (Array.isArray(value)) return value as readonly Value[];
  if (value instanceof Tagged && (value.type === 'Set' || value.type === 'Vector'))
    return value.value as readonly Value[];
  return undefined;
}

function ordered(actual: Value | undefined, operand: Value, test: (sign: number) => boolean): boolean {
  if (actual === undefined) return false;
  const order = compareValues(actual, operand);
  return order !== undefined && test(order);
}

/** In: the value is a member, or it is array-like and one of its elements is. */
function isIn(actual: Value | undefined, members: ValueSet): boolean {
  if (members.has(actual)) return true;
  const items = elementsOf(actual);
  return items !== undefined && items.some((e) => members.has(e));
}

function contains(actual: Value | undefined, needle: string): boolean {
  if (typeof actual === 'string') return actual.includes(needle);
  const items = elementsOf(actual);
  return items !== undefined && items.some((e) => equalValues(e, needle));
}

/**
 * Tests one operator against a field value (`undefined` = field missing).
 * REQUIRES: `operand` came from `parseOperand(op, ...)`; for In/NotIn,
 * `members` is `new ValueSet(operand)` (built here when not given, which
 * costs a pass over the list per call).
 */
export function testOperator(op: Operator, actual: Value | undefined, operand: Value, members?: ValueSet): boolean {
  switch (op) {
    case 'Eq':
      return equalValues(actual, operand);
    case 'Ne':
      return !equalValues(actual, operand);
    case 'Gt':
      return ordered(actual, operand, (c) => c > 0);
    case 'Gte':
      return ordered(actual, operand, (c) => c >= 0);
    case 'Lt':
      return ordered(actual, operand, (c) => c < 0);
    case 'Lte':
      return ordered(actual, operand, (c) => c <= 0);
    case 'In':
      return isIn(actual, members ?? new ValueSet(operand as readonly Value[]));
    case 'NotIn':
      return !isIn(actual, members ?? new ValueSet(operand as readonly Value[]));
    case 'Contains':
      return contains(actual, operand as string);
    case 'StartsWith':
      return typeof actual === 'string' && actual.startsWith(operand as string);
    case 'EndsWith':
      return typeof actual === 'string' && actual.endsWith(operand as string);
    case 'Exists':
      return (actual !== undefined) === operand;
    default: {
      const never: never = op;
      return never;
    }
  }
}
