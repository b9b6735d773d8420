/**
 * Key-value routes (protocol.md 2.8). `get` answers `{value: <typed>}` and
 * 404 when missing; batch get answers a bare array of raw values; batch
 * set/delete answer `[[key, bool], ...]`; find answers a bare array.
 * Every handler checks the caller's KV grant (permissions.ts) for every key
 * it names before touching the store; `clear` is admin-only.
 */
import { InvalidInput } from '../../errors.js';
import {
  parseKvKeys,
  rejectUnknownMembers,
  requirePattern,
  validateCollectionName,
  validateId,
  validateKvKey,
  valueToWire,
  VALUES_RULE,
} from '../../engine/index.js';
import { defineProcedure } from './procedure.js';
import { bodyObject, param, queryFlag } from './input.js';
import { canReadCollection, checkCollectionAccess, checkKvAccess, kvKeyFilter } from '../auth/permissions.js';
import type { Context } from './context.js';
import { Anything, BypassRipple, nullable, Type } from './shapes.js';

const Keys = Type.Array(Type.String(), { description: 'At most max_batch_size keys.' });
const Ttl = Type.Optional(
  nullable(
    Type.Union([Type.String(), Type.Number()], { description: '"30s", "5m", seconds, or an RFC 3339 instant.' }),
  ),
);
/** `[[key, done], ...]`: each key with whether it was written or deleted. */
const KeyOutcomes = Type.Array(Type.Array(Type.Union([Type.String(), Type.Boolean()]), { description: '[key, ok]' }));
const LinkBody = Type.Object(
  { key: Type.String(), collection: Type.String(), document_id: Type.String() },
  { additionalProperties: false },
);

/** The most entries one find may ask for with `limit` (without one it answers every match, as clients expect). */
const MAX_FIND_LIMIT = 10_000;

const keyParam = (raw: Parameters<typeof param>[0]) => param(raw, 'key');

function only(body: Record<string, unknown>, allowed: string[]): Record<string, unknown> {
  rejectUnknownMembers(body, allowed);
  return body;
}

/** A batch's validated keys (at most `max_batch_size`), once the caller may `mode` every one of them. */
function allowedKeys(ctx: Context, mode: 'read' | 'write', raw: unknown): string[] {
  const keys = parseKvKeys(raw, ctx.config.settings().max_batch_size);
  checkKvAccess(ctx.principal, mode, keys);
  return keys;
}

export const kvSet = defineProcedure({
  name: 'kv.set',
  kind: 'mutation',
  access: 'user',
  schema: {
    summary: 'Set a key',
    description: 'Durable on return; never part of a transaction.',
    query: BypassRipple,
    body: Type.Object(
      { value: Anything, ttl: Ttl, bypass_ripple: Type.Optional(Anything) },
      { additionalProperties: false },
    ),
    response: Type.Object({ success: Type.Literal(true), key: Type.String() }),
  },
  input: (raw) => {
    const body = only(bodyObject(raw), ['value', 'ttl', 'bypass_ripple']);
    if (!('value' in body)) throw new InvalidInput('Body must be {value, ttl?}');
    return {
      key: keyParam(raw),
      value: body.value,
      ttl: body.ttl,
      bypassRipple: body.bypass_ripple === true || queryFlag(raw, 'bypass_ripple') === true,
    };
  },
  handler: async (input, ctx) => {
    checkKvAccess(ctx.principal, 'write', [input.key]);
    await ctx.kv.set(input.key, input.value, input.ttl, input.bypassRipple);
    return { success: true, key: input.key };
  },
});

export const kvGet = defineProcedure({
  name: 'kv.get',
  kind: 'query',
  access: 'user',
  schema: {
    summary: "A key's value",
    description: '404 when the key is missing or expired.',
    response: Type.Object({ value: Type.Unknown({ description: 'The value, typed ({type, value}).' }) }),
  },
  input: keyParam,
  handler: (key, ctx) => {
    checkKvAccess(ctx.principal, 'read', [key]);
    return { value: valueToWire(ctx.kv.get(key), true) };
  },
});

export const kvDelete = defineProcedure({
  name: 'kv.delete',
  kind: 'mutation',
  access: 'user',
  schema: {
    summary: 'Delete a key',
    query: BypassRipple,
    response: Type.Object({ deleted: Type.Boolean(), key: Type.String() }),
  },
  input: (raw) => ({ key: keyParam(raw), bypassRipple: queryFlag(raw, 'bypass_ripple') === true }),
  handler: async (input, ctx) => {
    checkKvAccess(ctx.principal, 'write', [input.key]);
    return { deleted: await ctx.kv.delete(input.key, input.bypassRipple), key: input.key };
  },
});

export const kvClear = defineProcedure({
  name: 'kv.clear',
  kind: 'mutation',
  access: 'admin',
  schema: {
    summary: 'Delete every key',
    response: Type.Object({ message: Type.Literal('success'), cleared: Type.Integer() }),
  },
  input: () => undefined,
  handler: async (_i, ctx) => ({ message: 'success', cleared: await ctx.kv.clear() }),
});

export const kvBatchGet = defineProcedure({
  name: 'kv.batchGet',
  kind: 'query',
  access: 'user',
  schema: {
    summary: 'The values of many keys',
    body: Type.Object({ keys: Keys }, { additionalProperties: false }),
    response: Type.Array(Anything, { description: "Each key's value in order (null when missing)." }),
  },
  input: (raw) => only(bodyObject(raw), ['keys']).keys,
  handler: (raw, ctx) => ctx.kv.batchGet(allowedKeys(ctx, 'read', raw)),
});

