/**
 * Equality and ordering of stored values, across their wire spellings.
 *
 * Numbers compare numerically whatever their type (Integer, Float, Number,
 * Decimal), and exactly: a bigint Integer and a float are compared as the
 * mathematical values they hold (JS relational operators on a bigint and a
 * number do that), so 2^53 + 1 is above the float 2^53 and an Integer 2^60
 * equals a Float 2^60; `hashKey` agrees. DateTimes by instant, also
 * against RFC 3339 strings; UUIDs as their strings. Values of unrelated
 * kinds are incomparable: `compareValues` returns undefined and range
 * conditions on them are false.
 */
import { dateTimeOrderKey, normalizeDateTime } from './datetime.js';
import { integerValue } from './int64.js';
import { isPlainObject, Tagged, type SecsNanos, type Value } from './tagged.js';

type Scalar =
  | { k: 'null' }
  | { k: 'bool'; v: boolean }
  | { k: 'num'; v: number | bigint }
  | { k: 'str'; v: string }
  | { k: 'date'; v: number; s: string }
  | { k: 'bytes'; v: Uint8Array }
  | { k: 'list'; v: readonly Value[] }
  | { k: 'obj'; v: { readonly [key: string]: Value } };

const RANK: Record<Scalar['k'], number> = { null: 0, bool: 1, num: 2, str: 3, date: 4, bytes: 5, list: 6, obj: 7 };

export function durationMillis(duration: number | SecsNanos): number {
  return typeof duration === 'number' ? duration : duration.secs * 1000 + duration.nanos / 1e6;
}

function scalarOf(value: Value | undefined): Scalar {
  if (value === null || value === undefined) return { k: 'null' };
  if (value instanceof Tagged) {
    switch (value.type) {
      case 'DateTime':
        return { k: 'date', v: dateTimeOrderKey(value.value as string), s: value.value as string };
      case 'Decimal':
        return { k: 'num', v: decimalNumber(value.value as string) };
      case 'Number':
      case 'Float':
        return { k: 'num', v: value.value as number };
      case 'UUID':
        return { k: 'str', v: value.value as string };
      case 'Duration':
        return { k: 'num', v: durationMillis(value.value as number | SecsNanos) };
      case 'Binary':
      case 'Bytes':
        return { k: 'bytes', v: value.value as Uint8Array };
      case 'Vector':
      case 'Set':
        return { k: 'list', v: value.value as readonly Value[] };
    }
  }
  switch (typeof value) {
    case 'boolean':
      return { k: 'bool', v: value };
    case 'number':
    case 'bigint':
      return { k: 'num', v: value };
    case 'string':
      return { k: 'str', v: value };
    default:
      break;
  }
  if (value instanceof Uint8Array) return { k: 'bytes', v: value };
  if (Array.isArray(value)) return { k: 'list', v: value };
  return { k: 'obj', v: value as { readonly [key: string]: Value } };
}

const BIG_INTEGER_TEXT = /^[+-]?\d{16,400}$/;

/** A Decimal's numeric value; a whole one beyond 2^53 stays exact (a bigint) so it compares with Integers exactly. */
function decimalNumber(text: string): number | bigint {
  return BIG_INTEGER_TEXT.test(text) ? integerValue(BigInt(text)) : Number(text);
}

/** Exact equality of two numeric values, also between a bigint and a number. */
function sameNumber(left: number | bigint, right: number | bigint): boolean {
  // Loose equality compares a bigint and a number exactly, as mathematical values.
  return typeof left === typeof right ? left === right : left == right;
}

/** A date and a string compare as dates when the string is an RFC 3339 instant. */
function alignDates(left: Scalar, right: Scalar): [Scalar, Scalar] {
  if (left.k === 'date' && right.k === 'str') {
    const normalized = normalizeDateTime(right.v);
    if (normalized !== undefined) return [left, { k: 'date', v: dateTimeOrderKey(normalized), s: normalized }];
  }
  if (left.k === 'str' && right.k === 'date') {
    const [rightAligned, leftAligned] = alignDates(right, left);
    return [leftAligned, rightAligned];
  }
  return [left, right];
}

/** True when both are plain strings, numbers, bigints or booleans of the same JavaScript type. */
function samePrimitive(left: Value | undefined, right: Value | undefined): boolean {
  const type = typeof left;
  return type === typeof right && (type === 'string' || type === 'number' || type === 'bigint' || type === 'boolean');
}

export function equalValues(left: Value | undefined, right: Value | undefined): boolean {
  // The inner loop of a scan: two primitives of one type compare as below without building scalars.
  if (samePrimitive(left, right)) return left === right;
  const [leftScalar, rightScalar] = alignDates(scalarOf(left), scalarOf(right));
  if (leftScalar.k !== rightScalar.k) return false;
  switch (leftScalar.k) {
    case 'null':
      return true;
    case 'num':
      return sameNumber(leftScalar.v, (rightScalar as typeof leftScalar).v);
    case 'bool':
    case 'str':
      return leftScalar.v === (rightScalar as typeof leftScalar).v;
    case 'date':
      return leftScalar.v === (rightScalar as typeof leftScalar).v;
    case 'bytes':
      return Buffer.compare(leftScalar.v, (rightScalar as typeof leftScalar).v) === 0;
    case 'list': {
      const rightList = (rightScalar as typeof leftScalar).v;
      return leftScalar.v.length === rightList.length && leftScalar.v.every((e, i) => equalValues(e, rightList[i]));
    }
    case 'obj': {
      const rightObject = (rightScalar as typeof leftScalar).v;
      const keys = Object.keys(leftScalar.v);
      return (
        keys.length === Object.keys(rightObject).length &&
        keys.every((k) => k in rightObject && equalValues(leftScalar.v[k], rightObject[k]))
      );
    }
  }
}

