/** `POST /api/search/{c}`: text, vector and hybrid search (protocol.md 2.9). */
import { parseSearch, recordToWire } from '../../../engine/index.js';
import { defineProcedure } from '../procedure.js';
import { collectionParam, isPlainObjectValue, queryString } from '../input.js';

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
