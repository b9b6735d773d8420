/**
 * Batch insert, update and delete (protocol.md 2.6): the map bodies of
 * TS/Go, the positional MessagePack arrays of the Rust client, and
 * `bypass_ripple` as a query parameter, body member or per item. Status:
 * 201 all inserted, 200 all updated/deleted, 207 partial, 400 all failed.
 */
import { InvalidInput, toDbError } from '../../errors.js';
import { validateId, type BulkFailure, type BulkItem } from '../../engine/index.js';
import { defineProcedure, WithStatus, type RawInput } from '../procedure.js';
import { checkCollectionAccess } from '../permissions.js';
import { own } from './transactions.js';
import { collectionParam, queryFlag, queryString } from '../input.js';
import { isPlainObjectValue } from '../plain-object.js';
import type { Context } from '../context.js';

type Kind = BulkItem['kind'];
const LIST_KEY: Record<Kind, string> = { insert: 'inserts', update: 'updates', delete: 'deletes' };

export interface BatchInput { collection: string; kind: Kind; items: BulkItem[]; transactionId?: string }


function flag(v: unknown, where: string): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw new InvalidInput(`'bypass_ripple' must be a boolean at ${where}`);
  return v;
}

function parseItem(kind: Kind, raw: unknown, i: number, bypassAll: boolean): BulkItem {
  const where = `${LIST_KEY[kind]}[${i}]`;
  if (Array.isArray(raw)) {
    // Rust positional forms: [record, bypass] / [id, record, bypass] / [id, bypass].
    if (kind === 'insert') return { kind, body: raw[0], noRipple: bypassAll || flag(raw[1], where) };
    if (kind === 'update') return { kind, id: raw[0], body: raw[1], noRipple: bypassAll || flag(raw[2], where) };
    return { kind, id: raw[0], noRipple: bypassAll || flag(raw[1], where) };
  }
  if (!isPlainObjectValue(raw)) throw new InvalidInput(`${where} must be an object`);
  const nr = bypassAll || flag(raw.bypass_ripple, where);
  if (kind === 'insert') {
    if (!('data' in raw)) throw new InvalidInput(`${where} must be {data: {...}}`);
    return { kind, body: raw.data, noRipple: nr };
  }
  if (kind === 'update') {
    if (!('id' in raw) || !('data' in raw)) throw new InvalidInput(`${where} must be {id, data: {...}}`);
    return { kind, id: raw.id, body: raw.data, noRipple: nr };
  }
  if (!('id' in raw)) throw new InvalidInput(`${where} must be {id}`);
  return { kind, id: raw.id, noRipple: nr };
}

export function parseBatch(kind: Kind, raw: RawInput, maxSize: () => number): BatchInput {
  const collection = collectionParam(raw);
  const body = raw.body;
  let list: unknown;
  let bypassAll = queryFlag(raw, 'bypass_ripple') ?? false;
  if (Array.isArray(body)) {
    list = body.length === 1 && Array.isArray(body[0]) ? body[0] : body;
  } else if (isPlainObjectValue(body)) {
    for (const k of Object.keys(body)) {
      if (k !== LIST_KEY[kind] && k !== 'bypass_ripple') throw new InvalidInput(`Unknown member '${k}' in batch body; expected {${LIST_KEY[kind]}: [...], bypass_ripple?}`);
    }
    list = body[LIST_KEY[kind]];
    bypassAll = bypassAll || flag(body.bypass_ripple, 'body');
  }
  if (!Array.isArray(list)) throw new InvalidInput(`Batch body must be {${LIST_KEY[kind]}: [...]}`);
  const max = maxSize();
  if (list.length > max) throw new InvalidInput(`Batch of ${list.length} records exceeds the maximum batch size of ${max}`);
  const items = list.map((item, i) => parseItem(kind, item, i, bypassAll));
  const tx = queryString(raw, 'transaction_id');
  return { collection, kind, items, ...(tx ? { transactionId: tx } : {}) };
}

function statusFor(kind: Kind, ok: number, failed: number): number {
  if (failed === 0) return kind === 'insert' ? 201 : 200;
  return ok === 0 ? 400 : 207;
}

async function stageInTransaction(input: BatchInput, ctx: Context): Promise<{ successful: string[]; failed: BulkFailure[] }> {
  const txm = ctx.db.transactions;
  own(ctx, input.transactionId!);
  txm.get(input.transactionId!);
  const successful: string[] = [];
  const failed: BulkFailure[] = [];
  for (const item of input.items) {
    try {
      if (item.kind === 'insert') successful.push(txm.stageInsert(input.transactionId!, input.collection, item.body, item.noRipple));
      else if (item.kind === 'update') { const id = validateId(item.id); txm.stageUpdate(input.transactionId!, input.collection, id, item.body, item.noRipple); successful.push(id); }
      else successful.push(txm.stageDelete(input.transactionId!, input.collection, validateId(item.id), item.noRipple));
    } catch (err) {
      failed.push({ id: failedId(item), error: toDbError(err).message });
    }
  }
  return { successful, failed };
}

/** The id a failed item is reported under: the one it names, or null. */
function failedId(item: BulkItem): string | null {
  const id = item.kind === 'insert' ? (isPlainObjectValue(item.body) ? item.body.id : undefined) : item.id;
  return typeof id === 'string' ? id : null;
}

function makeBatch(kind: Kind) {
  return defineProcedure({
    name: `batch.${kind}`, kind: 'mutation', access: 'user',
    input: (raw) => raw,
    handler: async (raw, ctx) => {
      const input = parseBatch(kind, raw, () => ctx.db.settings().max_batch_size);
      if (ctx.principal) {
        const fields = [...new Set(input.items.flatMap((i) => (i.kind !== 'delete' && isPlainObjectValue(i.body) ? Object.keys(i.body) : [])))];
        checkCollectionAccess(ctx.principal, input.collection, 'write', fields.filter((f) => f !== 'id' && f !== 'ttl' && f !== 'ttl_update_on_access'));
      }
      const release = ctx.batchGate.acquire(ctx.db.settings().max_concurrent_batches);
      try {
        const res = input.transactionId ? await stageInTransaction(input, ctx) : await ctx.db.bulk.run(input.collection, input.items);
        const failed = res.failed.map((f) => ({ id: f.id, error: f.error }));
        return new WithStatus(statusFor(kind, res.successful.length, failed.length), { successful: res.successful, failed });
      } finally {
        release();
      }
    },
  });
}

export const batchInsert = makeBatch('insert');
export const batchUpdate = makeBatch('update');
export const batchDelete = makeBatch('delete');
