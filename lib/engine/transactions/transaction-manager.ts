/**
 * Optimistic transactions: begin, stage, read your own writes, savepoints,
 * commit with validation, rollback. Which transactions are open (ids,
 * owners, expiry, listing, audit) is kept by transaction-registry.ts.
 *
 * A transaction's view is committed state with its staged operations
 * replayed on top (a WorkingView); other readers never see staged writes.
 * Commit runs in the single writer: it validates what the transaction
 * observed against the current versions (isolation rules 3-6 of
 * product.md), then replays the operations onto the latest state and logs
 * the result as one batch. No locks are held across statements.
 *
 * Serializable also records the predicate of every query and search and
 * checks it at commit against the changes committed since (read-predicates.ts),
 * using a change history kept only while such transactions are open.
 */
import assert from 'node:assert';
import { Conflict, DbError, InvalidInput, MESSAGES, NotFound, TransactionConflict } from '../../errors.js';
import type { EngineCore } from '../core.js';
import { markNoRipple, type Effect } from '../write/effects.js';
import { validateCollectionName } from '../collections/names.js';
import { runQuery, type Query } from '../query/index.js';
import type { Records } from '../records/records.js';
import { resolveRecordId } from '../records/aliases.js';
import { isExpired } from '../time/ttl.js';
import { ISOLATION_LEVELS, type IsolationLevel } from '../admin/settings.js';
import type { ActionStep } from '../records/update-actions.js';
import type { Fields } from '../values/index.js';
import { WorkingView } from '../write/working-view.js';
import { Slicer } from '../time/slices.js';
import type { AuditLog } from './audit.js';
import { recordKey, splitKey, toArray, type Transaction, type StagedOp } from './transaction.js';
import { TransactionRegistry, type TransactionCaller, type TransactionStatus } from './transaction-registry.js';
import { ChangeHistory } from './change-history.js';
import { CachedView } from './cached-view.js';
import { predicateConflicts, type ReadPredicate, type TxConflict } from './read-predicates.js';

export const TIMEOUT_RULE = "'timeout_seconds' must be an integer between 1 and 86400";

/** A transaction's lifetime in seconds: 1 s to one day. */
export function isTransactionTimeout(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 86_400;
}

export function isIsolationLevel(value: unknown): value is IsolationLevel {
  return typeof value === 'string' && (ISOLATION_LEVELS as readonly string[]).includes(value);
}

export const SAVEPOINT_NAME_RULE = 'Body must be {name: string} (1-128 characters)';

export function isSavepointName(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= 128;
}

export class TransactionManager {
  /** The open transactions: ids, owners, expiry, listing, audit. */
  private readonly registry: TransactionRegistry;
  /** Committed changes since the oldest predicate read of an open Serializable transaction. */
  private readonly history: ChangeHistory;
  /** Open Serializable transactions with predicate reads: they keep the history alive. */
  private readonly watchers = new Set<Transaction>();

  /** `historyLimit` bounds the change history (see change-history.ts; default 100,000 changes). */
  constructor(
    private readonly db: EngineCore,
    private readonly records: Records,
    audit: AuditLog,
    historyLimit?: number,
  ) {
    this.registry = new TransactionRegistry(
      () => db.now(),
      audit,
      (tx) => this.release(tx),
    );
    this.history = new ChangeHistory(historyLimit);
    db.onCommit((batch, info) => this.history.follow(batch, info));
  }

  /** Changes held for Serializable predicate checks (0 when no such transaction is open). */
  get changeHistorySize(): number {
    return this.history.size;
  }

  /** Removes expired transactions every 60 s (the server starts it; tests call cleanupExpired). */
  startCleanup(): void {
    this.registry.startCleanup();
  }

  stopCleanup(): void {
    this.registry.stopCleanup();
  }

  /** Removes expired transactions now; returns how many. */
  cleanupExpired(): number {
    return this.registry.cleanupExpired();
  }

