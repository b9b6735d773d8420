/** Collections, schemas, primary-key aliases and the trash. */
import { InvalidInput } from '../../errors.js';
import {
  ALIAS_RULE,
  isAliasName,
  rejectUnknownMembers,
  validateId,
  type SchemaChange,
  type SchemaDefinition,
} from '../../engine/index.js';
import { defineProcedure } from './procedure.js';
import { collectionParam, isPlainObjectValue, param, queryFlag } from './input.js';

/** Members of a create body that are not schema fields. */
const CREATE_KEYS = new Set([
  'fields',
  'version',
  'bypass_ripple',
  'created_at',
  'last_modified',
  'primary_key_alias',
  'schema',
]);

/** A create body: a schema (`{fields}`), the schema wrapped as `{schema: {...}}`, `{}` or nothing. */
function parseCreateBody(body: unknown): SchemaDefinition {
  let raw: unknown = body ?? {};
  if (!isPlainObjectValue(raw)) throw new InvalidInput('Collection body must be a JSON object');
  if (isPlainObjectValue(raw.schema)) raw = raw.schema;
  const definition = raw as Record<string, unknown>;
  rejectUnknownMembers(definition, CREATE_KEYS, 'collection body', 'a schema {fields: {...}}');
  return definition;
}

/** `{constraints: {...}}` and/or `{fields: {...}}` (and `bypass_ripple`, ignored). */
function parseSchemaChange(body: unknown): SchemaChange {
  if (!isPlainObjectValue(body)) throw new InvalidInput('Schema update body must be a JSON object');
  const keys = Object.keys(body).filter((k) => k !== 'bypass_ripple');
  if (keys.some((k) => k !== 'constraints' && k !== 'fields')) {
    throw new InvalidInput(`Unknown member in schema update; expected {constraints: {...}} or {fields: {...}}`);
  }
  return { constraints: body.constraints, fields: body.fields };
}

function parseAlias(body: unknown): string {
  const alias = isPlainObjectValue(body) ? body.alias : undefined;
  if (!isAliasName(alias)) throw new InvalidInput(ALIAS_RULE);
  return alias;
}

export const collectionsList = defineProcedure({
  name: 'collections.list',
  kind: 'query',
  access: 'admin',
  input: (raw) => queryFlag(raw, 'exclude_internal') ?? false,
  handler: (excludeInternal, ctx) => ({ collections: ctx.collections.list(excludeInternal) }),
});

export const collectionsCreate = defineProcedure({
  name: 'collections.create',
  kind: 'mutation',
  access: 'admin',
  input: (raw) => ({ name: collectionParam(raw), definition: parseCreateBody(raw.body) }),
  handler: async ({ name, definition }, ctx) => {
    await ctx.collections.create(name, definition);
    return { status: 'created', message: `Collection '${name}' created`, collection: name };
  },
});

export const collectionsGet = defineProcedure({
  name: 'collections.get',
  kind: 'query',
  access: 'user',
  input: collectionParam,
  scope: (name) => ({ collections: [{ name, mode: 'read' }] }),
  handler: async (name, ctx) => {
    const info = await ctx.collections.info(name);
    return {
      collection: info.schema,
      analytics: { record_count: info.record_count, trash_count: ctx.trash.count(name) },
      name: info.name,
      record_count: info.record_count,
      created_at: info.created_at,
      schema: info.schema,
    };
  },
});

export const collectionsDelete = defineProcedure({
  name: 'collections.delete',
  kind: 'mutation',
  access: 'admin',
  input: collectionParam,
  handler: async (name, ctx) => {
    await ctx.collections.drop(name);
    return { status: 'deleted', message: `Collection '${name}' deleted` };
  },
});

export const schemasGet = defineProcedure({
  name: 'schemas.get',
  kind: 'query',
  access: 'user',
  input: collectionParam,
  scope: (name) => ({ collections: [{ name, mode: 'read' }] }),
  handler: (name, ctx) => ctx.collections.schema(name),
});

export const schemasUpdate = defineProcedure({
  name: 'schemas.update',
  kind: 'mutation',
  access: 'admin',
  input: (raw) => ({ name: collectionParam(raw), change: parseSchemaChange(raw.body) }),
  handler: async ({ name, change }, ctx) => {
    const schema = await ctx.collections.updateSchema(name, change);
    return { status: 'updated', message: `Schema of '${name}' updated`, version: schema.version };
  },
});

export const schemasSetAlias = defineProcedure({
  name: 'schemas.setPrimaryKeyAlias',
  kind: 'mutation',
  access: 'admin',
  input: (raw) => ({ name: collectionParam(raw), alias: parseAlias(raw.body) }),
  handler: async ({ name, alias }, ctx) => {
    await ctx.collections.setPrimaryKeyAlias(name, alias);
    return { message: `Primary key alias of '${name}' set to '${alias}'`, alias };
  },
});

export const trashRestore = defineProcedure({
  name: 'trash.restore',
  kind: 'mutation',
  access: 'admin',
  input: (raw) => ({ collection: collectionParam(raw), id: validateId(param(raw, 'id')) }),
  handler: async ({ collection, id }, ctx) => {
    await ctx.trash.restore(collection, id);
    return { status: 'restored', id, collection };
  },
});

export const trashRestoreCollection = defineProcedure({
  name: 'trash.restoreCollection',
  kind: 'mutation',
  access: 'admin',
  input: collectionParam,
  handler: async (collection, ctx) => {
    const restored = await ctx.trash.restoreAll(collection);
    return { status: 'restored', collection, records_restored: restored };
  },
});
