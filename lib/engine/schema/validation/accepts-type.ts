/**
 * Which stored values a declared `field_type` accepts.
 *
 * Acceptance is wider than `typeOf(v) === field_type` because clients send
 * many types bare: an embedding as a plain number array, a UUID or a decimal
 * as a plain string, bytes as base64 text, a duration as milliseconds. Every
 * accepted value converts losslessly to the declared type with `coerceValue`.
 * Null is never accepted here except by Null; absence is `required`'s business.
 * A bigint (an Integer beyond 2^53) fits Integer and Decimal, and Float or
 * Number only when a float holds it exactly.
 */
import {
  bigintAsFloat,
  isPlainObject,
  isRfc3339,
  isUuidShape,
  Tagged,
  type TaggedType,
  type TypeName,
  type Value,
} from '../../values/index.js';

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** True when `value` may be stored in a field declared as `type`. */
export function acceptsType(type: TypeName, value: Value): boolean {
  switch (type) {
    case 'String':
      return typeof value === 'string';
    case 'Integer': {
      if (typeof value === 'bigint') return true;
      const number = numberOf(value);
      return number !== undefined && Number.isSafeInteger(number);
    }
    case 'Float':
    case 'Number':
      return numberOf(value) !== undefined || (typeof value === 'bigint' && bigintAsFloat(value) !== undefined);
    case 'Boolean':
      return typeof value === 'boolean';
    case 'Array':
      return Array.isArray(value) || isTagged(value, 'Set', 'Vector');
    case 'Object':
      return isPlainObject(value);
    case 'DateTime':
      return isTagged(value, 'DateTime') || (typeof value === 'string' && isRfc3339(value));
    case 'Decimal':
      return (
        isTagged(value, 'Decimal') ||
        numberOf(value) !== undefined ||
        typeof value === 'bigint' ||
        (typeof value === 'string' && DECIMAL.test(value))
      );
    case 'UUID':
      return isTagged(value, 'UUID') || (typeof value === 'string' && isUuidShape(value));
    case 'Vector':
      return isTagged(value, 'Vector') || (Array.isArray(value) && allFiniteNumbers(value));
    case 'Set':
      return isTagged(value, 'Set') || Array.isArray(value);
    case 'Binary':
    case 'Bytes':
      return isBytes(value);
    case 'Duration':
      return isTagged(value, 'Duration') || (isFiniteNumber(value) && value >= 0) || isSecsNanos(value);
    case 'Null':
      return value === null;
    default: {
      const never: never = type;
      return never;
    }
  }
}

/** The number held by a bare number or a Tagged Number/Float; undefined otherwise. */
export function numberOf(value: Value): number | undefined {
  if (isFiniteNumber(value)) return value;
  if (isTagged(value, 'Number', 'Float')) return (value as Tagged).value as number;
  return undefined;
}

function isTagged(value: Value, ...types: TaggedType[]): boolean {
  return value instanceof Tagged && types.includes(value.type);
}

/** Whether every item of `items` is a finite number: a loop of its own, so its loads see arrays of numbers alone. */
function allFiniteNumbers(items: readonly unknown[]): boolean {
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (typeof item !== 'number' || !Number.isFinite(item)) return false;
  }
  return true;
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function isBytes(value: Value): boolean {
  if (value instanceof Uint8Array || isTagged(value, 'Binary', 'Bytes')) return true;
  if (typeof value === 'string') return BASE64.test(value) || (BASE64URL.test(value) && value.length % 4 !== 1);
  return Array.isArray(value) && value.every((b) => Number.isInteger(b) && (b as number) >= 0 && (b as number) <= 255);
}

function isSecsNanos(value: Value): boolean {
  if (!isPlainObject(value)) return false;
  const keys = Object.keys(value);
  const { secs, nanos } = value as { secs?: unknown; nanos?: unknown };
  return (
    keys.length === 2 &&
    Number.isInteger(secs) &&
    (secs as number) >= 0 &&
    Number.isInteger(nanos) &&
    (nanos as number) >= 0 &&
    (nanos as number) < 1e9
  );
}