  /**
   * Begins a transaction at `level` (default: the `default_isolation_level`
   * setting) that expires `timeoutSecs` (default 300) after it began.
   */
  begin(level: IsolationLevel | undefined, timeoutSecs: number | undefined, owner?: string): Transaction {
    if (level !== undefined && !isIsolationLevel(level)) throw new InvalidInput(MESSAGES.invalidIsolationLevel);
    if (timeoutSecs !== undefined && !isTransactionTimeout(timeoutSecs)) throw new InvalidInput(TIMEOUT_RULE);
    return this.registry.open(level ?? this.db.settings().default_isolation_level, timeoutSecs ?? 300, owner);
  }

  /** Throws NotFound unless `caller` began the transaction or is an admin (see TransactionRegistry.checkOwner). */
  checkOwner(id: string, caller: TransactionCaller | undefined): void {
    this.registry.checkOwner(id, caller);
  }

  /** The active transaction; counts as activity. 404 when unknown, 400 when expired. */
  get(id: string): Transaction {
    return this.registry.get(id);
  }

  /** Status of an active transaction. 404 when unknown, 400 when expired; not counted as activity. */
  status(id: string): TransactionStatus {
    return this.registry.status(id);
  }

  /** Active transactions, only the caller's own unless it is an admin. */
  list(caller?: TransactionCaller): TransactionStatus[] {
    return this.registry.list(caller);
  }

  /** Discards the transaction; returns how many operations it had staged. */
  rollback(id: string): number {
    const tx = this.registry.take(id);
    this.release(tx);
    this.registry.audit('rollback', tx);
    return tx.operationsCount;
  }

  /** Rolls back every open transaction, expired ones included (a checkpoint restored); returns how many. */
  rollbackAll(): number {
    const open = this.registry.list();
    for (const status of open) this.rollback(status.transaction_id);
    return open.length + this.registry.cleanupExpired();
  }

  /**
   * The savepoint operations wait, as commit does, for the transaction's
   * statements still staging in slices: a savepoint made, or rolled back
   * to, while a large batch stages would otherwise hold or undo part of it.
   */
  async createSavepoint(id: string, name: string): Promise<string> {
    if (!isSavepointName(name)) throw new InvalidInput(SAVEPOINT_NAME_RULE);
    const tx = await this.staged(id);
    // Re-creating a name moves it to the newest position, so "savepoints made after it" stays in creation order.
    tx.savepoints.delete(name);
    tx.savepoints.set(name, tx.ops);
    this.registry.audit('savepoint_create', tx, { savepoint: name });
    return name;
  }

  async rollbackToSavepoint(id: string, name: string): Promise<number> {
    const tx = await this.staged(id);
    if (!tx.savepoints.has(name)) throw new NotFound(`Savepoint '${name}' not found`);
    const before = tx.operationsCount;
    tx.ops = tx.savepoints.get(name);
    // Savepoints made after this one are gone, as in SQL.
    let after = false;
    for (const sp of [...tx.savepoints.keys()]) {
      if (after) tx.savepoints.delete(sp);
      if (sp === name) after = true;
    }
    this.registry.audit('savepoint_rollback', tx, { savepoint: name });
    return before - tx.operationsCount;
  }

  async releaseSavepoint(id: string, name: string): Promise<void> {
    const tx = await this.staged(id);
    if (!tx.savepoints.delete(name)) throw new NotFound(`Savepoint '${name}' not found`);
    this.registry.audit('savepoint_release', tx, { savepoint: name });
  }

  // ---- staging -------------------------------------------------------------------------------------------------

  /** Stages an insert; returns the id it will have. Validates now against the transaction's view. */
  stageInsert(id: string, collection: string, body: unknown, bypassRipple = false): string {
    validateCollectionName(collection);
    const tx = this.get(id);
    const prepared = this.records.prepare(body);
    const view = this.viewOf(tx);
    const effects: Effect[] = [];
    const newId = this.records.insertInto(view, collection, prepared, effects);
    return this.stage(
      tx,
      view,
      { kind: 'insert', c: collection, id: newId, p: { ...prepared, id: newId }, bypassRipple },
      effects,
    );
  }

