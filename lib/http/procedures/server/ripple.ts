/**
 * Ripple routes (admin): a peer ships batches to `POST /api/ripple/apply`;
 * `GET /api/ripple/status` shows each peer's lag and last error;
 * `POST /api/ripple/resync` rebuilds collections on a peer.
 */
import { InvalidInput } from '../../../errors.js';
import { parseShipped, rejectUnknownMembers, validateCollectionName } from '../../../engine/index.js';
import { defineProcedure } from '../procedure.js';
import { bodyObject, optionalString } from '../input.js';
import { Anything, nullable, statusAnswer, Type } from '../shapes.js';

export const rippleApply = defineProcedure({
  name: 'ripple.apply',
  kind: 'mutation',
  access: 'admin',
  schema: {
    summary: "Apply batches shipped by a peer's ripple",
    description: 'Each batch is applied once: one seen before counts as duplicate, one of this node as own.',
    body: Type.Object({ batches: Type.Array(Anything, { description: 'Batches as a peer ships them.' }) }),
    response: statusAnswer('ok', {
      node_id: Type.String(),
      applied: Type.Integer(),
      duplicate: Type.Integer(),
      own: Type.Integer(),
    }),
  },
  input: (raw) => {
    const body = bodyObject(raw);
    if (!Array.isArray(body.batches)) throw new InvalidInput('Body must be {batches: [...]}');
    return body.batches as unknown[];
  },
  handler: async (batches, ctx) => {
    const outcomes = { applied: 0, duplicate: 0, own: 0 };
    // Each batch is checked just before it is applied: those before a malformed one stay applied.
    for (const batch of batches) outcomes[await ctx.replication.applyRemote(parseShipped(batch))] += 1;
    return { status: 'ok', node_id: ctx.replication.nodeId, ...outcomes };
  },
});

export const rippleStatus = defineProcedure({
  name: 'ripple.status',
  kind: 'query',
  access: 'admin',
  schema: {
    summary: "This node's ripple peers: lag and last error",
    response: Type.Object({
      node_id: Type.String(),
      seq: Type.Integer({ description: "This node's log sequence." }),
      peers: Type.Array(Type.Object({}, { description: 'A peer: its URL, what it acknowledged, its lag.' })),
    }),
  },
  input: () => undefined,
  handler: (_i, ctx) => ctx.ripples.status(),
});

export const rippleResync = defineProcedure({
  name: 'ripple.resync',
  kind: 'mutation',
  access: 'admin',
  schema: {
    summary: 'Rebuild collections on peers from this node',
    body: Type.Object(
      {
        peer: Type.Optional(nullable(Type.String({ description: 'One peer URL (all when absent).' }))),
        collections: Type.Optional(nullable(Type.Array(Type.String(), { description: 'All when absent.' }))),
      },
      { additionalProperties: false },
    ),
    response: statusAnswer('resynced', {
      peers: Type.Array(Type.String()),
      collections: Type.Array(Type.String()),
      records: Type.Integer(),
    }),
  },
  input: (raw) => {
    const body = raw.body === undefined ? {} : bodyObject(raw);
    rejectUnknownMembers(body, ['peer', 'collections']);
    let collections: string[] | undefined;
    if (body.collections !== undefined && body.collections !== null) {
      if (!Array.isArray(body.collections)) throw new InvalidInput("'collections' must be an array of names");
      collections = body.collections.map((c) => validateCollectionName(c));
    }
    return { peer: optionalString(body, 'peer'), collections };
  },
  handler: async (input, ctx) => ({ status: 'resynced', ...(await ctx.ripples.resync(input.peer, input.collections)) }),
});
