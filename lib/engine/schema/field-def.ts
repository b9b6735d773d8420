/**
 * A field definition of a schema: its `field_type` and the constraints the
 * field's values must satisfy (product.md, "Schema and field definition").
 *
 * `parseFieldDef` turns the wire form into a frozen FieldDef with options in
 * their stored form. It is strict: unknown keys, options the type does not
 * allow, min > max and a default that breaks the definition are all rejected.
 * Null members mean absent, and `enums: []` means no restriction, so the
 * output of `GET /api/schemas/{c}` parses back unchanged.
 */
import { InvalidInput, MESSAGES } from '../../errors.js';
import { compareValues, isPlainObject, isTypeName, TYPE_NAMES, type TypeName, type Value } from '../values/index.js';
import { checkValue, showValue } from './validation/check-value.js';
import { coerceValue } from './validation/coerce-to-schema.js';
import {
  allowsOption,
  OPTIONS_BY_TYPE,
  parseBound,
  parseEnums,
  parseFormat,
  parseRegex,
  type FieldOption,
} from './field-options.js';
import { fieldValueFromWire } from './field-value-from-wire.js';
import { parseIndexConfig, type IndexConfig } from './index-config.js';
import type { FieldDef } from './types.js';

/** Every key a field definition may carry; `description` is accepted and dropped. */
export const FIELD_DEF_KEYS: ReadonlySet<string> = new Set([
  'field_type',
  'required',
  'unique',
  'default',
  'min',
  'max',
  'regex',
  'enums',
  'format',
  'index',
  'description',
]);

const OPTIONS: readonly FieldOption[] = ['min', 'max', 'regex', 'enums', 'format'];

function fail(field: string, why: string): InvalidInput {
  return new InvalidInput(`Field '${field}': ${why}`);
}

/** Throws InvalidInput when `raw` has a key that no field definition may carry. */
export function assertFieldDefKeys(raw: Record<string, unknown>, field: string): void {
  for (const key of Object.keys(raw)) {
    if (!FIELD_DEF_KEYS.has(key)) {
      throw fail(field, `unknown key '${key}' in field definition (allowed: ${[...FIELD_DEF_KEYS].join(', ')})`);
    }
  }
}

/**
 * Parses the wire form of the definition of field `field`.
 * Throws InvalidInput: with exactly MESSAGES.missingFieldType (and the field
 * in `details`) when field_type is absent; naming the field for every other
 * problem. The result is frozen.
 */
export function parseFieldDef(raw: unknown, field: string): FieldDef {
  if (!isPlainObject(raw)) throw fail(field, 'definition must be an object such as {"field_type": "String"}');
  assertFieldDefKeys(raw, field);
  const type = parseFieldType(raw.field_type, field);
  const given = (key: string): boolean => raw[key] !== undefined && raw[key] !== null;
  for (const option of OPTIONS) {
    const isEmptyEnums = option === 'enums' && Array.isArray(raw.enums) && raw.enums.length === 0;
    if (given(option) && !isEmptyEnums && !allowsOption(type, option)) {
      const allowed = OPTIONS_BY_TYPE[type].join(', ') || 'none';
      throw fail(field, `option '${option}' is not allowed for field_type ${type} (allowed: ${allowed})`);
    }
  }
  const def: { -readonly [K in keyof FieldDef]: FieldDef[K] } = {
    field_type: type,
    required: parseFlag(raw.required, field, 'required'),
    unique: parseFlag(raw.unique, field, 'unique'),
  };
  if (given('min')) def.min = parseBound(type, raw.min, field, 'min');
  if (given('max')) def.max = parseBound(type, raw.max, field, 'max');
  if (def.min !== undefined && def.max !== undefined && (compareValues(def.min, def.max) ?? 0) > 0) {
    throw fail(field, `min ${showValue(def.min)} is greater than max ${showValue(def.max)}`);
  }
  if (given('regex')) def.regex = parseRegex(raw.regex, field);
  if (given('enums')) {
    const enums = parseEnums(type, raw.enums, field);
    if (enums !== undefined) def.enums = enums;
  }
  if (given('format')) def.format = parseFormat(raw.format, field);
  if (given('index')) def.index = parseIndexFor(type, raw.index, field);
  if (given('default')) def.default = parseDefault(def, raw.default, field);
  return Object.freeze(def);
}

function parseFieldType(raw: unknown, field: string): TypeName {
  if (raw === undefined || raw === null) {
    throw new InvalidInput(MESSAGES.missingFieldType, {
      details: [{ field, constraint: 'field_type', message: `Field '${field}' has no field_type` }],
    });
  }
  if (typeof raw !== 'string') throw fail(field, 'field_type must be a string such as "String"');
  if (isTypeName(raw)) return raw;
  const near = TYPE_NAMES.find((t) => t.toLowerCase() === raw.toLowerCase());
  if (near !== undefined) {
    throw fail(field, `unknown field_type '${raw}' (field_type is case-sensitive; did you mean '${near}'?)`);
  }
  throw fail(field, `unknown field_type '${raw}' (expected one of ${TYPE_NAMES.join(', ')})`);
}

function parseFlag(raw: unknown, field: string, key: string): boolean {
  if (raw === undefined || raw === null) return false;
  if (typeof raw !== 'boolean') throw fail(field, `${key} must be true or false`);
  return raw;
}

/** Text indexes only make sense on strings and vector indexes on number lists. */
function parseIndexFor(type: TypeName, raw: unknown, field: string): IndexConfig {
  const index = parseIndexConfig(raw, field);
  if (index.type === 'text' && type !== 'String')
    throw fail(field, `a text index needs field_type String, not ${type}`);
  if (index.type === 'vector' && type !== 'Vector' && type !== 'Array') {
    throw fail(field, `a vector index needs field_type Vector or Array, not ${type}`);
  }
  return index;
}

function parseDefault(def: FieldDef, raw: unknown, field: string): Value {
  const value = fieldValueFromWire(def.field_type, raw, `${field}.default`);
  const violations = checkValue(def, field, value);
  if (violations.length > 0) {
    throw new InvalidInput(
      `Field '${field}': default ${showValue(value)} does not satisfy the definition: ` +
        `${violations.map((d) => d.message).join('; ')}`,
      { details: violations },
    );
  }
  return coerceValue(def.field_type, value, `${field}.default`);
}