export const kvBatchSet = defineProcedure({
  name: 'kv.batchSet',
  kind: 'mutation',
  access: 'user',
  schema: {
    summary: 'Set many keys',
    body: Type.Object(
      { keys: Keys, values: Type.Array(Anything, { description: 'One per key.' }), ttl: Ttl },
      { additionalProperties: false },
    ),
    response: KeyOutcomes,
  },
  input: (raw) => only(bodyObject(raw), ['keys', 'values', 'ttl']),
  handler: (body, ctx) => {
    const keys = allowedKeys(ctx, 'write', body.keys);
    if (!Array.isArray(body.values)) throw new InvalidInput(VALUES_RULE);
    return ctx.kv.batchSet(keys, body.values, body.ttl);
  },
});

export const kvBatchDelete = defineProcedure({
  name: 'kv.batchDelete',
  kind: 'mutation',
  access: 'user',
  schema: {
    summary: 'Delete many keys',
    body: Type.Object({ keys: Keys }, { additionalProperties: false }),
    response: KeyOutcomes,
  },
  input: (raw) => only(bodyObject(raw), ['keys']).keys,
  handler: (raw, ctx) => ctx.kv.batchDelete(allowedKeys(ctx, 'write', raw)),
});

export const kvFind = defineProcedure({
  name: 'kv.find',
  kind: 'query',
  access: 'user',
  schema: {
    summary: 'The entries whose key matches a pattern',
    description: 'A regular expression on RE2 semantics; every key when absent. A key with prefixes sees only those.',
    body: Type.Object(
      {
        pattern: Type.Optional(nullable(Type.String())),
        include_expired: Type.Optional(nullable(Type.Boolean())),
        limit: Type.Optional(nullable(Type.Integer({ description: `1 to ${MAX_FIND_LIMIT}: at most this many.` }))),
        after: Type.Optional(
          nullable(Type.String({ description: 'Only keys sorting after this one (the next page).' })),
        ),
      },
      { additionalProperties: false },
    ),
    response: Type.Array(
      Type.Object({ key: Type.String(), value: Anything, expires_at: Type.Optional(Type.String()) }),
    ),
  },
  input: (raw) => {
    const body = only(raw.body === undefined ? {} : bodyObject(raw), ['pattern', 'include_expired', 'limit', 'after']);
    const { include_expired: includeExpired, limit, after } = body;
    if (includeExpired !== undefined && includeExpired !== null && typeof includeExpired !== 'boolean') {
      throw new InvalidInput("'include_expired' must be a boolean");
    }
    if (
      limit !== undefined &&
      limit !== null &&
      (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_FIND_LIMIT)
    ) {
      throw new InvalidInput(`'limit' must be an integer between 1 and ${MAX_FIND_LIMIT}`);
    }
    if (after !== undefined && after !== null && typeof after !== 'string') {
      throw new InvalidInput("'after' must be a string");
    }
    return {
      pattern: body.pattern,
      includeExpired: includeExpired === true,
      limit: typeof limit === 'number' ? limit : undefined,
      after: typeof after === 'string' ? after : undefined,
    };
  },
  handler: async (input, ctx) => {
    checkKvAccess(ctx.principal, 'read', []);
    const keep = kvKeyFilter(ctx.principal);
    const given = input.pattern;
    const pattern =
      given === undefined || given === null || given === '' ? undefined : requirePattern(given, 'pattern');
    const found = await ctx.kv.find(pattern, input.includeExpired, {
      after: input.after,
      limit: input.limit,
      ...(keep ? { keep } : {}),
    });
    return found.map((e) => ({ ...e, value: valueToWire(e.value, true) }));
  },
});

export const kvLinks = defineProcedure({
  name: 'kv.links',
  kind: 'query',
  access: 'user',
  schema: {
    summary: 'The records a key is linked to',
    response: Type.Object({
      key: Type.String(),
      links: Type.Array(Type.Object({ collection: Type.String(), document_id: Type.String() })),
    }),
  },
  input: keyParam,
  handler: (key, ctx) => {
    checkKvAccess(ctx.principal, 'read', [key]);
    return { key, links: ctx.kv.links(key).filter((l) => canReadCollection(ctx.principal, l.collection)) };
  },
});

function linkProcedure(unlink: boolean) {
  return defineProcedure({
    name: unlink ? 'kv.unlink' : 'kv.link',
    kind: 'mutation',
    access: 'user',
    schema: {
      summary: unlink ? 'Unlink a key from a record' : 'Link a key to a record',
      description: 'Needs KV write on the key and read on the collection.',
      body: LinkBody,
      response: Type.Object({
        status: Type.Literal(unlink ? 'unlinked' : 'linked'),
        key: Type.String(),
        collection: Type.String(),
        document_id: Type.String(),
      }),
    },
    input: (raw) => only(bodyObject(raw), ['key', 'collection', 'document_id']),
    handler: async (body, ctx) => {
      // A link is the KV key's data (KV write), naming a record the caller must be able to read.
      checkKvAccess(ctx.principal, 'write', typeof body.key === 'string' ? [body.key] : []);
      const { key, collection, document_id: recordId } = body;
      if (typeof collection === 'string' && ctx.principal) checkCollectionAccess(ctx.principal, collection, 'read');
      const kvKey = validateKvKey(key);
      await ctx.kv.link(kvKey, validateCollectionName(collection), validateId(recordId, 'document_id'), unlink);
      return { status: unlink ? 'unlinked' : 'linked', key, collection, document_id: recordId };
    },
  });
}

export const kvLink = linkProcedure(false);
export const kvUnlink = linkProcedure(true);
