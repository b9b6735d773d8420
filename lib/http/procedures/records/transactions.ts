/** Transactions and savepoints (protocol.md 2.7) and the admin audit trail. */
import { InvalidInput, MESSAGES } from '../../../errors.js';
import {
  isIsolationLevel,
  isSavepointName,
  isTransactionSession,
  isTransactionTimeout,
  rejectUnknownMembers,
  SAVEPOINT_NAME_RULE,
  TIMEOUT_RULE,
  type TransactionSession,
} from '../../../engine/index.js';
import { defineProcedure, type RawInput, type Scope } from '../procedure.js';
import { bodyObject, param, queryInteger, queryString } from '../input.js';
import type { Context } from '../context.js';
import { nullable, Type, type TSchema } from '../shapes.js';

const Level = Type.Enum(['ReadUncommitted', 'ReadCommitted', 'RepeatableRead', 'Serializable']);

const TransactionView = Type.Object(
  {
    transaction_id: Type.String(),
    state: Type.Enum(['Active', 'Expired']),
    isolation_level: Level,
    operations_count: Type.Integer(),
    savepoints_count: Type.Integer(),
    created_at: Type.Integer({ description: 'Unix seconds.' }),
    last_activity: Type.Integer({ description: 'Unix seconds.' }),
    timeout_seconds: Type.Integer(),
  },
  { title: 'Transaction' },
);

/** `{status, transaction_id, ...}`: what a transaction or savepoint move answers. */
const moved = (status: string, members: Record<string, TSchema> = {}) =>
  Type.Object({ status: Type.Literal(status), transaction_id: Type.String(), ...members });

const txParam = (raw: RawInput) => param(raw, 'id');

/** The transaction named in the path: the gate opens its session (and checks that the caller owns it). */
const inTransaction = (id: string): Scope => ({ transaction: id });

/** The session of a procedure scoped to a transaction. */
function transactionSession(ctx: Context): TransactionSession {
  if (!isTransactionSession(ctx.session)) throw new Error('procedure declares no transaction in its scope');
  return ctx.session;
}

export const transactionsBegin = defineProcedure({
  name: 'transactions.begin',
  kind: 'mutation',
  access: 'user',
  schema: {
    summary: 'Begin a transaction',
    description: 'Statements join it with ?transaction_id=; it ends on commit, rollback or its timeout.',
    body: Type.Object(
      {
        isolation_level: Type.Optional(nullable(Level)),
        timeout_seconds: Type.Optional(nullable(Type.Integer({ minimum: 1 }))),
      },
      { additionalProperties: false },
    ),
    response: Type.Object({
      transaction_id: Type.String(),
      isolation_level: Level,
      created_at: Type.Integer({ description: 'Unix seconds.' }),
      timeout_seconds: Type.Integer(),
    }),
  },
  input: (raw) => {
    const body = raw.body === undefined ? {} : bodyObject(raw);
    rejectUnknownMembers(body, ['isolation_level', 'timeout_seconds']);
    const level = body.isolation_level ?? undefined,
      timeout = body.timeout_seconds ?? undefined;
    if (level !== undefined && !isIsolationLevel(level)) throw new InvalidInput(MESSAGES.invalidIsolationLevel);
    if (timeout !== undefined && !isTransactionTimeout(timeout)) throw new InvalidInput(TIMEOUT_RULE);
    return { level, timeout };
  },
  handler: (input, ctx) => {
    const tx = ctx.transactions.begin(input.level, input.timeout, ctx.principal?.keyId);
    return {
      transaction_id: tx.id,
      isolation_level: tx.level,
      created_at: Math.floor(tx.createdAt / 1000),
      timeout_seconds: tx.timeoutSecs,
    };
  },
});

export const transactionsList = defineProcedure({
  name: 'transactions.list',
  kind: 'query',
  access: 'user',
  schema: {
    summary: "The caller's open transactions (an admin: all)",
    response: Type.Object({ transactions: Type.Array(TransactionView), count: Type.Integer() }),
  },
  input: () => undefined,
  handler: (_i, ctx) => {
    const transactions = ctx.transactions.list(ctx.principal);
    return { transactions, count: transactions.length };
  },
});

