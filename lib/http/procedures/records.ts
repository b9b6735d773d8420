/** Record routes: insert, find, find by id, update (merge, action, sequence), delete, distinct, count. */
import { InvalidInput, MESSAGES, NotFound } from '../../errors.js';
import { parseQuery, recordToWire, validateCollectionName, validateId, type Fields } from '../../engine/index.js';
import { defineProcedure, type RawInput } from '../procedure.js';
import { bodyObject, param, queryList, queryString } from '../input.js';
import { isPlainObjectValue } from '../plain-object.js';
import type { Context } from '../context.js';

const SYSTEM_BODY_KEYS = new Set(['id', 'ttl', 'ttl_update_on_access']);

function collectionOf(raw: RawInput): string {
  return validateCollectionName(param(raw, 'collection'));
}

/** Transactions arrive with issue #4; until then every transaction id is unknown. */
function noTransaction(raw: RawInput): void {
  const tx = queryString(raw, 'transaction_id');
  if (tx !== undefined && tx !== '') throw new NotFound(MESSAGES.transactionNotFound);
}

function writtenFields(body: unknown): string[] {
  return isPlainObjectValue(body) ? Object.keys(body).filter((k) => !SYSTEM_BODY_KEYS.has(k)) : [];
}

function out(ctx: Context, r: Fields, select?: string[], exclude?: string[]): Record<string, unknown> {
  let rec = r;
  if (select || exclude) {
    const keep: Record<string, Fields[string]> = {};
    for (const [k, v] of Object.entries(r)) {
      if (k === 'id' || ((!select || select.includes(k)) && !(exclude?.includes(k)))) keep[k] = v;
    }
    rec = keep;
  }
  return recordToWire(rec, { typed: ctx.typed });
}

export const recordsInsert = defineProcedure({
  name: 'records.insert', kind: 'mutation', access: 'user',
  input: (raw) => { noTransaction(raw); return { collection: collectionOf(raw), body: bodyObject(raw) }; },
  collection: (i) => ({ name: i.collection, mode: 'write', fields: writtenFields(i.body) }),
  handler: async ({ collection, body }, ctx) => ({ id: await ctx.db.records.insert(collection, body) }),
});

export const recordsFindById = defineProcedure({
  name: 'records.findById', kind: 'query', access: 'user',
  input: (raw) => {
    noTransaction(raw);
    return { collection: collectionOf(raw), id: validateId(param(raw, 'id')), select: queryList(raw, 'select_fields'), exclude: queryList(raw, 'exclude_fields') };
  },
  collection: (i) => ({ name: i.collection, mode: 'read' }),
  handler: (i, ctx) => out(ctx, ctx.db.records.findById(i.collection, i.id), i.select, i.exclude),
});

export const recordsFind = defineProcedure({
  name: 'records.find', kind: 'query', access: 'user',
  input: (raw) => {
    noTransaction(raw);
    const query = parseQuery(raw.body);
    if (query.transactionId !== undefined) throw new NotFound(MESSAGES.transactionNotFound);
    return { collection: collectionOf(raw), query };
  },
  collection: (i) => ({ name: i.collection, mode: 'read' }),
  handler: ({ collection, query }, ctx) => {
    for (const c of query.join?.collections ?? []) validateCollectionName(c);
    return ctx.db.records.find(collection, query).map((r) => recordToWire(r, { typed: ctx.typed }));
  },
});

export const recordsUpdate = defineProcedure({
  name: 'records.update', kind: 'mutation', access: 'user',
  input: (raw) => {
    noTransaction(raw);
    return { collection: collectionOf(raw), id: validateId(param(raw, 'id')), body: bodyObject(raw),
      select: queryList(raw, 'select_fields'), exclude: queryList(raw, 'exclude_fields') };
  },
  collection: (i) => ({ name: i.collection, mode: 'write', fields: writtenFields(i.body) }),
  handler: async (i, ctx) => out(ctx, await ctx.db.records.update(i.collection, i.id, i.body), i.select, i.exclude),
});

function parseActionBody(body: unknown): { field: string; value: unknown } {
  if (Array.isArray(body) && (body.length === 1 || body.length === 2) && typeof body[0] === 'string') {
    return { field: body[0], value: body[1] ?? null };
  }
  if (isPlainObjectValue(body) && typeof body.field === 'string') return { field: body.field, value: body.value ?? null };
  throw new InvalidInput("Action body must be {field: string, value?: any}");
}

export const recordsUpdateAction = defineProcedure({
  name: 'records.updateAction', kind: 'mutation', access: 'user',
  input: (raw) => {
    noTransaction(raw);
    return { collection: collectionOf(raw), id: validateId(param(raw, 'id')), action: param(raw, 'action'), ...parseActionBody(raw.body) };
  },
  collection: (i) => ({ name: i.collection, mode: 'write', fields: [i.field.split('.')[0]!] }),
  handler: async (i, ctx) => out(ctx, await ctx.db.records.updateWithAction(i.collection, i.id, i.action, i.field, i.value)),
});

export const recordsUpdateSequence = defineProcedure({
  name: 'records.updateSequence', kind: 'mutation', access: 'user',
  input: (raw) => {
    noTransaction(raw);
    if (!Array.isArray(raw.body)) throw new InvalidInput('Action sequence body must be an array of [action, field, value] triples');
    return { collection: collectionOf(raw), id: validateId(param(raw, 'id')), steps: raw.body as unknown[] };
  },
  collection: (i) => ({
    name: i.collection, mode: 'write',
    fields: i.steps.map((s) => (Array.isArray(s) ? s[1] : isPlainObjectValue(s) ? s.field : undefined)).filter((f): f is string => typeof f === 'string').map((f) => f.split('.')[0]!),
  }),
  handler: async (i, ctx) => out(ctx, await ctx.db.records.updateWithSequence(i.collection, i.id, i.steps)),
});

export const recordsDelete = defineProcedure({
  name: 'records.delete', kind: 'mutation', access: 'user',
  input: (raw) => { noTransaction(raw); return { collection: collectionOf(raw), id: validateId(param(raw, 'id')) }; },
  collection: (i) => ({ name: i.collection, mode: 'write' }),
  handler: async (i, ctx) => {
    const id = await ctx.db.records.delete(i.collection, i.id);
    return { id, deleted: true, status: 'deleted' };
  },
});

export const recordsDistinct = defineProcedure({
  name: 'records.distinct', kind: 'query', access: 'user',
  input: (raw) => {
    const body = raw.body === undefined ? {} : bodyObject(raw);
    for (const k of Object.keys(body)) {
      if (!['filter', 'bypass_ripple', 'bypass_cache'].includes(k)) throw new InvalidInput(`Unknown member '${k}' in distinct body; expected filter, bypass_ripple, bypass_cache`);
    }
    return { collection: collectionOf(raw), field: param(raw, 'field'), filter: body.filter };
  },
  collection: (i) => ({ name: i.collection, mode: 'read' }),
  handler: (i, ctx) => {
    const values = ctx.db.records.distinct(i.collection, i.field, i.filter);
    return { collection: i.collection, field: i.field, values, count: values.length };
  },
});

export const recordsCount = defineProcedure({
  name: 'records.count', kind: 'query', access: 'user',
  input: collectionOf,
  collection: (name) => ({ name, mode: 'read' }),
  handler: (name, ctx) => ({ count: ctx.db.records.count(name) }),
});
