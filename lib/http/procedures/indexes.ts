/** Query index administration and explain (protocol.md 2.10). */
import { indexDefs, parseQuery, validateCollectionName } from '../../engine/index.js';
import { defineProcedure, type RawInput } from '../procedure.js';
import { param } from '../input.js';

const collectionOf = (raw: RawInput) => validateCollectionName(param(raw, 'collection'));

export const indexesCreate = defineProcedure({
  name: 'indexes.create', kind: 'mutation', access: 'admin',
  input: (raw) => ({ collection: collectionOf(raw), body: raw.body }),
  handler: async (i, ctx) => ({ status: 'created', collection: i.collection, ...(await ctx.db.collections.createIndex(i.collection, i.body)) }),
});

export const indexesList = defineProcedure({
  name: 'indexes.list', kind: 'query', access: 'admin',
  input: collectionOf,
  handler: (c, ctx) => {
    const live = ctx.db.indexes.indexes(c);
    const defs = indexDefs(ctx.db.collections.meta(c));
    return { collection: c, indexes: defs.map((d) => ({ ...d, entries: live.get(d.field)?.size ?? 0 })) };
  },
});

export const indexesDrop = defineProcedure({
  name: 'indexes.drop', kind: 'mutation', access: 'admin',
  input: (raw) => ({ collection: collectionOf(raw), field: param(raw, 'field') }),
  handler: async (i, ctx) => {
    await ctx.db.collections.dropIndex(i.collection, i.field);
    return { status: 'dropped', collection: i.collection, field: i.field };
  },
});

export const queryExplain = defineProcedure({
  name: 'query.explain', kind: 'query', access: 'user',
  input: (raw) => ({ collection: collectionOf(raw), query: parseQuery(raw.body ?? {}) }),
  collection: (i) => ({ name: i.collection, mode: 'read' }),
  handler: (i, ctx) => ctx.db.records.explain(i.collection, i.query),
});
