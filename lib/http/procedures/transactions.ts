/** Transactions and savepoints (protocol.md 2.7) and the admin audit trail. */
import { InvalidInput } from '../../errors.js';
import { defineProcedure, type RawInput } from '../procedure.js';
import { bodyObject, param, queryString } from '../input.js';
import type { Context } from '../context.js';

const txParam = (raw: RawInput) => param(raw, 'id');

/** A transaction is usable only by the key that began it (or an admin). */
export function own(ctx: Context, id: string): void {
  ctx.db.transactions.checkOwner(id, ctx.principal);
}

export const transactionsBegin = defineProcedure({
  name: 'transactions.begin', kind: 'mutation', access: 'user',
  input: (raw) => {
    const body = raw.body === undefined ? {} : bodyObject(raw);
    for (const k of Object.keys(body)) if (k !== 'isolation_level' && k !== 'timeout_seconds') throw new InvalidInput(`Unknown member '${k}'; expected isolation_level, timeout_seconds`);
    return body;
  },
  handler: (body, ctx) => {
    const tx = ctx.db.transactions.begin(body.isolation_level, body.timeout_seconds, ctx.principal?.keyId);
    return { transaction_id: tx.id, isolation_level: tx.level, created_at: Math.floor(tx.createdAt / 1000), timeout_seconds: tx.timeoutSecs };
  },
});

export const transactionsList = defineProcedure({
  name: 'transactions.list', kind: 'query', access: 'user',
  input: () => undefined,
  handler: (_i, ctx) => {
    const transactions = ctx.db.transactions.list(ctx.principal);
    return { transactions, count: transactions.length };
  },
});

export const transactionsStatus = defineProcedure({
  name: 'transactions.status', kind: 'query', access: 'user',
  input: txParam,
  handler: (id, ctx) => { own(ctx, id); return ctx.db.transactions.status(id); },
});

export const transactionsCommit = defineProcedure({
  name: 'transactions.commit', kind: 'mutation', access: 'user',
  input: txParam,
  handler: async (id, ctx) => { own(ctx, id); return { status: 'committed', transaction_id: id, operations_count: await ctx.db.transactions.commit(id) }; },
});

export const transactionsRollback = defineProcedure({
  name: 'transactions.rollback', kind: 'mutation', access: 'user',
  input: txParam,
  handler: (id, ctx) => { own(ctx, id); return { status: 'rolled_back', transaction_id: id, operations_rolled_back: ctx.db.transactions.rollback(id) }; },
});

export const savepointsCreate = defineProcedure({
  name: 'savepoints.create', kind: 'mutation', access: 'user',
  input: (raw) => ({ id: param(raw, 'id'), name: bodyObject(raw).name }),
  handler: (i, ctx) => { own(ctx, i.id); return { status: 'created', transaction_id: i.id, savepoint_name: ctx.db.transactions.createSavepoint(i.id, i.name) }; },
});

export const savepointsRollback = defineProcedure({
  name: 'savepoints.rollback', kind: 'mutation', access: 'user',
  input: (raw) => ({ id: param(raw, 'id'), name: param(raw, 'name') }),
  handler: (i, ctx) => {
    own(ctx, i.id);
    const undone = ctx.db.transactions.rollbackToSavepoint(i.id, i.name);
    return { status: 'rolled_back', transaction_id: i.id, savepoint_name: i.name, operations_rolled_back: undone, operations_count: ctx.db.transactions.status(i.id).operations_count };
  },
});

export const savepointsRelease = defineProcedure({
  name: 'savepoints.release', kind: 'mutation', access: 'user',
  input: (raw) => ({ id: param(raw, 'id'), name: param(raw, 'name') }),
  handler: (i, ctx) => {
    own(ctx, i.id);
    ctx.db.transactions.releaseSavepoint(i.id, i.name);
    return { status: 'released', transaction_id: i.id, savepoint_name: i.name };
  },
});

export const auditList = defineProcedure({
  name: 'audit.list', kind: 'query', access: 'admin',
  input: (raw) => {
    const limit = queryString(raw, 'limit');
    const n = limit === undefined ? 100 : Number(limit);
    if (!Number.isInteger(n) || n < 1 || n > 10_000) throw new InvalidInput("'limit' must be an integer between 1 and 10000");
    return { limit: n, transactionId: queryString(raw, 'transaction_id') };
  },
  handler: async (i, ctx) => {
    const events = await ctx.db.audit.read({ limit: i.limit, transactionId: i.transactionId });
    return { events, count: events.length };
  },
});