  stageUpdate(id: string, collection: string, recordId: string, body: unknown, bypassRipple = false): Fields {
    validateCollectionName(collection);
    const tx = this.get(id);
    const prepared = this.records.prepare(body);
    const view = this.viewOf(tx);
    const op: StagedOp = {
      kind: 'update',
      c: collection,
      id: resolveRecordId(view, collection, recordId, this.records.unique),
      p: prepared,
      bypassRipple,
    };
    const effects = this.effectsOf(view, op);
    this.stage(tx, view, op, effects);
    return (effects.at(-1) as { fields: Fields }).fields;
  }

  stageActions(
    id: string,
    collection: string,
    recordId: string,
    steps: readonly ActionStep[],
    bypassRipple = false,
  ): Fields {
    validateCollectionName(collection);
    const tx = this.get(id);
    const view = this.viewOf(tx);
    const op: StagedOp = {
      kind: 'actions',
      c: collection,
      id: resolveRecordId(view, collection, recordId, this.records.unique),
      steps,
      bypassRipple,
    };
    const effects = this.effectsOf(view, op);
    this.stage(tx, view, op, effects);
    return (effects.at(-1) as { fields: Fields }).fields;
  }

  stageDelete(id: string, collection: string, recordId: string, bypassRipple = false): string {
    validateCollectionName(collection);
    const tx = this.get(id);
    const view = this.viewOf(tx);
    const op: StagedOp = {
      kind: 'delete',
      c: collection,
      id: resolveRecordId(view, collection, recordId, this.records.unique),
      bypassRipple,
    };
    return this.stage(tx, view, op, this.effectsOf(view, op));
  }

  /**
   * Runs `stageEach` (which stages several operations) as one statement: when
   * it throws, the operations it staged are dropped, as a rollback to a
   * savepoint taken just before would (the view is replayed on next use).
   */
  stageStatement<R>(id: string, stageEach: () => R): R {
    const tx = this.get(id);
    const before = tx.ops;
    try {
      return stageEach();
    } catch (err) {
      tx.ops = before;
      throw err;
    }
  }

  /**
   * Adds a validated operation: its effects join the cached view (from viewOf), which stays valid for the longer list.
   */
  private stage(tx: Transaction, view: WorkingView, op: StagedOp, effects: Effect[]): string {
    assert(tx.view?.view === view, 'staging into the view viewOf returned for this statement');
    tx.observe(recordKey(op.c, op.id), this.committedVersion(op.c, op.id));
    view.stage(effects);
    tx.stage(op);
    tx.view.extend(tx.ops, op.c);
    return op.id;
  }

  // ---- reads ---------------------------------------------------------------------------------------------------

  /**
   * Resolves once a commit in flight to the record is applied, when this transaction is about to observe it for
   * the first time; undefined otherwise. The version it would observe meanwhile is already being replaced, so its
   * commit would conflict for certain: waiting the rest of one fsync for the new version instead (as a row lock
   * makes PostgreSQL's UPDATE wait) saves the retry of the whole transaction on a contended record.
   */
  writesSettled(id: string, collection: string, idOrAlias: string): Promise<void> | undefined {
    const tx = this.get(id);
    if (tx.level === 'ReadUncommitted') return undefined;
    // A record read and then written by its id (a read-modify-write) is observed already: nothing to resolve.
    if (tx.observed.has(recordKey(collection, idOrAlias))) return undefined;
    let recordId: string;
    try {
      recordId = resolveRecordId(this.viewOf(tx), collection, idOrAlias, this.records.unique);
    } catch {
      return undefined; // the statement itself says what is wrong
    }
    if (tx.observed.has(recordKey(collection, recordId))) return undefined;
    return this.db.writesApplied(collection, recordId);
  }

  /** Reads a record by id or primary-key-alias value as the transaction sees it. Throws NotFound. */
  findById(id: string, collection: string, idOrAlias: string): Fields {
    const tx = this.get(id);
    const view = this.viewOf(tx);
    const recordId = resolveRecordId(view, collection, idOrAlias, this.records.unique);
    const key = recordKey(collection, recordId);
    tx.observe(key, this.committedVersion(collection, recordId));
    tx.pointReads.add(key);
    const entry = view.record(collection, recordId);
    if (!entry || isExpired(entry, this.db.now())) throw new NotFound(MESSAGES.recordNotFound);
    return entry.fields;
  }

