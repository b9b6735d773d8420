/** `POST /api/search/{c}`: text, vector and hybrid search (protocol.md 2.9). */
import { parseSearch, recordToWire, runSearch } from '../../engine/index.js';
import { defineProcedure } from '../procedure.js';
import { collectionParam, queryString } from '../input.js';
import { own } from './transactions.js';

export const searchQuery = defineProcedure({
  name: 'search.query', kind: 'query', access: 'user',
  input: (raw) => {
    const req = parseSearch(raw.body);
    const body = raw.body as Record<string, unknown>;
    const tx = queryString(raw, 'transaction_id') ?? (typeof body.transaction_id === 'string' ? body.transaction_id : undefined);
    return { collection: collectionParam(raw), req, tx };
  },
  collection: (i) => ({ name: i.collection, mode: 'read' }),
  handler: (i, ctx) => {
    const started = performance.now();
    let view;
    if (i.tx) {
      own(ctx, i.tx);
      view = ctx.db.transactions.recordsOf(i.tx, i.collection);
    }
    const { results, total } = runSearch(ctx.db, i.collection, i.req, view);
    const ms = Math.round(performance.now() - started);
    return {
      results: results.map((r) => ({ record: recordToWire(r.record, { typed: ctx.typed }), score: r.score, matched_fields: r.matched_fields })),
      total,
      execution_time_ms: ms,
      took_ms: ms,
    };
  },
});
