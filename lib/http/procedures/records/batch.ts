/**
 * Batch insert, update and delete (protocol.md 2.6): the map bodies of
 * TS/Go, the positional MessagePack arrays of the Rust client, and
 * `bypass_ripple` as a query parameter, body member or per item. Status:
 * 201 all inserted, 200 all updated/deleted, 207 partial, 400 all failed.
 */
import { InvalidInput } from '../../../errors.js';
import { rejectUnknownMembers, yieldToLoop, type BulkItem } from '../../../engine/index.js';
import { defineProcedure, WithStatus, type RawInput } from '../procedure.js';
import { collectionParam, isPlainObjectValue, queryFlag, queryString } from '../input.js';
import { Anything, BypassRipple, InTransaction, nullable, RecordFields, Type, type TSchema } from '../shapes.js';
import { ERROR_BODY_SCHEMA } from '../../wire/error-schema.js';

type Kind = BulkItem['kind'];
const LIST_KEY: Record<Kind, string> = { insert: 'inserts', update: 'updates', delete: 'deletes' };

export interface BatchInput {
  collection: string;
  kind: Kind;
  items: BulkItem[];
  transactionId?: string;
}

/** Where an item stands, for an error; `index` -1 is the body itself. */
function place(kind: Kind, index: number): string {
  return index === -1 ? 'body' : `${LIST_KEY[kind]}[${index}]`;
}

// The place is made only for an error: a batch has thousands of items and rarely an error.
function flag(value: unknown, kind: Kind, index: number): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw new InvalidInput(`'bypass_ripple' must be a boolean at ${place(kind, index)}`);
  return value;
}

function parseItem(kind: Kind, raw: unknown, index: number, bypassAll: boolean): BulkItem {
  if (Array.isArray(raw)) {
    // Rust positional forms: [record, bypass] / [id, record, bypass] / [id, bypass].
    if (kind === 'insert') return { kind, body: raw[0], bypassRipple: bypassAll || flag(raw[1], kind, index) };
    if (kind === 'update')
      return { kind, id: raw[0], body: raw[1], bypassRipple: bypassAll || flag(raw[2], kind, index) };
    return { kind, id: raw[0], bypassRipple: bypassAll || flag(raw[1], kind, index) };
  }
  if (!isPlainObjectValue(raw)) throw new InvalidInput(`${place(kind, index)} must be an object`);
  const bypassRipple = bypassAll || flag(raw.bypass_ripple, kind, index);
  if (kind === 'insert') {
    if (!('data' in raw)) throw new InvalidInput(`${place(kind, index)} must be {data: {...}}`);
    return { kind, body: raw.data, bypassRipple };
  }
  if (kind === 'update') {
    if (!('id' in raw) || !('data' in raw)) throw new InvalidInput(`${place(kind, index)} must be {id, data: {...}}`);
    return { kind, id: raw.id, body: raw.data, bypassRipple };
  }
  if (!('id' in raw)) throw new InvalidInput(`${place(kind, index)} must be {id}`);
  return { kind, id: raw.id, bypassRipple };
}

/** Parses a batch request; the size limit (a setting) is checked by the handler, see checkBatchSize. */
export function parseBatch(kind: Kind, raw: RawInput): BatchInput {
  const collection = collectionParam(raw);
  const body = raw.body;
  let list: unknown;
  let bypassAll = queryFlag(raw, 'bypass_ripple') ?? false;
  if (Array.isArray(body)) {
    list = body.length === 1 && Array.isArray(body[0]) ? body[0] : body;
  } else if (isPlainObjectValue(body)) {
    rejectUnknownMembers(
      body,
      [LIST_KEY[kind], 'bypass_ripple'],
      'batch body',
      `{${LIST_KEY[kind]}: [...], bypass_ripple?}`,
    );
    list = body[LIST_KEY[kind]];
    bypassAll = bypassAll || flag(body.bypass_ripple, kind, -1);
  }
  if (!Array.isArray(list)) throw new InvalidInput(`Batch body must be {${LIST_KEY[kind]}: [...]}`);
  const items = list.map((item, index) => parseItem(kind, item, index, bypassAll));
  const tx = queryString(raw, 'transaction_id');
  return { collection, kind, items, ...(tx ? { transactionId: tx } : {}) };
}

/** Batches larger than this answer in a tick of their own (see the handler). */
const YIELD_AFTER_ITEMS = 500;

function checkBatchSize(items: readonly BulkItem[], max: number): void {
  if (items.length > max)
    throw new InvalidInput(`Batch of ${items.length} records exceeds the maximum batch size of ${max}`);
}

