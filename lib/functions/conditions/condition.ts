/**
 * The compiled form of a FunctionCondition (protocol.md 4.4) and the parts
 * every condition type is built from: the shape of one type's row, the
 * operand a Field* or Count* condition compares with, and the reading of a
 * condition's members.
 *
 * A definition's `{type, value}` is compiled once, at save time, into a
 * `Condition`: a frozen object with the wire type name and a `test` over the
 * working records. Values that hold placeholders (`{{name}}` text or
 * `{type: "Parameter", name}` references) are not resolved here: `test`
 * hands them to the caller's `resolve` callback at evaluation time.
 * Placeholder-free values are converted once, at compile time.
 */
import {
  assertSafeKey,
  fieldFromWire,
  isPlainObject,
  parseFieldPath,
  Tagged,
  type Fields,
  type Value,
} from '../../engine/index.js';
import { atPath, invalidAt, kindOfRaw } from '../definition-path.js';

export const CONDITION_TYPES = [
  'HasRecords',
  'FieldEquals',
  'FieldExists',
  'FieldGreaterThan',
  'FieldLessThan',
  'FieldGreaterThanOrEqual',
  'FieldLessThanOrEqual',
  'CountEquals',
  'CountGreaterThan',
  'CountLessThan',
  'And',
  'Or',
  'Not',
] as const;

export type ConditionType = (typeof CONDITION_TYPES)[number];

/**
 * Resolves a definition value that holds placeholders into the value to test
 * with, in wire form (typed wrappers allowed) or as an engine value. It gets
 * the value exactly as the definition spelled it (or as `prepareValue`
 * returned it at compile time, see compileCondition).
 */
export type ResolveValue = (raw: unknown) => unknown;

/** What a condition is evaluated against. */
export interface ConditionInput {
  /** The working records; Field* conditions look at the first one. */
  readonly rows: readonly Fields[];
  readonly resolve: ResolveValue;
}

/** A compiled condition. `test` may throw InvalidInput when a resolved placeholder is not a usable value. */
export interface Condition {
  readonly type: ConditionType;
  readonly test: (input: ConditionInput) => boolean;
}

/** Compiles a nested condition (And, Or, Not), one level deeper. */
export type CompileChild = (raw: unknown, path: string) => Condition;

/** Options of compileCondition that reach every condition type. */
export interface CompileContext {
  readonly child: CompileChild;
  /** Applied once, at compile time, to each value that holds placeholders; its result is what `resolve` receives. */
  readonly prepareValue: (raw: unknown, path: string) => unknown;
}

/**
 * One condition type: its wire name, whether it is a unit variant (no
 * `value`), and how its `value` compiles. `compile` throws InvalidInput
 * whose message starts with `path`.
 */
export interface ConditionKind {
  readonly type: ConditionType;
  readonly unit: boolean;
  readonly compile: (value: unknown, path: string, context: CompileContext) => Condition;
}

/** A frozen Condition. */
export function makeCondition(type: ConditionType, test: (input: ConditionInput) => boolean): Condition {
  return Object.freeze({ type, test });
}

/*
 * Members: a condition's `value` object is read by name, so a misspelt
 * member fails the save instead of being ignored.
 */

/**
 * `value` as an object holding only `allowed` members and every `required`
 * one. Throws InvalidInput starting with `path` otherwise.
 */
export function conditionMembers(
  value: unknown,
  path: string,
  allowed: readonly string[],
  required: readonly string[],
): Record<string, unknown> {
  if (!isPlainObject(value))
    throw invalidAt(path, `expected an object with ${allowed.join(', ')}, got ${kindOfRaw(value)}`);
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) throw invalidAt(path, `unknown member '${key}'; expected ${allowed.join(', ')}`);
  }
  for (const key of required) {
    if (!Object.hasOwn(value, key)) throw invalidAt(path, `missing member '${key}'`);
  }
  return value;
}

/** A literal dotted field path (no placeholders), with the engine's field-path rules. */
export function conditionField(raw: unknown, path: string): string {
  const field = atPath(path, () => parseFieldPath(raw, 'field'));
  if (field.includes('{{'))
    throw invalidAt(path, `'field' must name a field literally; placeholders are not substituted in field names`);
  return field;
}

/*
 * Operands: the value a Field* or Count* condition compares with.
 *
 * A definition value is either constant or holds placeholders. A placeholder
 * is a string containing `{{` (text substitution, `{{env.NAME}}` included)
 * or an object `{type: "Parameter", name: <string>}` anywhere inside the
 * value. A constant is converted to an engine value once, at compile time,
 * with the engine's wire rules (typed wrappers such as `{type: "DateTime",
 * value}`, exact 64-bit integers), so a bad constant fails the save. A value
 * with placeholders is handed to the caller's `resolve` at each evaluation
 * and converted then; a result that cannot be converted throws InvalidInput
 * naming the path (the run's step error).
 */

/** Nesting bound of a condition value, as for record values. */
const MAX_VALUE_DEPTH = 64;

/** The `resolve` to read a constant operand with: a constant's `get` never calls it. */
export const NO_RESOLVE: ResolveValue = (raw) => raw;

export interface Operand {
  /** True when the definition's value holds no placeholder (`get` then never calls `resolve`). */
  readonly constant: boolean;
  /** The value to compare with; calls `resolve` only when the definition's value holds placeholders. */
  readonly get: (resolve: ResolveValue) => Value;
}

/**
 * Compiles a definition value. Throws InvalidInput starting with `path` for a
 * hostile member name, nesting deeper than 64 levels, or a constant the
 * engine cannot store.
 */
export function compileOperand(raw: unknown, path: string, context: CompileContext): Operand {
  if (holdsPlaceholder(raw, path)) {
    const prepared = context.prepareValue(raw, path);
    return Object.freeze({ constant: false, get: (resolve: ResolveValue) => operandValue(resolve(prepared), path) });
  }
  const value = operandValue(raw, path);
  return Object.freeze({ constant: true, get: () => value });
}

/**
 * True when `raw` holds a placeholder. Also refuses `__proto__`,
 * `constructor` and `prototype` member names and over-deep nesting, so a
 * value given to `prepareValue` and `resolve` is as safe as a constant.
 */
export function holdsPlaceholder(raw: unknown, path: string, depth = 0): boolean {
  if (depth > MAX_VALUE_DEPTH) throw invalidAt(path, `value nested deeper than ${MAX_VALUE_DEPTH} levels`);
  if (typeof raw === 'string') return raw.includes('{{');
  let found = false;
  if (Array.isArray(raw)) {
    raw.forEach((item, i) => {
      found = holdsPlaceholder(item, `${path}[${i}]`, depth + 1) || found;
    });
    return found;
  }
  if (!isPlainObject(raw)) return false;
  if (raw.type === 'Parameter' && typeof raw.name === 'string') found = true;
  for (const key of Object.keys(raw)) {
    atPath(path, () => assertSafeKey(key, path));
    found = holdsPlaceholder(raw[key], `${path}.${key}`, depth + 1) || found;
  }
  return found;
}

/** A wire value (or an engine value a resolver returned) as an engine value; undefined counts as null. */
function operandValue(given: unknown, path: string): Value {
  if (given === undefined || given === null) return null;
  if (given instanceof Tagged) return given;
  return atPath(path, () => fieldFromWire(given, 'value'));
}
