/**
 * The options a field definition may carry for each `field_type`
 * (product.md, "Supported field_type values and their options"), and the
 * parsing of each option into its stored form.
 *
 * min/max are lengths for String, Array, Vector and Set; numbers for Integer,
 * Float and Number; numbers or decimal strings for Decimal; RFC 3339 instants
 * for DateTime. regex is String only; enums String, Integer, Float, Number.
 * format is UUID only: "rfc4122" narrows the 8-4-4-4-12 shape every UUID
 * value has to strict RFC 4122 (see values/uuid.ts).
 * Values may also arrive as `{type, value}` wrappers (that is how updates
 * round-trip stored options).
 */
import { InvalidInput } from '../../errors.js';
import { requirePattern } from '../pattern/index.js';
import { fieldFromWire, Tagged, type TypeName, type Value } from '../values/index.js';
import { acceptsType, numberOf } from './validation/accepts-type.js';
import { coerceValue } from './validation/coerce-to-schema.js';
import { fieldValueFromWire } from './field-value-from-wire.js';
import type { FieldFormat } from './types.js';

export type FieldOption = 'min' | 'max' | 'regex' | 'enums' | 'format';

const RANGE: readonly FieldOption[] = ['min', 'max'];
const NUMERIC: readonly FieldOption[] = ['min', 'max', 'enums'];

export const OPTIONS_BY_TYPE: Readonly<Record<TypeName, readonly FieldOption[]>> = {
  String: ['min', 'max', 'regex', 'enums'],
  Integer: NUMERIC,
  Float: NUMERIC,
  Number: NUMERIC,
  Boolean: [],
  Array: RANGE,
  Object: [],
  DateTime: RANGE,
  Decimal: RANGE,
  UUID: ['format'],
  Vector: RANGE,
  Set: RANGE,
  Binary: [],
  Bytes: [],
  Duration: [],
  Null: [],
};

const LENGTH_BOUNDED: ReadonlySet<TypeName> = new Set(['String', 'Array', 'Vector', 'Set']);

/** True when a `type` field may carry `option` (product.md options table). */
export function allowsOption(type: TypeName, option: FieldOption): boolean {
  return OPTIONS_BY_TYPE[type].includes(option);
}

/** True when min/max of `type` bound a length rather than a value. */
export function isLengthBounded(type: TypeName): boolean {
  return LENGTH_BOUNDED.has(type);
}

function fail(field: string, why: string): InvalidInput {
  return new InvalidInput(`Field '${field}': ${why}`);
}

/**
 * Parses a min or max bound for a `type` field into its stored form: a bare
 * number, a bigint (an integer beyond 2^53), a Tagged Decimal or a Tagged DateTime. Throws InvalidInput when the
 * bound does not fit the type (e.g. a negative length, a non-RFC 3339 date).
 */
export function parseBound(type: TypeName, raw: unknown, field: string, which: 'min' | 'max'): Value {
  const value = fieldFromWire(raw, `${field}.${which}`);
  if (isLengthBounded(type)) {
    const length = numberOf(value);
    if (length === undefined || !Number.isInteger(length) || length < 0)
      throw fail(field, `${which} must be a non-negative integer length for ${type}`);
    return length;
  }
  if (type === 'DateTime') {
    if (value instanceof Tagged && value.type === 'DateTime') return value;
    throw fail(field, `${which} must be an RFC 3339 date-time such as "2024-01-01T00:00:00Z"`);
  }
  const number = numberOf(value);
  if (number !== undefined) return number;
  // An Integer bound beyond 2^53 stays a bigint, so bounds compare exactly (compare.ts).
  if (typeof value === 'bigint') return value;
  if (type === 'Decimal' && acceptsType('Decimal', value)) return coerceValue('Decimal', value);
  throw fail(field, `${which} must be a number${type === 'Decimal' ? ' or a decimal string' : ''} for ${type}`);
}

/**
 * Parses a regex option into its stored form, the source as written. Throws
 * InvalidInput `Field '<field>': invalid regex: <why>` when it is not a string
 * or the linear-time engine cannot use it (see lib/engine/pattern).
 */
export function parseRegex(raw: unknown, field: string): string {
  if (typeof raw !== 'string') throw fail(field, 'regex must be a string');
  return requirePattern(raw, `Field '${field}': invalid regex`).source;
}

/**
 * Parses an enums option into stored values of the declared type. An empty
 * array means no restriction (undefined), since the server itself reports
 * `enums: []` for unrestricted fields. Throws InvalidInput for a non-array or
 * an element of the wrong type.
 */
export function parseEnums(type: TypeName, raw: unknown, field: string): readonly Value[] | undefined {
  if (!Array.isArray(raw)) throw fail(field, 'enums must be an array of allowed values');
  if (raw.length === 0) return undefined;
  const values = raw.map((item, index) => {
    const value = fieldValueFromWire(type, item, `${field}.enums[${index}]`);
    if (value === null || !acceptsType(type, value)) throw fail(field, `enums[${index}] is not a ${type} value`);
    return coerceValue(type, value);
  });
  return Object.freeze(values);
}

/**
 * Parses a format option. Throws InvalidInput `Field '<field>': format must
 * be "rfc4122" ...` for anything else (the option is strict, like the rest
 * of a field definition: a misspelt format must not silently check nothing).
 */
export function parseFormat(raw: unknown, field: string): FieldFormat {
  if (raw === 'rfc4122') return raw;
  throw fail(
    field,
    'format must be "rfc4122" (strict RFC 4122: hex digits, version 1-8, variant 8/9/a/b); ' +
      'omit it to accept any 8-4-4-4-12 letters and digits',
  );
}
