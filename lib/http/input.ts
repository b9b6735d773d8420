/**
 * Small parsers for procedure inputs: path params, query-string flags and
 * body members. Every failure is InvalidInput naming the member.
 */
import { InvalidInput } from '../errors.js';
import { checkLimit, MAX_FIELD_NAMES, validateCollectionName } from '../engine/index.js';
import { isPlainObjectValue } from './plain-object.js';
import type { RawInput } from './procedure.js';

export function param(raw: RawInput, name: string): string {
  const v = raw.params[name];
  if (v === undefined || v === '') throw new InvalidInput(`Missing path parameter '${name}'`);
  return v;
}

export function queryString(raw: RawInput, name: string): string | undefined {
  const v = raw.query[name];
  if (v === undefined) return undefined;
  return Array.isArray(v) ? v[v.length - 1] : v;
}

/** A `true`/`false` query flag (also 1/0). */
export function queryFlag(raw: RawInput, name: string): boolean | undefined {
  const v = queryString(raw, name);
  if (v === undefined || v === '') return undefined;
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw new InvalidInput(`Query parameter '${name}' must be true or false`);
}

/** A field list given once comma-joined or as a repeated parameter; at most MAX_FIELD_NAMES names. */
export function queryList(raw: RawInput, name: string): string[] | undefined {
  const v = raw.query[name];
  if (v === undefined) return undefined;
  const items = (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
  checkLimit(items.length, MAX_FIELD_NAMES, name, 'field names');
  return items.length > 0 ? items : undefined;
}

/** The `collection` path parameter, validated as a collection name. */
export function collectionParam(raw: RawInput): string {
  return validateCollectionName(param(raw, 'collection'));
}

export function bodyObject(raw: RawInput): Record<string, unknown> {
  if (!isPlainObjectValue(raw.body)) throw new InvalidInput('Request body must be a JSON object');
  return raw.body;
}

export function optionalString(obj: Record<string, unknown>, name: string): string | undefined {
  const v = obj[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new InvalidInput(`'${name}' must be a string`);
  return v;
}
