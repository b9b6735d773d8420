/** `POST /api/search/{c}`: text, vector and hybrid search (protocol.md 2.9). */
import { parseSearch, recordToWire } from '../../../engine/index.js';
import { defineProcedure } from '../procedure.js';
import { collectionParam, isPlainObjectValue, queryString } from '../input.js';
import { Anything, Filter, InTransaction, nullable, RecordShape, Type } from '../shapes.js';

const bool = (description?: string) => Type.Optional(nullable(Type.Boolean(description ? { description } : {})));
const num = (description?: string) => Type.Optional(nullable(Type.Number(description ? { description } : {})));
const int = (description?: string) => Type.Optional(nullable(Type.Integer(description ? { description } : {})));
const fields = Type.Union([Type.Array(Type.String()), Type.String()]);

const SearchBody = Type.Object(
  {
    query: Type.Optional(nullable(Type.String({ description: 'The text to search (BM25).' }))),
    vector: Type.Optional(nullable(Type.Array(Type.Number(), { description: 'Nearest neighbours of this vector.' }))),
    language: Type.Optional(nullable(Type.String())),
    case_sensitive: bool(),
    fuzzy: bool(),
    enable_stemming: bool(),
    boost_exact: bool(),
    min_score: num(),
    max_edit_distance: int('0 to 5.'),
    fields: Type.Optional(nullable(fields)),
    weights: Type.Optional(nullable(Type.Union([Type.String({ description: '"field:weight,..."' }), Type.Object({})]))),
    limit: int('1 to 100000.'),
    vector_field: Type.Optional(nullable(Type.String({ description: 'Where the vectors are (embedding).' }))),
    vector_metric: Type.Optional(nullable(Type.Enum(['cosine', 'euclidean', 'dotproduct']))),
    vector_k: int(),
    vector_threshold: num(),
    text_weight: num(),
    vector_weight: num(),
    select_fields: Type.Optional(nullable(fields)),
    exclude_fields: Type.Optional(nullable(fields)),
    filters: Type.Optional(nullable(Filter)),
    transaction_id: Type.Optional(Anything),
    bypass_ripple: Type.Optional(Anything),
    bypass_cache: Type.Optional(Anything),
  },
  {
    additionalProperties: false,
    description: 'A query alone is a text search, a vector alone a nearest-neighbour search, both a hybrid one.',
  },
);

/**
 * Separates the request's envelope (`transaction_id`, and `bypass_ripple` /
 * `bypass_cache`, accepted and ignored by a read) from the search itself.
 */
function splitEnvelope(body: unknown): { search: unknown; transactionId?: string } {
  if (!isPlainObjectValue(body)) return { search: body };
  const { transaction_id: tx, bypass_ripple: _r, bypass_cache: _c, ...search } = body;
  return typeof tx === 'string' ? { search, transactionId: tx } : { search };
}

export const searchQuery = defineProcedure({
  name: 'search.query',
  kind: 'query',
  access: 'user',
  schema: {
    summary: 'Text, vector or hybrid search',
    query: InTransaction,
    body: SearchBody,
    response: Type.Object({
      results: Type.Array(
        Type.Object({ record: RecordShape, score: Type.Number(), matched_fields: Type.Array(Type.String()) }),
      ),
      total: Type.Integer(),
      execution_time_ms: Type.Integer(),
      took_ms: Type.Integer(),
    }),
  },
  input: (raw) => {
    const { search, transactionId } = splitEnvelope(raw.body);
    const req = parseSearch(search);
    const tx = queryString(raw, 'transaction_id') ?? transactionId;
    // An empty id joins no transaction, as if it were absent.
    return { collection: collectionParam(raw), req, tx: tx || undefined };
  },
  scope: (input) => ({ collections: [{ name: input.collection, mode: 'read' }], transaction: input.tx }),
  handler: async (input, ctx) => {
    const started = performance.now();
    const { results, total } = await ctx.session.search(input.collection, input.req);
    const ms = Math.round(performance.now() - started);
    return {
      results: results.map((r) => ({
        record: recordToWire(r.record, { typed: ctx.typed }),
        score: r.score,
        matched_fields: r.matched_fields,
      })),
      total,
      execution_time_ms: ms,
      took_ms: ms,
    };
  },
});
