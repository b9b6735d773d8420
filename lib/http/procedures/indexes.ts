/** Query index administration and explain (protocol.md 2.10). */
import { InvalidInput } from '../../errors.js';
import { INDEX_FIELD_RULE, indexDefs, isIndexableField, parseQuery, rejectUnknownMembers } from '../../engine/index.js';
import { defineProcedure } from './procedure.js';
import { collectionParam, isPlainObjectValue, param } from './input.js';
import { QueryBody, statusAnswer, Type } from './shapes.js';

const IndexType = Type.Enum(['btree', 'hash']);

/** `{field, type?: "btree" | "hash"}` (btree by default). */
function parseIndexRequest(body: unknown): { field: string; type: 'btree' | 'hash' } {
  if (!isPlainObjectValue(body)) throw new InvalidInput('Body must be {field, type?: "btree" | "hash"}');
  rejectUnknownMembers(body, ['field', 'type']);
  if (!isIndexableField(body.field)) throw new InvalidInput(INDEX_FIELD_RULE);
  const type = body.type ?? 'btree';
  if (type !== 'btree' && type !== 'hash') throw new InvalidInput('\'type\' must be "btree" or "hash"');
  return { field: body.field, type };
}

export const indexesCreate = defineProcedure({
  name: 'indexes.create',
  kind: 'mutation',
  access: 'admin',
  schema: {
    summary: 'Create a query index on a field',
    description: 'btree (ranges and sorts) by default, or hash (equality); built at once from the records.',
    body: Type.Object({ field: Type.String(), type: Type.Optional(IndexType) }, { additionalProperties: false }),
    response: statusAnswer('created', { collection: Type.String(), field: Type.String(), type: IndexType }),
  },
  input: (raw) => ({ collection: collectionParam(raw), def: parseIndexRequest(raw.body) }),
  handler: async (input, ctx) => {
    const created = await ctx.collections.createIndex(input.collection, input.def);
    return { status: 'created', collection: input.collection, ...created };
  },
});

export const indexesList = defineProcedure({
  name: 'indexes.list',
  kind: 'query',
  access: 'admin',
  schema: {
    summary: "A collection's query indexes",
    response: Type.Object({
      collection: Type.String(),
      indexes: Type.Array(
        Type.Object({
          field: Type.String(),
          type: IndexType,
          source: Type.Enum(['admin', 'schema']),
          entries: Type.Integer(),
        }),
      ),
    }),
  },
  input: collectionParam,
  handler: (collection, ctx) => {
    const live = ctx.indexes.indexes(collection);
    const defs = indexDefs(ctx.collections.meta(collection));
    return { collection, indexes: defs.map((def) => ({ ...def, entries: live.get(def.field)?.size ?? 0 })) };
  },
});

export const indexesDrop = defineProcedure({
  name: 'indexes.drop',
  kind: 'mutation',
  access: 'admin',
  schema: {
    summary: 'Drop a query index',
    response: statusAnswer('dropped', { collection: Type.String(), field: Type.String() }),
  },
  input: (raw) => ({ collection: collectionParam(raw), field: param(raw, 'field') }),
  handler: async (input, ctx) => {
    await ctx.collections.dropIndex(input.collection, input.field);
    return { status: 'dropped', collection: input.collection, field: input.field };
  },
});

export const queryExplain = defineProcedure({
  name: 'query.explain',
  kind: 'query',
  access: 'user',
  schema: {
    summary: 'How a find would run a query',
    description: 'The plan (an index, or a scan) with the counts it saw; nothing is returned of the records.',
    body: QueryBody,
    response: Type.Object({}, { description: 'The plan.' }),
  },
  input: (raw) => ({ collection: collectionParam(raw), query: parseQuery(raw.body ?? {}) }),
  scope: (input) => ({ collections: [{ name: input.collection, mode: 'read' }] }),
  handler: (input, ctx) => ctx.planner.explain(input.collection, input.query),
});
