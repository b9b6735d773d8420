/** Record routes: insert, find, find by id, update (merge, action, sequence), delete, distinct, count. */
import { InvalidInput } from '../../../errors.js';
import {
  parseActionSequence,
  parseFieldPath,
  parseFilter,
  parseQuery,
  rejectUnknownMembers,
  validateCollectionName,
  validateId,
  type ActionStep,
  type Fields,
} from '../../../engine/index.js';
import { defineProcedure, type RawInput, type Scope } from '../procedure.js';
import { bodyObject, collectionParam, isPlainObjectValue, param, queryFlag, queryList, queryString } from '../input.js';
import { WireRecord } from '../../wire/wire-record.js';
import { RecordList } from '../../wire/record-list.js';
import type { Context } from '../context.js';
import {
  Anything,
  BypassRipple,
  Filter,
  InTransaction,
  nullable,
  Projection,
  QueryBody,
  RecordFields,
  Type,
  RecordShape,
} from '../shapes.js';

const ACTIONS = 'increment, decrement, multiply, divide, modulo, push, pop, shift, unshift, remove, append, clear';

const SYSTEM_BODY_KEYS = new Set(['id', 'ttl', 'ttl_update_on_access']);

/** The `transaction_id` a statement joins (query string), if any. */
function txOf(raw: RawInput): string | undefined {
  const tx = queryString(raw, 'transaction_id');
  return tx === undefined || tx === '' ? undefined : tx;
}

/** `bypass_ripple` from the query string; in a record body it would be a field like any other. */
function bypassOf(raw: RawInput): boolean {
  return queryFlag(raw, 'bypass_ripple') ?? false;
}

function writtenFields(body: unknown): string[] {
  return isPlainObjectValue(body) ? Object.keys(body).filter((k) => !SYSTEM_BODY_KEYS.has(k)) : [];
}

/** The record on the wire, keeping only top-level fields named by the query-string lists (and always `id`). */
function out(ctx: Context, record: Fields, select?: string[], exclude?: string[]): WireRecord {
  let rec = record;
  if (select || exclude) {
    const selected = select && new Set(select);
    const excluded = new Set(exclude);
    const keep: Record<string, Fields[string]> = {};
    for (const [field, value] of Object.entries(record)) {
      if (field === 'id' || ((!selected || selected.has(field)) && !excluded.has(field))) keep[field] = value;
    }
    rec = keep;
  }
  // Without a projection the answer is the stored record itself, whose rendered text can be remembered.
  return new WireRecord(rec, ctx.typed, rec === record);
}

/** A write to `collection` (of `fields`, for field-level permissions), in transaction `tx` if given. */
function writes(collection: string, tx: string | undefined, fields?: () => readonly string[]): Scope {
  return { collections: [{ name: collection, mode: 'write', fields }], transaction: tx };
}

function reads(collections: readonly string[], tx: string | undefined): Scope {
  return { collections: collections.map((name) => ({ name, mode: 'read' as const })), transaction: tx };
}

export const recordsInsert = defineProcedure({
  name: 'records.insert',
  kind: 'mutation',
  access: 'user',
  schema: {
    summary: 'Insert a record',
    description: 'Creates the collection if needed. 409 when a record with that id exists.',
    query: { ...InTransaction, ...BypassRipple },
    body: RecordFields,
    response: Type.Object({ id: Type.String() }),
  },
  input: (raw) => ({
    collection: collectionParam(raw),
    body: bodyObject(raw),
    tx: txOf(raw),
    bypassRipple: bypassOf(raw),
  }),
  scope: (input) => writes(input.collection, input.tx, () => writtenFields(input.body)),
  handler: async (input, ctx) => ({ id: await ctx.session.insert(input.collection, input.body, input.bypassRipple) }),
});

