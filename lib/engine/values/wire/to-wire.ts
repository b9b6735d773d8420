/**
 * Stored values -> wire values.
 *
 * Typed mode wraps every top-level field as `{type, value}`; untyped mode
 * returns bare values. `id` and the system `ttl` expiry stay bare in both.
 * Binary stays a Uint8Array here; the JSON encoder writes it as an array of
 * byte numbers and the MessagePack encoder as `bin` (protocol.md 1.4 rule 6).
 */
import { Tagged, typeOf, type Fields, type Value } from '../tagged.js';
import { JoinedRecords } from './joined.js';

export interface OutputOptions {
  readonly typed: boolean;
}

/** The bare wire value of a stored value (what goes in `value` of a wrapper). */
export function bareValue(value: Value): unknown {
  return value instanceof Tagged ? value.value : value;
}

export function valueToWire(value: Value, typed: boolean): unknown {
  return typed ? { type: typeOf(value), value: bareValue(value) } : bareValue(value);
}

/** Fields written bare even in typed mode. */
export const BARE_FIELDS: ReadonlySet<string> = new Set(['id', 'ttl']);

/** The type names of the scalars the direct writers (recordJson, recordMsgpack) handle. */
export const SCALAR_TYPES = ['String', 'Integer', 'Float', 'Boolean', 'Null'] as const;
export type ScalarType = (typeof SCALAR_TYPES)[number];

export function recordToWire(fields: Fields, opts: OutputOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(fields)) {
    const value = fields[key]!;
    if ((value as unknown) instanceof JoinedRecords) {
      out[key] = (value as unknown as JoinedRecords).records.map((r) => recordToWire(r, opts));
      continue;
    }
    out[key] = BARE_FIELDS.has(key) ? bareValue(value) : valueToWire(value, opts.typed);
  }
  return out;
}

/**
 * The JSON text of `recordToWire(fields, opts)`, written directly for the
 * common record of top-level strings, numbers, booleans and nulls (a point
 * read's answer), without building the wire object first. Undefined for
 * any other record (a nested, tagged, binary, big-integer or joined value):
 * the caller encodes `recordToWire` as usual. Same text, same key order
 * (a seeded spec compares it with JSON.stringify of the wire object).
 */
export function recordJson(fields: Fields, opts: OutputOptions): string | undefined {
  let out = '{';
  for (const key of Object.keys(fields)) {
    const value = fields[key]!;
    if (out.length > 1) out += ',';
    out += keyJson(key);
    const scalar = opts.typed && !BARE_FIELDS.has(key) ? typedScalarJson(value) : scalarJson(value);
    if (scalar === undefined) return undefined;
    out += scalar;
  }
  return out + '}';
}

/** True when every top-level value is null, a string, a number or a boolean: what recordJson writes directly. */
function isScalarRecord(fields: Fields): boolean {
  for (const key in fields) {
    const value = fields[key];
    if (value !== null && typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean')
      return false;
  }
  return true;
}

/**
 * The JSON array of `records` on the wire when every one is a record of top-level scalars (the text recordJson
 * would give each), else undefined. Built as wire objects and written by JSON.stringify, which V8 runs natively:
 * for a list of records that costs about half of joining their texts.
 */
export function recordsJson(records: readonly Fields[], opts: OutputOptions): string | undefined {
  for (const record of records) if (!isScalarRecord(record)) return undefined;
  return JSON.stringify(records.map((record) => recordToWire(record, opts)));
}

/** `"key":` for each field name seen, so a read does not quote the same names again; bounded. */
const KEY_JSON = new Map<string, string>();
const KEY_JSON_LIMIT = 10_000;

function keyJson(key: string): string {
  let name = KEY_JSON.get(key);
  if (name === undefined) {
    name = stringJson(key) + ':';
    if (KEY_JSON.size < KEY_JSON_LIMIT) KEY_JSON.set(key, name);
  }
  return name;
}

/** What JSON.stringify escapes in a string (quote, backslash, controls, lone surrogates), or could: any surrogate. */
// eslint-disable-next-line no-control-regex -- control characters are what JSON escapes
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** A string's JSON as JSON.stringify writes it: quoted as it is when nothing in it needs an escape. */
function stringJson(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : '"' + text + '"';
}

/**
 * A bare scalar's JSON as JSON.stringify writes it; undefined for anything else (a bigint is written with exact digits
 * elsewhere).
 */
function scalarJson(value: Value): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return stringJson(value);
    case 'number':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      return undefined;
  }
}

/**
 * A scalar's typed wrapper `{"type":...,"value":...}` as JSON; undefined for
 * anything else. Its own switch rather than scalarType plus a prefix table:
 * constant strings for booleans and null keep a point read cheaper.
 */
function typedScalarJson(value: Value): string | undefined {
  if (value === null) return '{"type":"Null","value":null}';
  switch (typeof value) {
    case 'string':
      return '{"type":"String","value":' + stringJson(value) + '}';
    case 'number':
      return (
        (Number.isSafeInteger(value) ? '{"type":"Integer","value":' : '{"type":"Float","value":') +
        JSON.stringify(value) +
        '}'
      );
    case 'boolean':
      return value ? '{"type":"Boolean","value":true}' : '{"type":"Boolean","value":false}';
    default:
      return undefined;
  }
}

/** The type name of a scalar the direct writers handle; undefined for anything else. */
export function scalarType(value: Value): ScalarType | undefined {
  if (value === null) return 'Null';
  switch (typeof value) {
    case 'string':
      return 'String';
    case 'boolean':
      return 'Boolean';
    case 'number':
      return Number.isSafeInteger(value) ? 'Integer' : 'Float';
    default:
      return undefined;
  }
}
