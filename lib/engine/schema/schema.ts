/**
 * A collection's schema: field definitions plus the metadata that
 * `GET /api/schemas/{c}` reports (version, timestamps, bypass_ripple,
 * primary_key_alias).
 *
 * Schemas are immutable values: parsing and every update return a new frozen
 * object, and updates bump `version` and `last_modified`. Schemas are open:
 * records may carry fields the schema does not declare. Nothing here touches
 * records; a schema change never re-validates stored records (product.md,
 * schema rule 2).
 */
import { InvalidInput } from '../../errors.js';
import { isPlainObject, isRfc3339 } from '../values/index.js';
import { parseFieldDef } from './field-def.js';
import { fieldDefToWire, type FieldDefWire } from './field-def-to-wire.js';
import { assertFieldName } from './field-name.js';
import { mergeConstraints } from './merge-constraints.js';
import type { FieldDef, Schema } from './types.js';

/** The `GET /api/schemas/{c}` body. */
export interface SchemaWire {
  fields: Record<string, FieldDefWire>;
  version: number;
  created_at: string;
  last_modified: string;
  bypass_ripple: boolean;
  primary_key_alias: string;
}

export const DEFAULT_PRIMARY_KEY = 'id';
const SCHEMA_KEYS: ReadonlySet<string> = new Set([
  'fields',
  'version',
  'created_at',
  'last_modified',
  'bypass_ripple',
  'primary_key_alias',
]);

/** A schema with no fields, version 1, created at `now`. */
export function emptySchema(now: string): Schema {
  return Object.freeze({
    fields: Object.freeze({}),
    version: 1,
    created_at: now,
    last_modified: now,
    bypass_ripple: false,
    primary_key_alias: DEFAULT_PRIMARY_KEY,
  });
}

/**
 * Parses a schema body (`POST /api/collections/{c}`, or a stored schema on
 * load). undefined, null and `{}` give the empty schema. Missing metadata
 * defaults to version 1, timestamps `now`, bypass_ripple false and
 * primary_key_alias "id"; given metadata is kept. Throws InvalidInput for an
 * unknown top-level key, a bad field name or definition, or bad metadata.
 */
export function parseSchema(raw: unknown, now: string): Schema {
  if (raw === undefined || raw === null) return emptySchema(now);
  if (!isPlainObject(raw)) throw new InvalidInput('Schema must be an object such as {"fields": {...}}');
  for (const key of Object.keys(raw)) {
    if (!SCHEMA_KEYS.has(key))
      throw new InvalidInput(`Unknown schema key '${key}' (allowed: ${[...SCHEMA_KEYS].join(', ')})`);
  }
  const fields: Record<string, FieldDef> = {};
  if (raw.fields !== undefined && raw.fields !== null) {
    if (!isPlainObject(raw.fields))
      throw new InvalidInput('Schema fields must be an object mapping field names to definitions');
    for (const name of Object.keys(raw.fields)) fields[name] = parseNamedField(name, raw.fields[name]);
  }
  const alias = raw.primary_key_alias ?? DEFAULT_PRIMARY_KEY;
  if (typeof alias !== 'string') throw new InvalidInput('primary_key_alias must be a string');
  assertFieldName(alias);
  return Object.freeze({
    fields: Object.freeze(fields),
    version: parseVersion(raw.version),
    created_at: parseTimestamp(raw.created_at, 'created_at', now),
    last_modified: parseTimestamp(raw.last_modified, 'last_modified', now),
    bypass_ripple: parseBypassRipple(raw.bypass_ripple),
    primary_key_alias: alias,
  });
}

/**
 * Applies `{<field>: {attributes}}` from `PUT /api/schemas/{c}` as a partial
 * update (see `mergeConstraints`); a field given as null is removed from the
 * schema. Returns a new schema with version + 1 and last_modified `now`.
 * Throws InvalidInput (nothing applied) when any field's update is invalid.
 */