export const recordsFindById = defineProcedure({
  name: 'records.findById',
  kind: 'query',
  access: 'user',
  schema: {
    summary: 'Read a record by id',
    description: '404 `Record not found`, or `Record has been deleted` after its TTL expired.',
    query: { ...Projection, ...InTransaction },
    response: RecordShape,
  },
  input: (raw) => {
    return {
      collection: collectionParam(raw),
      id: validateId(param(raw, 'id')),
      select: queryList(raw, 'select_fields'),
      exclude: queryList(raw, 'exclude_fields'),
      tx: txOf(raw),
    };
  },
  scope: (input) => reads([input.collection], input.tx),
  handler: (input, ctx) => {
    const read = () => out(ctx, ctx.session.findById(input.collection, input.id), input.select, input.exclude);
    const settled = ctx.session.writesSettled(input.collection, input.id);
    return settled ? settled.then(read) : read();
  },
});

export const recordsFind = defineProcedure({
  name: 'records.find',
  kind: 'query',
  access: 'user',
  schema: {
    summary: 'Find records by a query',
    description: 'A join reads its target collections too: the key needs read access there as well.',
    query: InTransaction,
    body: QueryBody,
    response: Type.Array(RecordShape),
  },
  input: (raw) => {
    const query = parseQuery(raw.body);
    for (const target of query.join?.collections ?? []) validateCollectionName(target);
    return { collection: collectionParam(raw), query, tx: txOf(raw) ?? query.transactionId };
  },
  // A join reads its target collections too: the key needs read access there as well.
  scope: (input) => reads([input.collection, ...(input.query.join?.collections ?? [])], input.tx),
  handler: async (input, ctx) => new RecordList(await ctx.session.find(input.collection, input.query), ctx.typed),
});

export const recordsUpdate = defineProcedure({
  name: 'records.update',
  kind: 'mutation',
  access: 'user',
  schema: {
    summary: 'Merge fields into a record',
    description: '404 when the record is missing; answers the whole record.',
    query: { ...Projection, ...InTransaction, ...BypassRipple },
    body: RecordFields,
    response: RecordShape,
  },
  input: (raw) => {
    return {
      collection: collectionParam(raw),
      id: validateId(param(raw, 'id')),
      body: bodyObject(raw),
      select: queryList(raw, 'select_fields'),
      exclude: queryList(raw, 'exclude_fields'),
      tx: txOf(raw),
      bypassRipple: bypassOf(raw),
    };
  },
  scope: (input) => writes(input.collection, input.tx, () => writtenFields(input.body)),
  handler: async (input, ctx) => {
    const updated = await ctx.session.update(input.collection, input.id, input.body, input.bypassRipple);
    return out(ctx, updated, input.select, input.exclude);
  },
});

function parseActionBody(body: unknown): { field: string; value: unknown } {
  if (Array.isArray(body) && (body.length === 1 || body.length === 2) && typeof body[0] === 'string') {
    return { field: body[0], value: body[1] ?? null };
  }
  if (isPlainObjectValue(body) && typeof body.field === 'string')
    return { field: body.field, value: body.value ?? null };
  throw new InvalidInput('Action body must be {field: string, value?: any}');
}

/** Top-level fields the actions write (field-level permissions). */
const actionFields = (steps: readonly ActionStep[]) => steps.map((s) => s.field.split('.')[0]!);

export const recordsUpdateAction = defineProcedure({
  name: 'records.updateAction',
  kind: 'mutation',
  access: 'user',
  schema: {
    summary: 'Apply one update action to a field',
    description: `Actions: ${ACTIONS}.`,
    query: { ...InTransaction, ...BypassRipple },
    body: Type.Union([
      Type.Object({ field: Type.String(), value: Type.Optional(Anything) }),
      Type.Array(Anything, { minItems: 1, maxItems: 2, description: '[field, value?]' }),
    ]),
    response: RecordShape,
  },
  input: (raw) => {
    const { field, value } = parseActionBody(raw.body);
    const steps = parseActionSequence([{ action: param(raw, 'action'), field, value }]);
    return {
      collection: collectionParam(raw),
      id: validateId(param(raw, 'id')),
      steps,
      tx: txOf(raw),
      bypassRipple: bypassOf(raw),
    };
  },
  scope: (input) => writes(input.collection, input.tx, () => actionFields(input.steps)),
  handler: async (input, ctx) =>
    out(ctx, await ctx.session.applyActions(input.collection, input.id, input.steps, input.bypassRipple)),
});

