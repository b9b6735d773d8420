/**
 * Checks one present, non-null value against its field definition.
 *
 * Reports one ValidationDetail per violated constraint (type, min, max,
 * regex, enums, format). A type violation is reported alone: the other constraints
 * are meaningless for a value of the wrong type. Bounds and enums compare the
 * value after conversion to the declared type, so "12.5" in a Decimal field
 * and a bare array in a Set field (deduplicated) are measured as stored.
 * Absence and null (`required`) are handled by `validateRecord`.
 */
import type { ValidationDetail } from '../../../errors.js';
import { compilePattern } from '../../pattern/index.js';
import {
  bareValue,
  compareValues,
  equalValues,
  isRfc4122Uuid,
  Tagged,
  toJson,
  typeOf,
  type Value,
} from '../../values/index.js';
import { acceptsType } from './accepts-type.js';
import { coerceValue } from './coerce-to-schema.js';
import type { FieldDef } from '../types.js';
import { isLengthBounded } from '../field-options.js';

const SHOWN_CHARS = 64;

/** The violations of `value` (stored form) against `def`; empty when it satisfies it or is null. */
export function checkValue(def: FieldDef, field: string, value: Value): ValidationDetail[] {
  if (value === null) return [];
  if (!acceptsType(def.field_type, value)) {
    return [
      {
        field,
        constraint: 'type',
        expected: def.field_type,
        actual: typeOf(value),
        message: `Field '${field}' must be of type ${def.field_type} (got ${typeOf(value)})`,
      },
    ];
  }
  const out: ValidationDetail[] = [];
  // Most fields have no constraint beyond their type: no conversion for them (a vector's is a copy).
  if (!constrainsValue(def)) return out;
  const item = coerceValue(def.field_type, value, field);
  for (const which of ['min', 'max'] as const) {
    const detail = def[which] === undefined ? undefined : checkBound(def, field, item, which);
    if (detail) out.push(detail);
  }
  const regexDetail =
    def.regex !== undefined && typeof item === 'string' ? checkRegex(def.regex, field, item) : undefined;
  if (regexDetail) out.push(regexDetail);
  const formatDetail = def.format === 'rfc4122' ? checkRfc4122(field, item) : undefined;
  if (formatDetail) out.push(formatDetail);
  if (def.enums !== undefined && !def.enums.some((e) => equalValues(e, item))) {
    out.push({
      field,
      constraint: 'enums',
      expected: def.enums.map(bareValue),
      actual: bareValue(item),
      message: `Field '${field}' must be one of ${def.enums.map(showValue).join(', ')} (got ${showValue(item)})`,
    });
  }
  return out;
}

/** Whether `def` constrains a value beyond its type. */
const constrainsValue = (def: FieldDef): boolean =>
  def.min !== undefined ||
  def.max !== undefined ||
  def.regex !== undefined ||
  def.format !== undefined ||
  def.enums !== undefined;

function checkBound(def: FieldDef, field: string, value: Value, which: 'min' | 'max'): ValidationDetail | undefined {
  const bound = def[which]!;
  if (isLengthBounded(def.field_type)) {
    const length = lengthOf(value);
    const limit = bound as number;
    if (which === 'min' ? length >= limit : length <= limit) return undefined;
    const range = `${which === 'min' ? 'at least' : 'at most'} ${limit}`;
    const wording = typeof value === 'string' ? `be ${range} characters long` : `have ${range} items`;
    return {
      field,
      constraint: which,
      expected: limit,
      actual: length,
      message: `Field '${field}' must ${wording} (got ${length})`,
    };
  }
  const order = compareValues(value, bound);
  if (order === undefined || (which === 'min' ? order >= 0 : order <= 0)) return undefined;
  return {
    field,
    constraint: which,
    expected: bareValue(bound),
    actual: bareValue(value),
    message: `Field '${field}' must be ${which === 'min' ? '>=' : '<='} ${showValue(bound)} (got ${showValue(value)})`,
  };
}

/** `format: "rfc4122"` on a UUID field: the value must be strict RFC 4122, not just the 8-4-4-4-12 shape. */
function checkRfc4122(field: string, value: Value): ValidationDetail | undefined {
  const text = value instanceof Tagged ? value.value : value;
  if (typeof text === 'string' && isRfc4122Uuid(text)) return undefined;
  return {
    field,
    constraint: 'format',
    expected: 'rfc4122',
    actual: bareValue(value),
    message:
      `Field '${field}' must be an RFC 4122 UUID: hex digits, version 1-8, variant 8, 9, a or b (got ` +
      `${showValue(value)})`,
  };
}

/**
 * The regex check: an unanchored search, like `RegExp.prototype.test`. A
 * stored pattern the engine refuses (saved by an older build, before patterns
 * were checked at save time) fails every value with a violation that says so,
 * rather than an error: the write is a 400 and the admin can replace it.
 * A value longer than the pattern's maxTextLength is refused unmatched.
 */
function checkRegex(regex: string, field: string, text: string): ValidationDetail | undefined {
  const compiled = compilePattern(regex);
  if (compiled.ok && text.length > compiled.pattern.maxTextLength) {
    const message =
      `Field '${field}' is too long to check against its pattern: ${text.length} characters, at most ` +
      `${compiled.pattern.maxTextLength} for this pattern`;
    return { field, constraint: 'regex', expected: regex, actual: `<${text.length} characters>`, message };
  }
  if (compiled.ok && compiled.pattern.test(text)) return undefined;
  const message = compiled.ok
    ? `Field '${field}' must match the pattern '${clip(regex)}' (got ${showValue(text)})`
    : `Field '${field}': pattern cannot be used: ${compiled.problem}; replace the field's regex`;
  return { field, constraint: 'regex', expected: compiled.ok ? regex : clip(regex), actual: text, message };
}

/** Length of a string (in code points) or of a list value (Array, Set, Vector). */
function lengthOf(value: Value): number {
  if (typeof value === 'string') return [...value].length;
  if (Array.isArray(value)) return value.length;
  if (value instanceof Tagged && Array.isArray(value.value)) return value.value.length;
  return 0;
}

/** A short human rendering of a value for messages: strings quoted, long values clipped. */
export function showValue(value: Value): string {
  if (typeof value === 'string') return `'${clip(value)}'`;
  if (value instanceof Tagged && typeof value.value === 'string') return clip(value.value);
  const bare = bareValue(value);
  if (bare instanceof Uint8Array) return `<${bare.length} bytes>`;
  return clip(toJson(bare) ?? String(bare));
}

function clip(text: string): string {
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}…` : text;
}
