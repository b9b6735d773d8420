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
import { bigintAsFloat, isPlainObject, isRfc3339, isUuidShape, Tagged, type TaggedType, type TypeName, type Value } from '../../values/index.js';

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** True when `v` may be stored in a field declared as `type`. */
export function acceptsType(type: TypeName, v: Value): boolean {
  switch (type) {
    case 'String': return typeof v === 'string';
    case 'Integer': {
      if (typeof v === 'bigint') return true;
      const n = numberOf(v);
      return n !== undefined && Number.isSafeInteger(n);
    }
    case 'Float':
    case 'Number': return numberOf(v) !== undefined || (typeof v === 'bigint' && bigintAsFloat(v) !== undefined);
    case 'Boolean': return typeof v === 'boolean';
    case 'Array': return Array.isArray(v) || isTagged(v, 'Set', 'Vector');
    case 'Object': return isPlainObject(v);
    case 'DateTime': return isTagged(v, 'DateTime') || (typeof v === 'string' && isRfc3339(v));
    case 'Decimal': return isTagged(v, 'Decimal') || numberOf(v) !== undefined || typeof v === 'bigint' || (typeof v === 'string' && DECIMAL.test(v));
    case 'UUID': return isTagged(v, 'UUID') || (typeof v === 'string' && isUuidShape(v));
    case 'Vector': return isTagged(v, 'Vector') || (Array.isArray(v) && v.every(isFiniteNumber));
    case 'Set': return isTagged(v, 'Set') || Array.isArray(v);
    case 'Binary':
    case 'Bytes': return isBytes(v);
    case 'Duration': return isTagged(v, 'Duration') || (isFiniteNumber(v) && v >= 0) || isSecsNanos(v);
    case 'Null': return v === null;
    default: {
      const never: never = type;
      return never;
    }
  }
}

/** The number held by a bare number or a Tagged Number/Float; undefined otherwise. */
export function numberOf(v: Value): number | undefined {
  if (isFiniteNumber(v)) return v;
  if (isTagged(v, 'Number', 'Float')) return (v as Tagged).value as number;
  return undefined;
}

function isTagged(v: Value, ...types: TaggedType[]): boolean {
  return v instanceof Tagged && types.includes(v.type);
}

function isFiniteNumber(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

function isBytes(v: Value): boolean {
  if (v instanceof Uint8Array || isTagged(v, 'Binary', 'Bytes')) return true;
  if (typeof v === 'string') return BASE64.test(v) || (BASE64URL.test(v) && v.length % 4 !== 1);
  return Array.isArray(v) && v.every((b) => Number.isInteger(b) && (b as number) >= 0 && (b as number) <= 255);
}

function isSecsNanos(v: Value): boolean {
  if (!isPlainObject(v)) return false;
  const keys = Object.keys(v);
  const { secs, nanos } = v as { secs?: unknown; nanos?: unknown };
  return keys.length === 2 && Number.isInteger(secs) && (secs as number) >= 0
    && Number.isInteger(nanos) && (nanos as number) >= 0 && (nanos as number) < 1e9;
}
