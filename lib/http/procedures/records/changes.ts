/**
 * Subscriptions to committed changes: the first stream procedure, served
 * by GET /api/subscribe/{c} (SSE) and the WebSocket Subscribe message from
 * the same code. Events: `subscribed` first, then `mutation` per committed
 * change and `schema_changed` per schema or alias change.
 */
import { defineProcedure, type StreamEvent } from '../procedure.js';
import { collectionParam, queryString } from '../input.js';
import { EventQueue } from '../../stream/event-queue.js';
import { Type } from '../shapes.js';

export const changesSubscribe = defineProcedure({
  name: 'changes.subscribe',
  kind: 'stream',
  access: 'user',
  schema: {
    summary: "Watch a collection's committed changes (server-sent events)",
    description:
      '`event: subscribed` first, then `mutation` per committed change and `schema_changed` per schema change; ' +
      '`heartbeat` events keep proxies open.',
    query: {
      filter_field: Type.String({ description: 'Only changes whose record has this field...' }),
      filter_value: Type.String({ description: '...equal to this value.' }),
    },
    response: Type.Object(
      {},
      {
        description:
          'subscribed: {subscription_id, collection}; mutation: {collection, event, record_ids, records?...}; ' +
          'schema_changed: {collection, ...}; heartbeat: {timestamp}.',
      },
    ),
  },
  input: (raw) => {
    const field = queryString(raw, 'filter_field');
    return {
      collection: collectionParam(raw),
      filter: field ? { field, value: queryString(raw, 'filter_value') ?? '' } : undefined,
    };
  },
  scope: (input) => ({ collections: [{ name: input.collection, mode: 'read' }] }),
  handler: ({ collection, filter }, ctx): AsyncIterable<StreamEvent> => {
    // Subscribed before the handler returns, so a change committed right after the reply is not missed.
    // Notices arrive only on a later commit, by when `queue` exists.
    const sub = ctx.changes.subscribe(collection, filter, {
      mutation: (data) => queue.push({ event: 'mutation', data }),
      schema: (data) => queue.push({ event: 'schema_changed', data }),
      ended: () => queue.end(),
    });
    const queue = new EventQueue<StreamEvent>(ctx.signal, () => sub.close());
    queue.push({ event: 'subscribed', data: { subscription_id: sub.id, collection } });
    return queue;
  },
});