export function updateConstraints(schema: Schema, constraints: unknown, now: string): Schema {
  if (!isPlainObject(constraints))
    throw new InvalidInput('constraints must be an object mapping field names to constraints');
  const fields: Record<string, FieldDef> = { ...schema.fields };
  for (const name of Object.keys(constraints)) {
    assertFieldName(name);
    if (constraints[name] === null) {
      delete fields[name];
      continue;
    }
    const current = Object.hasOwn(schema.fields, name) ? schema.fields[name] : undefined;
    fields[name] = checkIdField(name, mergeConstraints(current, constraints[name], name));
  }
  return bump(schema, fields, now);
}

/**
 * Applies the `{fields: {...}}` form of `PUT /api/schemas/{c}`: each listed
 * field's definition is replaced wholesale (null removes it), other fields
 * are kept. Returns a new schema with version + 1 and last_modified `now`.
 */
export function replaceFields(schema: Schema, fieldsRaw: unknown, now: string): Schema {
  if (!isPlainObject(fieldsRaw))
    throw new InvalidInput('Schema fields must be an object mapping field names to definitions');
  const fields: Record<string, FieldDef> = { ...schema.fields };
  for (const name of Object.keys(fieldsRaw)) {
    if (fieldsRaw[name] === null) {
      assertFieldName(name);
      delete fields[name];
    } else {
      fields[name] = parseNamedField(name, fieldsRaw[name]);
    }
  }
  return bump(schema, fields, now);
}

/**
 * Sets the primary-key alias (`PUT /api/schemas/{c}/primary-key-alias`).
 * Returns a new schema with version + 1; throws InvalidInput for a bad name.
 */
export function setPrimaryKeyAlias(schema: Schema, alias: unknown, now: string): Schema {
  if (typeof alias !== 'string') throw new InvalidInput('alias must be a string');
  assertFieldName(alias);
  return Object.freeze({ ...bump(schema, schema.fields, now), primary_key_alias: alias });
}

/** The exact `GET /api/schemas/{c}` shape (protocol.md 2.2), as fresh plain data. */
export function schemaToWire(schema: Schema): SchemaWire {
  const fields: Record<string, FieldDefWire> = {};
  for (const [name, def] of Object.entries(schema.fields)) fields[name] = fieldDefToWire(def);
  return {
    fields,
    version: schema.version,
    created_at: schema.created_at,
    last_modified: schema.last_modified,
    bypass_ripple: schema.bypass_ripple,
    primary_key_alias: schema.primary_key_alias,
  };
}

function parseNamedField(name: string, raw: unknown): FieldDef {
  assertFieldName(name);
  return checkIdField(name, parseFieldDef(raw, name));
}

/** `id` holds the record key, which is always a string. */
function checkIdField(name: string, def: FieldDef): FieldDef {
  if (name === 'id' && def.field_type !== 'String') {
    throw new InvalidInput(`Field 'id' may only be declared as String, not ${def.field_type}`);
  }
  return def;
}

function bump(schema: Schema, fields: Record<string, FieldDef>, now: string): Schema {
  return Object.freeze({ ...schema, fields: Object.freeze(fields), version: schema.version + 1, last_modified: now });
}

function parseVersion(raw: unknown): number {
  if (raw === undefined || raw === null) return 1;
  if (typeof raw !== 'number' || !Number.isSafeInteger(raw) || raw < 0)
    throw new InvalidInput('Schema version must be a non-negative integer');
  return raw;
}

function parseTimestamp(raw: unknown, key: string, now: string): string {
  if (raw === undefined || raw === null) return now;
  if (typeof raw !== 'string' || !isRfc3339(raw)) throw new InvalidInput(`Schema ${key} must be an RFC 3339 timestamp`);
  return raw;
}

function parseBypassRipple(raw: unknown): boolean {
  if (raw === undefined || raw === null) return false;
  if (typeof raw !== 'boolean') throw new InvalidInput('bypass_ripple must be true or false');
  return raw;
}