  /**
   * Runs a query over the transaction's view. At Serializable it records the
   * predicate (the filter, or the whole collection) and, for a join, the
   * whole of each target collection.
   */
  find(id: string, collection: string, query: Query): Fields[] {
    const tx = this.get(id);
    this.notePredicate(tx, collection, query.filter);
    for (const target of query.join?.collections ?? []) this.notePredicate(tx, target, undefined);
    const view = this.viewOf(tx);
    const now = this.db.now();
    const live = (function* () {
      for (const [, entry] of view.records(collection)) if (!isExpired(entry, now)) yield entry.fields;
    })();
    const rows = runQuery(live, query);
    for (const record of rows) {
      const key = recordKey(collection, record.id as string);
      tx.observe(key, this.committedVersion(collection, record.id as string));
    }
    return rows;
  }

  /**
   * The live records of `collection` as this transaction sees them (for search inside
   * a transaction). At Serializable this records a read of the whole collection.
   */
  recordsOf(id: string, collection: string): Map<string, Fields> {
    const tx = this.get(id);
    this.notePredicate(tx, collection, undefined);
    const now = this.db.now();
    const out = new Map<string, Fields>();
    for (const [rid, entry] of this.viewOf(tx).records(collection))
      if (!isExpired(entry, now)) out.set(rid, entry.fields);
    return out;
  }

  /** Records a Serializable predicate read at the current committed seq, starting the change history if needed. */
  private notePredicate(tx: Transaction, collection: string, filter: ReadPredicate['filter']): void {
    if (tx.level !== 'Serializable') return;
    const seq = this.db.state.seq;
    this.history.start(seq);
    tx.predicates.add(filter ? { collection, filter, seq } : { collection, seq });
    this.watchers.add(tx);
  }

  /** A transaction ended: trim the history to what the remaining readers need, or drop it. */
  private release(tx: Transaction): void {
    if (!this.watchers.delete(tx)) return;
    let floor: number | undefined;
    for (const transaction of this.watchers) {
      const oldest = transaction.predicates.oldestSeq;
      if (oldest !== undefined && (floor === undefined || oldest < floor)) floor = oldest;
    }
    if (floor === undefined) this.history.stop();
    else this.history.trimThrough(floor);
  }

  // ---- commit --------------------------------------------------------------------------------------------------

  /**
   * Runs a statement that stages in slices, yielding the event loop between
   * them (a large batch): commit waits until it has staged everything, so a
   * commit applies all of such a statement or, when it comes first, none.
   */
  async sliced<R>(id: string, run: () => Promise<R>): Promise<R> {
    const tx = this.get(id);
    const running = run();
    tx.slicedStatements.add(running);
    try {
      return await running;
    } finally {
      tx.slicedStatements.delete(running);
    }
  }

  /** The transaction once none of its statements is staging in slices (it may have ended meanwhile: 404). */
  private async staged(id: string): Promise<Transaction> {
    let tx = this.get(id);
    while (tx.slicedStatements.size > 0) {
      await Promise.allSettled([...tx.slicedStatements]);
      tx = this.get(id);
    }
    return tx;
  }