/** Top-level fields the items write (field-level permissions); system members are not fields. */
function writtenFields(items: readonly BulkItem[]): string[] {
  const fields = new Set<string>();
  // The keys of the body before, each already in `fields`: a batch's bodies mostly share their keys, and a key
  // matching its place there needs no set lookup.
  const last: string[] = [];
  for (const item of items) {
    if (item.kind === 'delete' || !isPlainObjectValue(item.body)) continue;
    let at = 0;
    let diverged = false;
    // for-in over a plain object (own enumerable keys only, its prototype being Object.prototype or null): no key
    // array per item.
    for (const field in item.body) {
      if (!diverged && field === last[at]) {
        at++;
        continue;
      }
      if (!diverged) {
        diverged = true;
        last.length = at;
      }
      last.push(field);
      fields.add(field);
    }
  }
  fields.delete('id');
  fields.delete('ttl');
  fields.delete('ttl_update_on_access');
  return [...fields];
}

function statusFor(kind: Kind, ok: number, failed: number): number {
  if (failed === 0) return kind === 'insert' ? 201 : 200;
  return ok === 0 ? 400 : 207;
}

/** Each kind's list item (map form; the positional arrays of the Rust client are also taken). */
const ITEMS: Record<Kind, TSchema> = {
  insert: Type.Object({ data: RecordFields, bypass_ripple: Type.Optional(nullable(Type.Boolean())) }),
  update: Type.Object({
    id: Type.String(),
    data: RecordFields,
    bypass_ripple: Type.Optional(nullable(Type.Boolean())),
  }),
  delete: Type.Object({ id: Type.String(), bypass_ripple: Type.Optional(nullable(Type.Boolean())) }),
};

const POSITIONAL: Record<Kind, string> = {
  insert: '[record, bypass?]',
  update: '[id, record, bypass?]',
  delete: '[id, bypass?]',
};

function batchBody(kind: Kind): TSchema {
  const item = Type.Union([ITEMS[kind], Type.Array(Anything, { description: POSITIONAL[kind] })]);
  return Type.Union([
    Type.Object(
      { [LIST_KEY[kind]]: Type.Array(item), bypass_ripple: Type.Optional(nullable(Type.Boolean())) },
      { additionalProperties: false },
    ),
    Type.Array(Anything, { description: 'The list itself (MessagePack clients), or it wrapped in a list.' }),
  ]);
}

const BatchResult = Type.Object(
  {
    successful: Type.Array(Type.String(), { description: 'Ids written.' }),
    failed: Type.Array(Type.Object({ id: Anything, error: Type.String() })),
  },
  { title: 'BatchResult' },
);

const SUMMARY: Record<Kind, string> = {
  insert: 'Insert many records',
  update: 'Update many records',
  delete: 'Delete many records',
};

function makeBatch(kind: Kind) {
  return defineProcedure({
    name: `batch.${kind}`,
    kind: 'mutation',
    access: 'user',
    schema: {
      summary: SUMMARY[kind],
      description:
        `Each item on its own: ${kind === 'insert' ? '201' : '200'} when all succeed, 207 when some fail, ` +
        '400 when all fail (with the same body), at most max_batch_size items; 503 while too many batches run.',
      query: { ...InTransaction, ...BypassRipple },
      body: batchBody(kind),
      response: BatchResult,
      statuses: {
        // The route answers 200; an insert that wrote every item says 201.
        ...(kind === 'insert' ? { '201': Type.Object(BatchResult.properties, { description: 'All inserted.' }) } : {}),
        '207': Type.Object(BatchResult.properties, { description: 'Some items failed.' }),
        '400': Type.Union([BatchResult, ERROR_BODY_SCHEMA], {
          description: 'Every item failed (the batch answer), or the request was refused (the error body).',
        }),
      },
    },
    input: (raw) => parseBatch(kind, raw),
    scope: (input) => ({
      collections: [{ name: input.collection, mode: 'write', fields: () => writtenFields(input.items) }],
      transaction: input.transactionId,
    }),
    handler: async (input, ctx) => {
      checkBatchSize(input.items, ctx.config.settings().max_batch_size);
      const release = ctx.batchGate.acquire(ctx.config.settings().max_concurrent_batches);
      try {
        const count = input.items.length;
        // The items are the session's from here: a body is let go once its chunk is staged.
        const res = await ctx.session.writeMany(input.collection, input.items);
        // The batch was applied in the tick that got here: encode the (large) answer in a fresh one.
        if (count > YIELD_AFTER_ITEMS) await yieldToLoop();
        const failed = res.failed.map((f) => ({ id: f.id, error: f.error }));
        return new WithStatus(statusFor(kind, res.successful.length, failed.length), {
          successful: res.successful,
          failed,
        });
      } finally {
        release();
      }
    },
  });
}

export const batchInsert = makeBatch('insert');
export const batchUpdate = makeBatch('update');
export const batchDelete = makeBatch('delete');
