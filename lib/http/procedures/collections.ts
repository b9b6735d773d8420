/** Collections, schemas, primary-key aliases and the trash. */
import { InvalidInput } from '../../errors.js';
import {
  ALIAS_RULE,
  isAliasName,
  recordToWire,
  rejectUnknownMembers,
  validateId,
  type SchemaChange,
  type SchemaDefinition,
} from '../../engine/index.js';
import { defineProcedure } from './procedure.js';
import { collectionParam, isPlainObjectValue, param, queryFlag, queryInteger } from './input.js';
import { Anything, statusAnswer, Type } from './shapes.js';

/** A collection's schema as stored and shown. */
const SchemaView = Type.Object(
  {
    fields: Type.Object({}, { description: 'By field name: field_type, required, default, min, max, regex...' }),
    version: Type.Integer(),
    created_at: Type.Optional(Type.String()),
    last_modified: Type.Optional(Type.String()),
    primary_key_alias: Type.Optional(Type.String()),
    bypass_ripple: Type.Optional(Type.Boolean()),
  },
  { title: 'CollectionSchema' },
);

/** A schema as a create body gives it. */
const SchemaDefinition = Type.Object(
  {
    fields: Type.Optional(
      Type.Object(
        {},
        {
          additionalProperties: Type.Object({}),
          description:
            '{name: {field_type, required?, default?, min?, max?, regex?, enums?, format?, unique?, index?}}',
        },
      ),
    ),
    version: Type.Optional(Anything),
    bypass_ripple: Type.Optional(Anything),
    created_at: Type.Optional(Anything),
    last_modified: Type.Optional(Anything),
    primary_key_alias: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

const Message = (status: string) => statusAnswer(status, { message: Type.String() });

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
  schema: {
    summary: 'List the collections',
    query: { exclude_internal: Type.String({ description: 'true: leave out the internal collections.' }) },
    response: Type.Object({ collections: Type.Array(Type.String()) }),
  },
  input: (raw) => queryFlag(raw, 'exclude_internal') ?? false,
  handler: (excludeInternal, ctx) => ({ collections: ctx.collections.list(excludeInternal) }),
});

export const collectionsCreate = defineProcedure({
  name: 'collections.create',
  kind: 'mutation',
  access: 'admin',
  schema: {
    summary: 'Create a collection, with a schema or none',
    description: '409 when it exists. The schema may also come wrapped as {schema: {...}}.',
    body: Type.Union([SchemaDefinition, Type.Object({ schema: SchemaDefinition })]),
    response: statusAnswer('created', { message: Type.String(), collection: Type.String() }),
  },
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
  schema: {
    summary: 'A collection: schema and counts',
    response: Type.Object({
      name: Type.String(),
      record_count: Type.Integer(),
      created_at: Type.String(),
      schema: SchemaView,
      collection: SchemaView,
      analytics: Type.Object({ record_count: Type.Integer(), trash_count: Type.Integer() }),
    }),
  },
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
  schema: { summary: 'Drop a collection, its records and its trash', response: Message('deleted') },
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
  schema: { summary: "A collection's schema, every attribute shown", response: SchemaView },
  input: collectionParam,
  scope: (name) => ({ collections: [{ name, mode: 'read' }] }),
  handler: (name, ctx) => ctx.collections.schema(name),
});

export const schemasUpdate = defineProcedure({
  name: 'schemas.update',
  kind: 'mutation',
  access: 'admin',
  schema: {
    summary: "Change a collection's schema",
    description: 'A partial update: only later writes are checked against it.',
    body: Type.Object(
      {
        constraints: Type.Optional(Type.Object({}, { description: 'By field: the attributes to change.' })),
        fields: Type.Optional(Type.Object({}, { description: 'By field: whole field definitions.' })),
        bypass_ripple: Type.Optional(Anything),
      },
      { additionalProperties: false },
    ),
    response: statusAnswer('updated', { message: Type.String(), version: Type.Integer() }),
  },
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
  schema: {
    summary: 'Name a field as the primary key alias',
    description: 'Insert takes the alias field as the id; reads accept its value as the id.',
    body: Type.Object({ alias: Type.String() }),
    response: Type.Object({ message: Type.String(), alias: Type.String() }),
  },
  input: (raw) => ({ name: collectionParam(raw), alias: parseAlias(raw.body) }),
  handler: async ({ name, alias }, ctx) => {
    await ctx.collections.setPrimaryKeyAlias(name, alias);
    return { message: `Primary key alias of '${name}' set to '${alias}'`, alias };
  },
});

export const trashList = defineProcedure({
  name: 'trash.list',
  kind: 'query',
  access: 'admin',
  schema: {
    summary: "A page of a collection's trash",
    description: 'The most recently deleted first; each with when it was deleted and the record as it was.',
    query: {
      limit: Type.String({ description: 'At most this many, 1 to 1000 (50).' }),
      skip: Type.String({ description: 'Skip this many first (0).' }),
    },
    response: Type.Object({
      collection: Type.String(),
      total: Type.Integer(),
      records: Type.Array(Type.Object({ id: Type.String(), deleted_at: Type.String(), record: Type.Object({}) })),
    }),
  },
  input: (raw) => ({
    collection: collectionParam(raw),
    limit: queryInteger(raw, 'limit', { min: 1, max: 1000, fallback: 50 }),
    skip: queryInteger(raw, 'skip', { min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0 }),
  }),
  handler: ({ collection, limit, skip }, ctx) => {
    const page = ctx.trash.list(collection, limit, skip);
    return {
      collection,
      total: page.total,
      records: page.entries.map((t) => ({
        id: t.id,
        deleted_at: new Date(t.deletedAt).toISOString(),
        record: recordToWire(t.fields, { typed: ctx.typed }),
      })),
    };
  },
});

export const trashRestore = defineProcedure({
  name: 'trash.restore',
  kind: 'mutation',
  access: 'admin',
  schema: {
    summary: 'Restore a deleted record from the trash',
    response: statusAnswer('restored', { id: Type.String(), collection: Type.String() }),
  },
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
  schema: {
    summary: "Restore every record of a collection's trash",
    response: statusAnswer('restored', { collection: Type.String(), records_restored: Type.Integer() }),
  },
  input: collectionParam,
  handler: async (collection, ctx) => {
    const restored = await ctx.trash.restoreAll(collection);
    return { status: 'restored', collection, records_restored: restored };
  },
});
