/**
 * Record update actions (protocol.md 2.3 `/action/{action}` and
 * `/update/sequence`): pure functions from a record's fields to new fields.
 *
 * Arithmetic keeps the stored numeric type (an Integer stays Integer while
 * whole, Float/Number keep their tag, Decimal keeps its string form and
 * scale); array actions keep a Set or Vector tag. Integer with Integer is
 * exact: a result beyond ±(2^53 - 1) is computed with BigInt and stays an
 * Integer, one beyond 64 bits is refused, and an Integer beyond 2^53 never
 * mixes with a float (the float would round it). Inputs are never mutated.
 * Actions address top-level fields only (a dotted name must be an existing
 * top-level key) and never the system fields `id` and `ttl` (a ttl is set
 * with a merge update). Messages follow the
 * real server: "Failed to apply action 'increment': field not numeric".
 */
import { InvalidInput } from '../../errors.js';
import { checkLimit, MAX_ACTION_STEPS } from '../input/limits.js';
import {
  assertSafeKey,
  equalValues,
  fieldFromWire,
  integerValue,
  isInt64,
  isPlainObject,
  isTypedWrapper,
  rawFromWire,
  storedArray,
  Tagged,
  type Fields,
  type Value,
} from '../values/index.js';

export const UPDATE_ACTIONS = [
  'increment',
  'decrement',
  'multiply',
  'divide',
  'modulo',
  'push',
  'pop',
  'shift',
  'unshift',
  'remove',
  'append',
  'clear',
] as const;

export type UpdateAction = (typeof UPDATE_ACTIONS)[number];

export interface ActionStep {
  readonly action: UpdateAction;
  readonly field: string;
  readonly value: unknown;
}

const ACTION_SET: ReadonlySet<string> = new Set(UPDATE_ACTIONS);

export function isUpdateAction(raw: unknown): raw is UpdateAction {
  return typeof raw === 'string' && ACTION_SET.has(raw);
}

/** Throws InvalidInput "Unknown update action 'x'; expected one of ..." unless `raw` is an action. */
export function parseUpdateAction(raw: unknown, where = ''): UpdateAction {
  if (isUpdateAction(raw)) return raw;
  const name = typeof raw === 'string' ? raw.slice(0, 40) : String(raw);
  const at = where ? ` (at ${where})` : '';
  throw new InvalidInput(`Unknown update action '${name}'; expected one of ${UPDATE_ACTIONS.join(', ')}${at}`);
}

function fail(action: UpdateAction, why: string): InvalidInput {
  return new InvalidInput(`Failed to apply action '${action}': ${why}`);
}

function checkField(action: UpdateAction, field: unknown): string {
  if (typeof field !== 'string' || field.length === 0) throw fail(action, 'field name must be a non-empty string');
  if (field === 'id' || field === 'ttl') throw fail(action, `field '${field}' cannot be modified`);
  assertSafeKey(field, 'top level');
  return field;
}