/**
 * A hash key for `equalValues` on scalars: two scalars with the same key are
 * equal, and equal scalars of one kind share their key. Undefined for lists
 * and objects, which only `equalValues` can compare. The one equality across
 * kinds, a DateTime and an RFC 3339 string naming the same instant, is left
 * to the caller (see query/value-set.ts).
 */
export function equalityKey(value: Value | undefined): string | undefined {
  const scalar = scalarOf(value);
  switch (scalar.k) {
    case 'null':
      return 'n';
    case 'bool':
      return scalar.v ? 't' : 'f';
    case 'num':
      return Number.isNaN(scalar.v) ? undefined : 'd' + scalar.v;
    case 'str':
      return 's' + scalar.v;
    case 'date':
      return 'D' + scalar.v;
    case 'bytes':
      return 'b' + Buffer.from(scalar.v.buffer, scalar.v.byteOffset, scalar.v.byteLength).toString('base64');
    case 'list':
    case 'obj':
      return undefined;
  }
}

/** Orders two values of comparable kinds; undefined when the kinds are unrelated. */
export function compareValues(left: Value | undefined, right: Value | undefined): number | undefined {
  if (samePrimitive(left, right)) {
    if (typeof left === 'boolean') return Number(left) - Number(right);
    const l = left as string | number | bigint;
    const r = right as string | number | bigint;
    return l < r ? -1 : l > r ? 1 : 0;
  }
  const [leftScalar, rightScalar] = alignDates(scalarOf(left), scalarOf(right));
  if (leftScalar.k !== rightScalar.k) return undefined;
  switch (leftScalar.k) {
    case 'null':
      return 0;
    case 'bool':
      return Number(leftScalar.v) - Number((rightScalar as typeof leftScalar).v);
    case 'num':
    case 'date': {
      const rightNumber = (rightScalar as typeof leftScalar).v;
      return leftScalar.v < rightNumber ? -1 : leftScalar.v > rightNumber ? 1 : 0;
    }
    case 'str': {
      const rightText = (rightScalar as typeof leftScalar).v;
      return leftScalar.v < rightText ? -1 : leftScalar.v > rightText ? 1 : 0;
    }
    case 'bytes':
      return Buffer.compare(leftScalar.v, (rightScalar as typeof leftScalar).v);
    case 'list':
    case 'obj':
      return equalValues(left, right) ? 0 : undefined;
  }
}

/** Total order for sorting: incomparable kinds are ordered by kind (null first). */
export function sortCompare(left: Value | undefined, right: Value | undefined): number {
  const order = compareValues(left, right);
  if (order !== undefined) return order;
  const [leftScalar, rightScalar] = alignDates(scalarOf(left), scalarOf(right));
  return RANK[leftScalar.k] - RANK[rightScalar.k];
}

/** Removes duplicates (by `equalValues`), keeping first occurrences in order. */
export function dedupeValues(items: readonly Value[]): Value[] {
  const out: Value[] = [];
  for (const item of items) if (!out.some((o) => equalValues(o, item))) out.push(item);
  return out;
}

/**
 * The hash text of a number: equal numbers give equal text whatever their
 * representation. A whole float beyond 2^53 is written with all its exact
 * digits (String() gives the shortest digits that round-trip, "1152921504606847000"
 * for 2^60, or an exponent from 1e21), so a Float 2^60 and an Integer bigint
 * 2^60 share a key, and the bigint 1152921504606847000 does not.
 */
function numberKey(number: number | bigint): string {
  return typeof number === 'number' && Number.isInteger(number) && !Number.isSafeInteger(number)
    ? BigInt(number).toString()
    : String(number);
}

/** A string key usable in a Map for hash-style equality (distinct, unique and hash indexes, joins). */
export function hashKey(value: Value | undefined): string {
  const scalar = scalarOf(value);
  switch (scalar.k) {
    case 'null':
      return 'n';
    case 'bool':
      return scalar.v ? 't' : 'f';
    case 'num':
      return 'd' + numberKey(scalar.v);
    case 'str':
      return 's' + scalar.v;
    case 'date':
      return 'D' + scalar.v;
    case 'bytes':
      return 'b' + Buffer.from(scalar.v).toString('base64');
    case 'list':
      return 'l[' + scalar.v.map(hashKey).join(',') + ']';
    case 'obj':
      return (
        'o{' +
        Object.keys(scalar.v)
          .sort()
          .map((k) => JSON.stringify(k) + ':' + hashKey(scalar.v[k]))
          .join(',') +
        '}'
      );
  }
}

export { isPlainObject };
