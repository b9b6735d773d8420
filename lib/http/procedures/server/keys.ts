/** API key management (admin): create, list without secrets, update rights, revoke. */
import { describeKey, parseKeyRequest } from '../../../engine/index.js';
import { defineProcedure } from '../procedure.js';
import { param } from '../input.js';

export const keysCreate = defineProcedure({
  name: 'keys.create',
  kind: 'mutation',
  access: 'admin',
  input: (raw) => parseKeyRequest(raw.body),
  handler: async (req, ctx) => {
    const { key, record } = await ctx.keys.create(req);
    return { key, ...describeKey(record) };
  },
});

export const keysList = defineProcedure({
  name: 'keys.list',
  kind: 'query',
  access: 'admin',
  input: () => undefined,
  handler: (_i, ctx) => ({ keys: ctx.keys.list().map(describeKey) }),
});

export const keysUpdate = defineProcedure({
  name: 'keys.update',
  kind: 'mutation',
  access: 'admin',
  input: (raw) => ({ id: param(raw, 'id'), req: parseKeyRequest(raw.body) }),
  handler: async ({ id, req }, ctx) => describeKey(await ctx.keys.update(id, req)),
});

export const keysRevoke = defineProcedure({
  name: 'keys.revoke',
  kind: 'mutation',
  access: 'admin',
  input: (raw) => param(raw, 'id'),
  handler: async (id, ctx) => {
    await ctx.keys.revoke(id);
    return { status: 'revoked', id };
  },
});
