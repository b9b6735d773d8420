/**
 * Ripple routes (admin): a peer ships batches to `POST /api/ripple/apply`;
 * `GET /api/ripple/status` shows each peer's lag and last error;
 * `POST /api/ripple/resync` rebuilds collections on a peer.
 */
import { InvalidInput } from '../../../errors.js';
import { parseShipped, rejectUnknownMembers, validateCollectionName } from '../../../engine/index.js';
import { defineProcedure } from '../procedure.js';
import { bodyObject, optionalString } from '../input.js';

export const rippleApply = defineProcedure({
  name: 'ripple.apply',
  kind: 'mutation',
  access: 'admin',
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
  input: () => undefined,
  handler: (_i, ctx) => ctx.ripples.status(),
});

export const rippleResync = defineProcedure({
  name: 'ripple.resync',
  kind: 'mutation',
  access: 'admin',
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
