/** Collections, schemas, primary-key aliases and the trash. */
import { validateId } from '../../engine/index.js';
import { defineProcedure } from '../procedure.js';
import { collectionParam, param, queryFlag } from '../input.js';

export const collectionsList = defineProcedure({
  name: 'collections.list', kind: 'query', access: 'admin',
  input: (raw) => queryFlag(raw, 'exclude_internal') ?? false,
  handler: (excludeInternal, ctx) => ({ collections: ctx.db.collections.list(excludeInternal) }),
});

export const collectionsCreate = defineProcedure({
  name: 'collections.create', kind: 'mutation', access: 'admin',
  input: (raw) => ({ name: collectionParam(raw), body: raw.body }),
  handler: async ({ name, body }, ctx) => {
    await ctx.db.collections.create(name, body);
    return { status: 'created', message: `Collection '${name}' created`, collection: name };
  },
});

export const collectionsGet = defineProcedure({
  name: 'collections.get', kind: 'query', access: 'user',
  input: collectionParam,
  scope: (name) => ({ collections: [{ name, mode: 'read' }] }),
  handler: (name, ctx) => {
    const info = ctx.db.collections.info(name);
    return {
      collection: info.schema,
      analytics: { record_count: info.record_count, trash_count: ctx.db.trash.count(name) },
      name: info.name,
      record_count: info.record_count,
      created_at: info.created_at,
      schema: info.schema,
    };
  },
});

export const collectionsDelete = defineProcedure({
  name: 'collections.delete', kind: 'mutation', access: 'admin',
  input: collectionParam,
  handler: async (name, ctx) => {
    await ctx.db.collections.drop(name);
    return { status: 'deleted', message: `Collection '${name}' deleted` };
  },
});

export const schemasGet = defineProcedure({
  name: 'schemas.get', kind: 'query', access: 'user',
  input: collectionParam,
  scope: (name) => ({ collections: [{ name, mode: 'read' }] }),
  handler: (name, ctx) => ctx.db.collections.schema(name),
});

export const schemasUpdate = defineProcedure({
  name: 'schemas.update', kind: 'mutation', access: 'admin',
  input: (raw) => ({ name: collectionParam(raw), body: raw.body }),
  handler: async ({ name, body }, ctx) => {
    const schema = await ctx.db.collections.updateSchema(name, body);
    return { status: 'updated', message: `Schema of '${name}' updated`, version: schema.version };
  },
});

export const schemasSetAlias = defineProcedure({
  name: 'schemas.setPrimaryKeyAlias', kind: 'mutation', access: 'admin',
  input: (raw) => ({ name: collectionParam(raw), body: raw.body }),
  handler: async ({ name, body }, ctx) => {
    const alias = await ctx.db.collections.setPrimaryKeyAlias(name, body);
    return { message: `Primary key alias of '${name}' set to '${alias}'`, alias };
  },
});

export const trashRestore = defineProcedure({
  name: 'trash.restore', kind: 'mutation', access: 'admin',
  input: (raw) => ({ collection: collectionParam(raw), id: validateId(param(raw, 'id')) }),
  handler: async ({ collection, id }, ctx) => {
    await ctx.db.trash.restore(collection, id);
    return { status: 'restored', id, collection };
  },
});

export const trashRestoreCollection = defineProcedure({
  name: 'trash.restoreCollection', kind: 'mutation', access: 'admin',
  input: collectionParam,
  handler: async (collection, ctx) => {
    const n = await ctx.db.trash.restoreAll(collection);
    return { status: 'restored', collection, records_restored: n };
  },
});