export const transactionsStatus = defineProcedure({
  name: 'transactions.status',
  kind: 'query',
  access: 'user',
  schema: { summary: "A transaction's state", response: TransactionView },
  input: txParam,
  scope: inTransaction,
  handler: (_id, ctx) => transactionSession(ctx).status(),
});

export const transactionsCommit = defineProcedure({
  name: 'transactions.commit',
  kind: 'mutation',
  access: 'user',
  schema: {
    summary: 'Commit a transaction',
    description: '409 with the conflicting records when a Serializable transaction lost a race.',
    response: moved('committed', { operations_count: Type.Integer() }),
  },
  input: txParam,
  scope: inTransaction,
  handler: async (id, ctx) => {
    const committed = await transactionSession(ctx).commit();
    return { status: 'committed', transaction_id: id, operations_count: committed };
  },
});

export const transactionsRollback = defineProcedure({
  name: 'transactions.rollback',
  kind: 'mutation',
  access: 'user',
  schema: {
    summary: 'Roll a transaction back',
    response: moved('rolled_back', { operations_rolled_back: Type.Integer() }),
  },
  input: txParam,
  scope: inTransaction,
  handler: (id, ctx) => {
    const discarded = transactionSession(ctx).rollback();
    return { status: 'rolled_back', transaction_id: id, operations_rolled_back: discarded };
  },
});

export const savepointsCreate = defineProcedure({
  name: 'savepoints.create',
  kind: 'mutation',
  access: 'user',
  schema: {
    summary: 'Mark a savepoint in a transaction',
    body: Type.Object({ name: Type.String() }),
    response: moved('created', { savepoint_name: Type.String() }),
  },
  input: (raw) => {
    const name = bodyObject(raw).name;
    if (!isSavepointName(name)) throw new InvalidInput(SAVEPOINT_NAME_RULE);
    return { id: param(raw, 'id'), name };
  },
  scope: (input) => inTransaction(input.id),
  handler: async (input, ctx) => {
    const name = await transactionSession(ctx).savepoint(input.name);
    return { status: 'created', transaction_id: input.id, savepoint_name: name };
  },
});

export const savepointsRollback = defineProcedure({
  name: 'savepoints.rollback',
  kind: 'mutation',
  access: 'user',
  schema: {
    summary: 'Undo a transaction back to a savepoint',
    response: moved('rolled_back', {
      savepoint_name: Type.String(),
      operations_rolled_back: Type.Integer(),
      operations_count: Type.Integer(),
    }),
  },
  input: (raw) => ({ id: param(raw, 'id'), name: param(raw, 'name') }),
  scope: (input) => inTransaction(input.id),
  handler: async (input, ctx) => {
    const session = transactionSession(ctx);
    const undone = await session.rollbackTo(input.name);
    return {
      status: 'rolled_back',
      transaction_id: input.id,
      savepoint_name: input.name,
      operations_rolled_back: undone,
      operations_count: session.status().operations_count,
    };
  },
});

export const savepointsRelease = defineProcedure({
  name: 'savepoints.release',
  kind: 'mutation',
  access: 'user',
  schema: { summary: 'Forget a savepoint', response: moved('released', { savepoint_name: Type.String() }) },
  input: (raw) => ({ id: param(raw, 'id'), name: param(raw, 'name') }),
  scope: (input) => inTransaction(input.id),
  handler: async (input, ctx) => {
    await transactionSession(ctx).release(input.name);
    return { status: 'released', transaction_id: input.id, savepoint_name: input.name };
  },
});

export const auditList = defineProcedure({
  name: 'audit.list',
  kind: 'query',
  access: 'admin',
  schema: {
    summary: 'The audit trail of transactions',
    query: {
      limit: Type.String({ description: 'At most this many events, 1 to 10000 (100).' }),
      transaction_id: Type.String({ description: "Only this transaction's events." }),
    },
    response: Type.Object({
      events: Type.Array(
        Type.Object({ timestamp: Type.String(), event: Type.String(), transaction_id: Type.String() }),
      ),
      count: Type.Integer(),
    }),
  },
  input: (raw) => {
    const limit = queryInteger(raw, 'limit', { min: 1, max: 10_000, fallback: 100 });
    return { limit, transactionId: queryString(raw, 'transaction_id') };
  },
  handler: async (input, ctx) => {
    const events = await ctx.audit.read({ limit: input.limit, transactionId: input.transactionId });
    return { events, count: events.length };
  },
});
