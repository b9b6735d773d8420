/**
 * What the key-value and concurrency steps share: the key, seconds and
 * counts they resolve at run time, and how they write a result into the
 * working records (the `output_field` convention of the other steps).
 */
import { InvalidInput } from '../../../errors.js';
import { isPlainObject, validateKvKey, type Value } from '../../../engine/index.js';
import { isConstant, type Template } from '../../templates/index.js';
import type { Execution, MemberReader, Row } from '../step.js';

/** Longest TTL or window a step accepts: ten years, in seconds. */
export const MAX_SECONDS = 10 * 365 * 86_400;

/** The `key` member: a literal is checked at save (length, no control characters), a placeholder by resolveKey. */
export function keyMember(m: MemberReader): Template {
  const t = m.template('key');
  if (isConstant(t)) {
    if (typeof t.v !== 'string' || t.v === '') m.fail('must be a non-empty string', 'key');
    try {
      validateKvKey(t.v);
    } catch (err) {
      m.fail((err as Error).message, 'key');
    }
  }
  return t;
}

/** The step's `key` for `row`: a non-empty string that is a valid KV key. */
export function resolveKey(x: Execution, key: Template, row: Row | undefined): string {
  const text = x.text(key, row, 'key');
  try {
    return validateKvKey(text);
  } catch (err) {
    throw new InvalidInput(`'key': ${(err as Error).message}`);
  }
}

/** A whole number in [min, max], given as a number or a string of digits ("{{limit}}" from a query string); undefined otherwise. */
function wholeNumber(raw: unknown, min: number, max: number): number | undefined {
  const n = typeof raw === 'string' && /^\s*\d{1,16}\s*$/.test(raw) ? Number(raw) : raw;
  return typeof n === 'number' && Number.isInteger(n) && n >= min && n <= max ? n : undefined;
}

const wholeNumberRule = (min: number, max: number) => `must be a whole number from ${min} to ${max}`;

/**
 * A required whole-number member (`ttl_secs`, `limit`, `window_secs`): a
 * literal is checked at save (the error names the member), a placeholder at
 * run time by resolveWholeNumber.
 */
export function wholeNumberMember(m: MemberReader, name: string, min: number, max: number): Template {
  const t = m.template(name);
  if (isConstant(t) && wholeNumber(t.v, min, max) === undefined) m.fail(wholeNumberRule(min, max), name);
  return t;
}

export function resolveWholeNumber(x: Execution, t: Template, row: Row | undefined, what: string, min: number, max: number): number {
  const n = wholeNumber(x.resolve(t, row), min, max);
  if (n === undefined) throw new InvalidInput(`'${what}' ${wholeNumberRule(min, max)}`);
  return n;
}

/** `value` at `path` of `row`, in a new record (objects on the way are copied; a non-object on the way is replaced). */
export function withField(row: Row, path: readonly string[], value: Value): Row {
  const [head, ...rest] = path as [string, ...string[]];
  if (rest.length === 0) return { ...row, [head]: value };
  const inner = row[head];
  return { ...row, [head]: withField(isPlainObject(inner) ? (inner as Row) : {}, rest, value) };
}

/** Every working record with `value` at `path`; one record holding only it when there are none. */
export function writeOutput(rows: readonly Row[], path: readonly string[], value: Value): Row[] {
  return rows.length === 0 ? [withField({}, path, value)] : rows.map((r) => withField(r, path, value));
}
