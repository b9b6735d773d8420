/** Query index administration and explain (protocol.md 2.10). */
import { indexDefs, parseQuery } from '../../engine/index.js';
import { defineProcedure } from '../procedure.js';
import { collectionParam, param } from '../input.js';

export const indexesCreate = defineProcedure({
  name: 'indexes.create', kind: 'mutation', access: 'admin',
  input: (raw) => ({ collection: collectionParam(raw), body: raw.body }),
  handler: async (i, ctx) => ({ status: 'created', collection: i.collection, ...(await ctx.db.collections.createIndex(i.collection, i.body)) }),
});

export const indexesList = defineProcedure({
  name: 'indexes.list', kind: 'query', access: 'admin',
  input: collectionParam,
  handler: (c, ctx) => {
    const live = ctx.db.indexes.indexes(c);
    const defs = indexDefs(ctx.db.collections.meta(c));
    return { collection: c, indexes: defs.map((d) => ({ ...d, entries: live.get(d.field)?.size ?? 0 })) };
  },
});

export const indexesDrop = defineProcedure({
  name: 'indexes.drop', kind: 'mutation', access: 'admin',
  input: (raw) => ({ collection: collectionParam(raw), field: param(raw, 'field') }),
  handler: async (i, ctx) => {
    await ctx.db.collections.dropIndex(i.collection, i.field);
    return { status: 'dropped', collection: i.collection, field: i.field };
  },
});

export const queryExplain = defineProcedure({
  name: 'query.explain', kind: 'query', access: 'user',
  input: (raw) => ({ collection: collectionParam(raw), query: parseQuery(raw.body ?? {}) }),
  scope: (i) => ({ collections: [{ name: i.collection, mode: 'read' }] }),
  handler: (i, ctx) => ctx.db.records.explain(i.collection, i.query),
});
