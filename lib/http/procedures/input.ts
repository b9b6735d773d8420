/**
 * Small parsers for procedure inputs: named arguments (path and query
 * parameters over HTTP, payload members over WebSocket) and body members.
 * A named argument may arrive as text (HTTP) or as its own type (WebSocket):
 * each helper accepts both. Every failure is InvalidInput naming the member.
 */
import { InvalidInput } from '../../errors.js';
import { checkLimit, MAX_FIELD_NAMES, validateCollectionName } from '../../engine/index.js';
import type { RawInput } from './procedure.js';

/** A required named argument (a path parameter over HTTP); a number or boolean is taken as its text. */
export function param(raw: RawInput, name: string): string {
  const given = text(raw.args[name], name);
  if (given === undefined || given === '') throw new InvalidInput(`Missing path parameter '${name}'`);
  return given;
}

/** An optional named argument as text; the last one of a repeated query parameter. */
export function queryString(raw: RawInput, name: string): string | undefined {
  const given = raw.args[name];
  return Array.isArray(given) ? text(given[given.length - 1], name) : text(given, name);
}

/** An optional integer query parameter within [min, max]; `fallback` when absent. */
export function queryInteger(
  raw: RawInput,
  name: string,
  range: { readonly min: number; readonly max: number; readonly fallback: number },
): number {
  const given = queryString(raw, name);
  if (given === undefined || given === '') return range.fallback;
  const n = Number(given);
  if (!/^\d+$/.test(given) || !Number.isSafeInteger(n) || n < range.min || n > range.max)
    throw new InvalidInput(`'${name}' must be an integer between ${range.min} and ${range.max}`);
  return n;
}

/** A boolean, or a `true`/`false` (also 1/0) query flag. */
export function queryFlag(raw: RawInput, name: string): boolean | undefined {
  const given = raw.args[name];
  if (typeof given === 'boolean') return given;
  const flag = queryString(raw, name);
  if (flag === undefined || flag === '') return undefined;
  if (flag === 'true' || flag === '1') return true;
  if (flag === 'false' || flag === '0') return false;
  throw new InvalidInput(`Query parameter '${name}' must be true or false`);
}

/** A field list given once comma-joined or as a list (a repeated parameter); at most MAX_FIELD_NAMES names. */
export function queryList(raw: RawInput, name: string): string[] | undefined {
  const given = raw.args[name];
  if (given === undefined || given === null) return undefined;
  const texts = (Array.isArray(given) ? given : [given]).map((member) => text(member, name) ?? '');
  const items = texts
    .flatMap((listed) => listed.split(','))
    .map((item) => item.trim())
    .filter(Boolean);
  checkLimit(items.length, MAX_FIELD_NAMES, name, 'field names');
  return items.length > 0 ? items : undefined;
}

/** The `collection` path parameter, validated as a collection name. */
export function collectionParam(raw: RawInput): string {
  return validateCollectionName(param(raw, 'collection'));
}

/** A named argument's text: strings as they are, numbers and booleans as written; anything else is refused. */
function text(given: unknown, name: string): string | undefined {
  if (given === undefined || given === null) return undefined;
  if (typeof given === 'string') return given;
  if (typeof given === 'number' || typeof given === 'boolean') return String(given);
  throw new InvalidInput(`'${name}' must be a string`);
}

/** True for plain `{}`-style objects (not arrays, buffers or class instances). */
export function isPlainObjectValue(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof Uint8Array) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

export function bodyObject(raw: RawInput): Record<string, unknown> {
  if (!isPlainObjectValue(raw.body)) throw new InvalidInput('Request body must be a JSON object');
  return raw.body;
}

export function optionalString(obj: Record<string, unknown>, name: string): string | undefined {
  const given = obj[name];
  if (given === undefined || given === null) return undefined;
  if (typeof given !== 'string') throw new InvalidInput(`'${name}' must be a string`);
  return given;
}
