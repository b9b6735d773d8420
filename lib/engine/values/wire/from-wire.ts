/**
 * Wire values -> stored values.
 *
 * Accepts both typed wrappers (`{type, value}` with a known type name) and
 * bare values, from JSON or MessagePack. Bare RFC 3339 strings become
 * DateTime; everything else bare keeps its JSON type. Hostile keys
 * (`__proto__`, `constructor`, `prototype`) and over-deep nesting are rejected,
 * and every object is copied into a fresh plain object, so nothing decoded
 * from a request is stored by reference. No number is changed on the way:
 * an integer beyond ±(2^53 - 1) (a bigint from the JSON or MessagePack
 * reader) is kept exact when it fits 64 bits, and refused, naming the
 * field, when it does not or when the type asked for cannot hold it.
 */
import { InvalidInput } from '../../../errors.js';
import { normalizeDateTime } from '../datetime.js';
import { isPlainObject, isTypeName, Tagged, type Fields, type TypeName, type Value } from '../tagged.js';
import { dedupeValues } from '../compare.js';
import { bigintAsFloat, exactNumber, integerValue, isInt64, shownInteger } from '../int64.js';
import { isUuidShape } from '../uuid.js';
import { sharedString } from '../own-string.js';
import { isShareableArray, sharedArray } from '../shared-arrays.js';
import { storedArray, storedNumbers } from '../stored-array.js';

export const MAX_DEPTH = 64;
const HOSTILE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** False for a field name a record may not have (assertSafeKey throws for it). */
export function isSafeKey(key: string): boolean {
  return !HOSTILE_KEYS.has(key);
}

export function assertSafeKey(key: string, path: string): void {
  if (HOSTILE_KEYS.has(key)) throw new InvalidInput(`Forbidden field name '${key}' at ${path || 'top level'}`);
}

/** True when `value` is a `{type, value}` wrapper naming a known type. */
export function isTypedWrapper(value: unknown): value is { type: TypeName; value: unknown } {
  return isPlainObject(value) && 'type' in value && 'value' in value && isTypeName(value.type);
}

/** Converts one top-level field value from the wire. */
export function fieldFromWire(raw: unknown, path: string): Value {
  if (isTypedWrapper(raw)) return typedFromWire(raw.type, raw.value, path);
  return inferFromWire(raw, path, 0);
}

/** Converts a whole record body (top-level fields) from the wire. `id` is left to the caller. */
export function fieldsFromWire(body: unknown): Record<string, Value> {
  if (!isPlainObject(body)) throw new InvalidInput('Record must be a JSON object');
  const out: Record<string, Value> = {};
  for (const key of Object.keys(body)) {
    assertSafeKey(key, '');
    out[key] = fieldFromWire(body[key], key);
  }
  return out;
}

function inferFromWire(raw: unknown, path: string, depth: number): Value {
  if (typeof raw === 'string') {
    const dateTime = depth === 0 ? normalizeDateTime(raw) : undefined;
    return dateTime === undefined ? sharedString(raw) : new Tagged('DateTime', dateTime);
  }
  if (depth === 0 && raw instanceof Uint8Array) return new Tagged('Binary', copyBytes(raw));
  return rawFromWire(raw, path, depth);
}

