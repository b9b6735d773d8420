/** `POST /api/search/{c}`: text, vector and hybrid search (protocol.md 2.9). */
import { parseSearch, recordToWire } from '../../engine/index.js';
import { defineProcedure } from '../procedure.js';
import { collectionParam, queryString } from '../input.js';

export const searchQuery = defineProcedure({
  name: 'search.query', kind: 'query', access: 'user',
  input: (raw) => {
    const req = parseSearch(raw.body);
    const body = raw.body as Record<string, unknown>;
    const tx = queryString(raw, 'transaction_id') ?? (typeof body.transaction_id === 'string' ? body.transaction_id : undefined);
    // An empty id joins no transaction, as if it were absent.
    return { collection: collectionParam(raw), req, tx: tx || undefined };
  },
  scope: (i) => ({ collections: [{ name: i.collection, mode: 'read' }], transaction: i.tx }),
  handler: (i, ctx) => {
    const started = performance.now();
    const { results, total } = ctx.session.search(i.collection, i.req);
    const ms = Math.round(performance.now() - started);
    return {
      results: results.map((r) => ({ record: recordToWire(r.record, { typed: ctx.typed }), score: r.score, matched_fields: r.matched_fields })),
      total,
      execution_time_ms: ms,
      took_ms: ms,
    };
  },
});