export const recordsUpdateSequence = defineProcedure({
  name: 'records.updateSequence',
  kind: 'mutation',
  access: 'user',
  schema: {
    summary: 'Apply update actions atomically',
    description: `[[action, field, value], ...] (or {action, field, value} items), all or none. Actions: ${ACTIONS}.`,
    query: { ...InTransaction, ...BypassRipple },
    body: Type.Array(Anything),
    response: RecordShape,
  },
  input: (raw) => {
    if (!Array.isArray(raw.body))
      throw new InvalidInput('Action sequence body must be an array of [action, field, value] triples');
    return {
      collection: collectionParam(raw),
      id: validateId(param(raw, 'id')),
      steps: parseActionSequence(raw.body),
      tx: txOf(raw),
      bypassRipple: bypassOf(raw),
    };
  },
  scope: (input) => writes(input.collection, input.tx, () => actionFields(input.steps)),
  handler: async (input, ctx) =>
    out(ctx, await ctx.session.applyActions(input.collection, input.id, input.steps, input.bypassRipple)),
});

export const recordsDelete = defineProcedure({
  name: 'records.delete',
  kind: 'mutation',
  access: 'user',
  schema: {
    summary: 'Delete a record (to the trash)',
    query: { ...InTransaction, ...BypassRipple },
    response: Type.Object({ id: Type.String(), deleted: Type.Literal(true), status: Type.Literal('deleted') }),
  },
  input: (raw) => ({
    collection: collectionParam(raw),
    id: validateId(param(raw, 'id')),
    tx: txOf(raw),
    bypassRipple: bypassOf(raw),
  }),
  scope: (input) => writes(input.collection, input.tx),
  handler: async (input, ctx) => {
    const id = await ctx.session.delete(input.collection, input.id, input.bypassRipple);
    return { id, deleted: true, status: 'deleted' };
  },
});

export const recordsDistinct = defineProcedure({
  name: 'records.distinct',
  kind: 'query',
  access: 'user',
  schema: {
    summary: 'The distinct values of a field',
    body: Type.Object(
      {
        filter: Type.Optional(nullable(Filter)),
        bypass_ripple: Type.Optional(Anything),
        bypass_cache: Type.Optional(Anything),
      },
      { additionalProperties: false },
    ),
    response: Type.Object({
      collection: Type.String(),
      field: Type.String(),
      values: Type.Array(Anything),
      count: Type.Integer(),
    }),
  },
  input: (raw) => {
    const body = raw.body === undefined ? {} : bodyObject(raw);
    rejectUnknownMembers(body, ['filter', 'bypass_ripple', 'bypass_cache'], 'distinct body');
    const path = parseFieldPath(param(raw, 'field'), 'distinct field');
    const filter = body.filter === undefined || body.filter === null ? undefined : parseFilter(body.filter);
    return { collection: collectionParam(raw), field: param(raw, 'field'), path, filter };
  },
  scope: (input) => reads([input.collection], undefined),
  handler: async (input, ctx) => {
    const values = await ctx.session.distinct(input.collection, input.path, input.filter);
    return { collection: input.collection, field: input.field, values, count: values.length };
  },
});

export const recordsCount = defineProcedure({
  name: 'records.count',
  kind: 'query',
  access: 'user',
  schema: { summary: 'How many records a collection holds', response: Type.Object({ count: Type.Integer() }) },
  input: collectionParam,
  scope: (name) => reads([name], undefined),
  handler: async (name, ctx) => ({ count: await ctx.session.count(name) }),
});