/** A raw (untyped) nested value: JSON data copied into fresh frozen structures. */
export function rawFromWire(raw: unknown, path: string, depth: number): Value {
  if (depth > MAX_DEPTH) throw new InvalidInput(`Value nested deeper than ${MAX_DEPTH} levels at ${path}`);
  if (raw === null || raw === undefined) return null;
  switch (typeof raw) {
    case 'string':
      return sharedString(raw);
    case 'boolean':
      return raw;
    case 'number':
      if (!Number.isFinite(raw)) throw new InvalidInput(`Non-finite number at ${path}`);
      return raw;
    case 'bigint':
      return int64FromWire(raw, path);
    default:
      break;
  }
  if (raw instanceof Uint8Array) return copyBytes(raw);
  if (Array.isArray(raw)) {
    // A finite number is itself and needs no path, the common item (a vector's hundreds): a list of them is stored
    // as it is (storedNumbers makes the one copy), and the first other item starts a copy whose items are made over.
    let items: Value[] | undefined;
    for (let i = 0; i < raw.length; i++) {
      const item: unknown = raw[i];
      if (typeof item === 'number' && Number.isFinite(item)) continue;
      items ??= raw.slice() as Value[];
      items[i] = rawFromWire(item, `${path}[${i}]`, depth + 1);
    }
    if (items === undefined && raw.length > 0) return storedNumbers(raw as number[]);
    const list = items ?? [];
    return isShareableArray(list) ? sharedArray(list) : storedArray(list);
  }
  if (isPlainObject(raw)) {
    const out: Record<string, Value> = {};
    for (const key of Object.keys(raw)) {
      assertSafeKey(key, path);
      out[key] = rawFromWire(raw[key], `${path}.${key}`, depth + 1);
    }
    return Object.freeze(out);
  }
  throw new InvalidInput(`Unsupported value at ${path}`);
}

/** An exact integer from the wire as stored: a number when safe, else a bigint. Throws beyond 64 bits. */
function int64FromWire(big: bigint, path: string): number | bigint {
  if (!isInt64(big)) {
    throw new InvalidInput(
      `Integer ${shownInteger(big)} at '${path}' is outside the 64-bit signed range ` +
        '[-9223372036854775808, 9223372036854775807]; a float that large needs a fraction or an exponent (1e20)',
    );
  }
  return integerValue(big);
}

/** Bytes are kept as Buffers (a copy): JSON output relies on Buffer's toJSON marker to find them. */
function copyBytes(bytes: Uint8Array): Uint8Array {
  return Buffer.from(bytes);
}

function bad(type: TypeName, path: string, why: string): InvalidInput {
  return new InvalidInput(`Invalid ${type} value for field '${path}': ${why}`);
}

/** A float for a Float or Number value; an integer beyond 2^53 only when a float holds it exactly. */
function toNumber(type: TypeName, value: unknown, path: string): number {
  if (typeof value === 'bigint') {
    const approximate = bigintAsFloat(value);
    if (approximate === undefined)
      throw bad(
        type,
        path,
        `the integer ${shownInteger(value)} cannot be held exactly by a 64-bit float; use Integer or Decimal`,
      );
    return approximate;
  }
  if (typeof value !== 'number' || !Number.isFinite(value)) throw bad(type, path, 'expected a finite number');
  return value;
}

function integerFromWire(value: unknown, path: string): number | bigint {
  if (typeof value === 'bigint') {
    if (!isInt64(value)) throw bad('Integer', path, `${shownInteger(value)} is outside the 64-bit signed range`);
    return integerValue(value);
  }
  if (typeof value !== 'number' || !Number.isInteger(value)) throw bad('Integer', path, 'expected an integer');
  // A whole float beyond 2^53 may already be rounded; an exact integer that large arrives as an integer literal.
  if (!Number.isSafeInteger(value))
    throw bad('Integer', path, 'expected an integer sent exactly: a float beyond ±(2^53 - 1) may have been rounded');
  return value;
}

/** Converts a value whose type the client named explicitly. */
export function typedFromWire(type: TypeName, value: unknown, path: string): Value {
  switch (type) {
    case 'String':
      if (typeof value !== 'string') throw bad(type, path, 'expected a string');
      return sharedString(value);
    case 'Integer':
      return integerFromWire(value, path);
    case 'Float': {
      const number = toNumber(type, value, path);
      return Number.isSafeInteger(number) ? new Tagged('Float', number) : number;
    }
    case 'Number':
      return new Tagged('Number', toNumber(type, value, path));
    case 'Boolean':
      if (typeof value !== 'boolean') throw bad(type, path, 'expected true or false');
      return value;
    case 'Null':
      if (value !== null && value !== undefined) throw bad(type, path, 'expected null');
      return null;
    case 'Array':
      if (!Array.isArray(value)) throw bad(type, path, 'expected an array');
      return rawFromWire(value, path, 0);
    case 'Object':
      if (!isPlainObject(value)) throw bad(type, path, 'expected an object');
      return rawFromWire(value, path, 0);
    case 'DateTime':
      return dateTimeFromWire(value, path);
    case 'Decimal':
      return decimalFromWire(value, path);
    case 'UUID':
      if (typeof value !== 'string' || !isUuidShape(value))
        throw bad(
          type,
          path,
          'expected 8-4-4-4-12 letters or digits joined by hyphens, such as "123e4567-e89b-12d3-a456-426614174000"',
        );
      return new Tagged('UUID', value);
    case 'Vector':
      return vectorFromWire(value, path);
    case 'Set': {
      if (!Array.isArray(value)) throw bad(type, path, 'expected an array');
      const items = rawFromWire(value, path, 0) as readonly Value[];
      return new Tagged('Set', storedArray(dedupeValues(items)));
    }
    case 'Binary':
    case 'Bytes':
      return new Tagged(type, bytesFromWire(type, value, path));
    case 'Duration':
      return durationFromWire(value, path);
  }
}