type NumKind = 'Integer' | 'Float' | 'Number' | 'Decimal';
/** A numeric operand; `n` is a bigint only for an Integer beyond ±(2^53 - 1). */
interface Num {
  readonly kind: NumKind;
  readonly n: number | bigint;
  readonly scale: number;
}

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** Digits after the decimal point of a decimal literal ("1.50" → 2, "1e-3" → 3). */
function scaleOf(text: string): number {
  const match = /^[+-]?\d*(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  return match ? Math.max(0, (match[1]?.length ?? 0) - Number(match[2] ?? 0)) : 0;
}

function numOf(value: Value | undefined): Num | undefined {
  if (typeof value === 'number')
    return { kind: Number.isSafeInteger(value) ? 'Integer' : 'Float', n: value, scale: scaleOf(String(value)) };
  if (typeof value === 'bigint') return { kind: 'Integer', n: value, scale: 0 };
  if (!(value instanceof Tagged)) return undefined;
  if (value.type === 'Float' || value.type === 'Number')
    return { kind: value.type, n: value.value as number, scale: scaleOf(String(value.value)) };
  if (value.type === 'Decimal')
    return { kind: 'Decimal', n: Number(value.value), scale: scaleOf(value.value as string) };
  return undefined;
}

function operandOf(action: UpdateAction, raw: unknown, field: string): Num {
  if ((raw === null || raw === undefined) && (action === 'increment' || action === 'decrement')) {
    return { kind: 'Integer', n: 1, scale: 0 };
  }
  if (typeof raw === 'string' && DECIMAL.test(raw.trim()))
    return { kind: 'Decimal', n: Number(raw), scale: scaleOf(raw) };
  const numeric = typeof raw === 'number' || typeof raw === 'bigint' || isTypedWrapper(raw);
  const num = numeric ? numOf(fieldFromWire(raw, field)) : undefined;
  if (!num || (typeof num.n === 'number' && !Number.isFinite(num.n))) throw fail(action, 'value not numeric');
  return num;
}

function arithmetic(action: UpdateAction, current: Value | undefined, raw: unknown, field: string): Value {
  const counter = action === 'increment' || action === 'decrement';
  const operand = operandOf(action, raw, field);
  const base = current === undefined && counter ? { ...operand, n: 0 } : numOf(current);
  if (!base) throw fail(action, 'field not numeric');
  if ((action === 'divide' || action === 'modulo') && operand.n === 0) throw fail(action, 'division by zero');
  if (typeof base.n === 'bigint' || typeof operand.n === 'bigint') {
    if (base.kind !== 'Integer' || operand.kind !== 'Integer')
      throw fail(action, 'an Integer beyond ±(2^53 - 1) only combines with Integers');
    return exactIntegerArithmetic(action, BigInt(base.n), BigInt(operand.n));
  }
  let result: number;
  let scale: number | undefined = Math.max(base.scale, operand.scale);
  switch (action) {
    case 'increment':
      result = base.n + operand.n;
      break;
    case 'decrement':
      result = base.n - operand.n;
      break;
    case 'multiply':
      result = base.n * operand.n;
      scale = base.scale + operand.scale;
      break;
    case 'divide':
      result = base.n / operand.n;
      scale = undefined;
      break;
    default:
      result = base.n % operand.n;
      break;
  }
  if (!Number.isFinite(result)) throw fail(action, 'result out of range');
  // Integer with Integer past 2^53 would have been rounded: redo it exactly.
  if (base.kind === 'Integer' && operand.kind === 'Integer' && action !== 'divide' && !Number.isSafeInteger(result)) {
    return exactIntegerArithmetic(action, BigInt(base.n), BigInt(operand.n));
  }
  return numberValue(base.kind, result, scale);
}

/** Integer arithmetic in BigInt; the result must fit 64 bits, and a quotient must be whole. */
function exactIntegerArithmetic(action: UpdateAction, left: bigint, right: bigint): Value {
  let result: bigint;
  switch (action) {
    case 'increment':
      result = left + right;
      break;
    case 'decrement':
      result = left - right;
      break;
    case 'multiply':
      result = left * right;
      break;
    case 'modulo':
      result = left % right;
      break;
    default:
      if (left % right !== 0n)
        throw fail(action, 'the quotient is not whole, and an Integer beyond ±(2^53 - 1) has no exact fraction');
      result = left / right;
      break;
  }
  if (!isInt64(result)) throw fail(action, 'result out of the 64-bit integer range');
  return integerValue(result);
}

function numberValue(kind: NumKind, result: number, scale: number | undefined): Value {
  switch (kind) {
    case 'Integer':
      return result;
    case 'Float':
      return Number.isInteger(result) ? new Tagged('Float', result) : result;
    case 'Number':
      return new Tagged('Number', result);
    case 'Decimal': {
      const text =
        scale === undefined || Math.abs(result) >= 1e21 ? String(result) : result.toFixed(Math.min(scale, 20));
      return new Tagged('Decimal', text);
    }
  }
}

interface Seq {
  readonly items: readonly Value[];
  readonly tag?: 'Set' | 'Vector';
}

function seqOf(action: UpdateAction, current: Value | undefined, create: boolean): Seq {
  if (current === undefined && create) return { items: [] };
  if (Array.isArray(current)) return { items: current as readonly Value[] };
  if (current instanceof Tagged && (current.type === 'Set' || current.type === 'Vector')) {
    return { items: current.value as readonly Value[], tag: current.type };
  }
  throw fail(action, 'field not an array');
}

function seqValue(seq: Seq, items: Value[]): Value {
  const stored = storedArray(items);
  return seq.tag ? new Tagged(seq.tag, stored) : stored;
}

function element(action: UpdateAction, seq: Seq, raw: unknown, field: string): Value {
  const value = rawFromWire(raw, field, 1);
  if (seq.tag === 'Vector' && (typeof value !== 'number' || !Number.isFinite(value)))
    throw fail(action, 'value not numeric');
  return value;
}

function addElement(action: 'push' | 'unshift', current: Value | undefined, raw: unknown, field: string): Value {
  const seq = seqOf(action, current, true);
  const value = element(action, seq, raw, field);
  if (seq.tag === 'Set' && seq.items.some((e) => equalValues(e, value))) return current!;
  return seqValue(seq, action === 'push' ? [...seq.items, value] : [value, ...seq.items]);
}

function removeElements(current: Value | undefined, raw: unknown, field: string): Value {
  const seq = seqOf('remove', current, false);
  const bare = rawFromWire(raw, field, 1);
  const typed = fieldFromWire(raw, field);
  return seqValue(
    seq,
    seq.items.filter((e) => !equalValues(e, bare) && !equalValues(e, typed)),
  );
}

function append(current: Value | undefined, raw: unknown): Value {
  if (current !== undefined && typeof current !== 'string') throw fail('append', 'field not a string');
  const suffix = isTypedWrapper(raw) && raw.type === 'String' ? raw.value : raw;
  if (typeof suffix !== 'string') throw fail('append', 'value not a string');
  return (current ?? '') + suffix;
}

function clear(current: Value | undefined): Value {
  if (typeof current === 'string') return '';
  if (Array.isArray(current)) return Object.freeze([]);
  if (current instanceof Tagged && (current.type === 'Set' || current.type === 'Vector')) {
    return new Tagged(current.type, Object.freeze([]));
  }
  return null;
}

function compute(action: UpdateAction, current: Value | undefined, value: unknown, field: string): Value {
  switch (action) {
    case 'increment':
    case 'decrement':
    case 'multiply':
    case 'divide':
    case 'modulo':
      return arithmetic(action, current, value, field);
    case 'push':
    case 'unshift':
      return addElement(action, current, value, field);
    case 'pop':
    case 'shift': {
      const seq = seqOf(action, current, false);
      return seqValue(seq, action === 'pop' ? seq.items.slice(0, -1) : seq.items.slice(1));
    }
    case 'remove':
      return removeElements(current, value, field);
    case 'append':
      return append(current, value);
    case 'clear':
      return clear(current);
    default: {
      const never: never = action;
      return never;
    }
  }
}

/**
 * Applies one action to top-level `field` and returns a NEW fields object
 * (key order kept, other fields shared). `fields` is not modified.
 * Missing fields: increment/decrement start from 0, push/unshift/append
 * create the field, clear sets it to null; the others fail.
 * Throws InvalidInput for an unknown action, a bad, `id` or `ttl` field name, a
 * type mismatch ("field not numeric", "field not an array", "field not a
 * string", "value not numeric", ...) or "division by zero".
 */
export function applyUpdateAction(
  fields: Fields,
  action: string,
  field: string,
  value: unknown,
): Record<string, Value> {
  const act = parseUpdateAction(action);
  const name = checkField(act, field);
  if (name.includes('.') && !Object.hasOwn(fields, name))
    throw fail(act, `nested field paths are not supported ('${name}')`);
  const current = Object.hasOwn(fields, name) ? fields[name] : undefined;
  return { ...fields, [name]: compute(act, current, value, name) };
}

/**
 * Applies `steps` in order, all or nothing: the first failing step throws and
 * no partial result escapes. Returns a new fields object.
 */
export function applyActionSequence(fields: Fields, steps: readonly ActionStep[]): Record<string, Value> {
  let out: Record<string, Value> = { ...fields };
  for (const step of steps) out = applyUpdateAction(out, step.action, step.field, step.value);
  return out;
}

function parseStep(raw: unknown, index: number): ActionStep {
  const where = `sequence[${index}]`;
  let action: unknown, field: unknown, value: unknown;
  if (Array.isArray(raw) && (raw.length === 2 || raw.length === 3)) [action, field, value] = raw;
  else if (isPlainObject(raw) && Object.keys(raw).every((k) => k === 'action' || k === 'field' || k === 'value')) {
    ({ action, field, value } = raw);
  } else {
    throw new InvalidInput(`Invalid ${where}: expected an [action, field, value] triple or {action, field, value}`);
  }
  const act = parseUpdateAction(action, where);
  if (typeof field !== 'string' || field.length === 0) {
    throw new InvalidInput(`Invalid ${where}: field must be a non-empty string`);
  }
  checkField(act, field);
  return Object.freeze({ action: act, field, value: value ?? null });
}

/**
 * Parses an action-sequence body: an array of `[action, field, value]`
 * triples (value may be omitted) or `{action, field, value}` objects, at
 * most MAX_ACTION_STEPS of them. An empty array is a valid no-op. Validates actions and field names only;
 * value checks happen when the step is applied.
 */
export function parseActionSequence(raw: unknown): ActionStep[] {
  if (!Array.isArray(raw)) {
    throw new InvalidInput('Invalid action sequence: expected an array of [action, field, value] triples');
  }
  checkLimit(raw.length, MAX_ACTION_STEPS, 'sequence', 'steps');
  return raw.map(parseStep);
}