  /** Validates and applies the transaction atomically. 409 (nothing applied) on a conflict. */
  async commit(id: string): Promise<number> {
    await this.staged(id);
    // Claimed before waiting for the writer: a second commit, a rollback or a late statement now gets 404
    // instead of applying the operations twice or staging into a transaction that is already being applied.
    const tx = this.registry.take(id);
    const ops = toArray(tx.ops);
    try {
      // A large transaction is applied in slices that yield the event loop; the writer is kept meanwhile.
      await this.db.write(async (view) => {
        this.validate(tx, view, ops);
        const work = view.fork();
        const effects: Effect[] = [];
        const slicer = new Slicer();
        for (let i = 0; i < ops.length; i++) {
          const own = this.effectsOf(work, ops[i]!);
          work.stage(own);
          for (const effect of own) effects.push(effect);
          if (slicer.counted()) await slicer.pause();
        }
        // The writer takes the fork over rather than staging the same effects again.
        return { effects, result: undefined, staged: work };
      });
    } catch (err) {
      const event = err instanceof Conflict ? 'commit_conflict' : 'commit_failed';
      this.registry.audit(event, tx, { error: (err as Error).message });
      throw err;
    } finally {
      this.release(tx);
    }
    this.registry.audit('commit', tx);
    return ops.length;
  }

  private validate(tx: Transaction, view: WorkingView, ops: readonly StagedOp[]): void {
    if (tx.level === 'ReadUncommitted') return;
    const conflicts: TxConflict[] = [];
    const check = (keys: Iterable<string>, reason: string) => {
      for (const key of keys) {
        const [collection, rid] = splitKey(key);
        const current = view.record(collection, rid)?.version ?? null;
        if (
          current !== (tx.observed.get(key) ?? null) &&
          !conflicts.some((x) => x.collection === collection && x.id === rid)
        ) {
          conflicts.push({ collection, id: rid, reason });
        }
      }
    };
    // Derived from the operations, so writes undone by a savepoint rollback are not validated.
    check(
      new Set(ops.map((op) => recordKey(op.c, op.id))),
      'written record changed by another transaction since it was observed',
    );
    if (tx.level === 'RepeatableRead' || tx.level === 'Serializable')
      check(tx.pointReads, 'read record changed by another transaction');
    // Subsumes a check of the queried records themselves: each matched its predicate before any change.
    if (tx.level === 'Serializable') {
      for (const conflict of predicateConflicts(tx.predicates, this.history, view)) {
        if (!conflicts.some((y) => y.collection === conflict.collection && y.id === conflict.id))
          conflicts.push(conflict);
      }
    }
    if (conflicts.length > 0) {
      throw new TransactionConflict(
        `Transaction conflict: ${conflicts.length} change(s) since this transaction observed them; nothing was ` +
          `applied, retry the transaction`,
        tx.id,
        conflicts,
      );
    }
  }

  // ---- views ---------------------------------------------------------------------------------------------------

  /**
   * Committed state with this transaction's operations replayed (ops that no
   * longer apply are skipped). Cached until the operation list or a
   * collection they wrote changes (cached-view.ts), so staging n records
   * costs O(n), not O(n^2), and commits elsewhere cost no replay.
   */
  private viewOf(tx: Transaction): WorkingView {
    if (tx.view?.isCurrent(tx.ops)) return tx.view.view;
    const state = this.db.state;
    const view = new WorkingView(state, state.seq + 1);
    const cached = new CachedView(state, view, tx.ops);
    for (const op of toArray(tx.ops)) {
      cached.cover(op.c);
      let effects: Effect[];
      try {
        effects = this.effectsOf(view, op);
      } catch (err) {
        if (err instanceof DbError) continue;
        throw err;
      }
      view.stage(effects);
    }
    tx.view = cached;
    return view;
  }

  /**
   * Computes one staged operation's effects against `view` (marked when it
   * bypasses ripple). Stages nothing into `view`, also when it throws.
   */
  private effectsOf(view: WorkingView, op: StagedOp): Effect[] {
    const effects: Effect[] = [];
    const records = this.records;
    switch (op.kind) {
      case 'insert':
        records.insertInto(view, op.c, op.p, effects);
        break;
      case 'update':
        records.updateIn(view, op.c, op.id, op.p, effects);
        break;
      case 'delete':
        records.deleteIn(view, op.c, op.id, effects);
        break;
      case 'actions':
        records.actionsIn(view, op.c, op.id, op.steps, effects);
        break;
    }
    return markNoRipple(effects, op.bypassRipple);
  }

  private committedVersion(collection: string, id: string): number | null {
    return this.db.state.collections.get(collection)?.records.get(id)?.version ?? null;
  }
}