function dateTimeFromWire(value: unknown, path: string): Tagged {
  if (typeof value === 'string') {
    const norm = normalizeDateTime(value);
    if (norm === undefined) throw bad('DateTime', path, 'expected an RFC 3339 string');
    return new Tagged('DateTime', norm);
  }
  // Epoch milliseconds; Date covers ±8.64e15 ms, and toISOString throws beyond it.
  if (typeof value === 'number' && Number.isFinite(value) && Math.abs(value) <= 8.64e15) {
    return new Tagged('DateTime', new Date(value).toISOString().replace('Z', '+00:00'));
  }
  throw bad('DateTime', path, 'expected an RFC 3339 string');
}

function decimalFromWire(value: unknown, path: string): Tagged {
  if (typeof value === 'number' && Number.isFinite(value)) return new Tagged('Decimal', String(value));
  if (typeof value === 'bigint') return new Tagged('Decimal', value.toString());
  if (typeof value === 'string' && DECIMAL.test(value.trim())) return new Tagged('Decimal', value.trim());
  throw bad('Decimal', path, 'expected a decimal string such as "12.34"');
}

function vectorFromWire(value: unknown, path: string): Tagged {
  if (!Array.isArray(value)) throw bad('Vector', path, 'expected an array of numbers');
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (typeof item !== 'number' || !Number.isFinite(item))
      throw bad('Vector', `${path}[${i}]`, 'expected a finite number');
  }
  return new Tagged('Vector', storedNumbers(value as number[]));
}

function bytesFromWire(type: 'Binary' | 'Bytes', value: unknown, path: string): Uint8Array {
  if (value instanceof Uint8Array) return copyBytes(value);
  if (typeof value === 'string') {
    if (!BASE64.test(value)) throw bad(type, path, 'expected base64 text or an array of bytes');
    return Buffer.from(value, value.includes('-') || value.includes('_') ? 'base64url' : 'base64');
  }
  if (Array.isArray(value)) {
    return Buffer.from(
      Uint8Array.from(value, (byte, index) => {
        if (typeof byte !== 'number' || !Number.isInteger(byte) || byte < 0 || byte > 255)
          throw bad(type, `${path}[${index}]`, 'expected a byte 0-255');
        return byte;
      }),
    );
  }
  throw bad(type, path, 'expected base64 text or an array of bytes');
}

function durationFromWire(value: unknown, path: string): Tagged {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return new Tagged('Duration', value);
  let secs: unknown, nanos: unknown;
  if (Array.isArray(value) && value.length === 2) [secs, nanos] = value;
  else if (isPlainObject(value)) ({ secs, nanos } = value);
  secs = exactNumber(secs);
  nanos = exactNumber(nanos);
  if (
    typeof secs === 'number' &&
    Number.isInteger(secs) &&
    secs >= 0 &&
    typeof nanos === 'number' &&
    Number.isInteger(nanos) &&
    nanos >= 0 &&
    nanos < 1e9
  ) {
    return new Tagged('Duration', Object.freeze({ secs, nanos }));
  }
  throw bad('Duration', path, 'expected milliseconds or {secs, nanos}');
}

export type { Fields };
