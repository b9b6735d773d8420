/**
 * Statements inside one transaction: writes are staged (validated now
 * against the transaction's view, applied at commit), reads see committed
 * state plus the transaction's own writes.
 *
 * The session is bound to its caller when it is opened: a transaction is
 * usable only by the key that began it (or an admin), and anyone else is told
 * it does not exist, so a transaction id is useless to any other key.
 */
import { MESSAGES, NotFound, toDbError } from '../../errors.js';
import { namedId, type BulkFailure, type BulkItem, type BulkResult } from '../records/bulk.js';
import { validateId } from '../records/ids.js';
import { Slicer } from '../time/slices.js';
import type { UpsertTarget } from '../records/multi-writes.js';
import { validateCollectionName } from '../collections/names.js';
import { getPath, parseFieldPath, type Filter, type Query } from '../query/index.js';
import type { SearchRequest } from '../search/search.js';
import type { TransactionManager } from '../transactions/transaction-manager.js';
import type { TransactionStatus } from '../transactions/transaction-registry.js';
import type { ActionStep } from '../records/update-actions.js';
import { bareValue, hashKey, isPlainObject, sortCompare, type Fields, type Value } from '../values/index.js';
import type { Caller, SearchResult, SessionEngine, TransactionSession } from './session.js';

/** Opens a session on transaction `id` for `caller`. Throws NotFound when the transaction belongs to another key. */
export function openTransactionSession(
  engine: SessionEngine,
  id: string,
  caller: Caller | undefined,
): TransactionSession {
  engine.transactions.checkOwner(id, caller);
  return new StagingSession(engine, id);
}

class StagingSession implements TransactionSession {
  private readonly txs: TransactionManager;

  constructor(
    private readonly engine: SessionEngine,
    readonly transactionId: string,
  ) {
    this.txs = engine.transactions;
  }

  findById(collection: string, idOrAlias: string): Fields {
    return this.txs.findById(this.transactionId, collection, idOrAlias);
  }

  writesSettled(collection: string, idOrAlias: string): Promise<void> | undefined {
    return this.txs.writesSettled(this.transactionId, collection, idOrAlias);
  }

  async find(collection: string, query: Query): Promise<Fields[]> {
    return this.engine.records.shapeRows(this.txs.find(this.transactionId, collection, query), query);
  }

  /** Searches the transaction's own records exactly (the shared indexes hold committed records only). */
  search(collection: string, req: SearchRequest): Promise<SearchResult> {
    return this.engine.search(collection, req, this.txs.recordsOf(this.transactionId, collection));
  }

  /** Live records as the transaction sees them: a read of the whole collection (a predicate at Serializable). */
  async count(collection: string): Promise<number> {
    return this.matching(collection, undefined, undefined).length;
  }

  /** Over the matching records as the transaction sees them: a read of `filter` (a predicate at Serializable). */
  async distinct(collection: string, field: string, filter?: Filter): Promise<unknown[]> {
    const path = parseFieldPath(field, 'distinct field');
    const seen = new Map<string, Value>();
    for (const record of this.matching(collection, filter, undefined)) {
      const value = getPath(record, path);
      if (value === undefined) continue;
      const key = hashKey(value);
      if (!seen.has(key)) seen.set(key, value);
    }
    return [...seen.values()].sort(sortCompare).map(bareValue);
  }

  async insert(collection: string, record: unknown, bypassRipple = false): Promise<string> {
    return this.txs.stageInsert(this.transactionId, collection, record, bypassRipple);
  }

  async update(collection: string, idOrAlias: string, record: unknown, bypassRipple = false): Promise<Fields> {
    await this.writesSettled(collection, idOrAlias);
    return this.txs.stageUpdate(this.transactionId, collection, idOrAlias, record, bypassRipple);
  }

  async applyActions(
    collection: string,
    idOrAlias: string,
    steps: readonly ActionStep[],
    bypassRipple = false,
  ): Promise<Fields> {
    return this.txs.stageActions(this.transactionId, collection, idOrAlias, steps, bypassRipple);
  }

  async delete(collection: string, idOrAlias: string, bypassRipple = false): Promise<string> {
    return this.txs.stageDelete(this.transactionId, collection, idOrAlias, bypassRipple);
  }

  /**
   * Stages each item on its own; a failing item is reported and the rest are
   * still staged. A large batch stages in slices that yield the event loop
   * (slices.ts); a commit of this transaction waits for all of it
   * (TransactionManager.sliced). A rollback meanwhile discards what was
   * staged, and the items after it fail as the transaction is gone.
   */
  async writeMany(collection: string, items: readonly BulkItem[]): Promise<BulkResult> {
    // An unknown or expired transaction fails the whole request, not each item.
    return this.txs.sliced(this.transactionId, async () => {
      const successful: string[] = [];
      const failed: BulkFailure[] = [];
      const slicer = new Slicer();
      for (let index = 0; index < items.length; index++) {
        const item = items[index]!;
        try {
          successful.push(this.stageItem(collection, item));
        } catch (err) {
          failed.push({ index, id: namedId(item), error: toDbError(err).message });
        }
        if (slicer.counted()) await slicer.pause();
      }
      return { successful, failed };
    });
  }

  // Statements over many records: matched against the transaction's view (its earlier staged writes
  // included), one operation staged per record, all dropped when one fails (stageStatement).

  async updateWhere(
    collection: string,
    filter: Filter | undefined,
    record: unknown,
    bypassRipple = false,
    limit?: number,
  ): Promise<Fields[]> {
    const matched = this.matching(collection, filter, limit);
    return this.txs.stageStatement(this.transactionId, () =>
      matched.map((r) => this.txs.stageUpdate(this.transactionId, collection, r.id as string, record, bypassRipple)),
    );
  }

  async applyActionsWhere(
    collection: string,
    filter: Filter | undefined,
    steps: readonly ActionStep[],
    bypassRipple = false,
    limit?: number,
  ): Promise<Fields[]> {
    const matched = this.matching(collection, filter, limit);
    return this.txs.stageStatement(this.transactionId, () =>
      matched.map((r) => this.txs.stageActions(this.transactionId, collection, r.id as string, steps, bypassRipple)),
    );
  }

  async deleteWhere(collection: string, filter: Filter | undefined, bypassRipple = false): Promise<Fields[]> {
    const matched = this.matching(collection, filter, undefined);
    return this.txs.stageStatement(this.transactionId, () =>
      matched.map((record) => {
        this.txs.stageDelete(this.transactionId, collection, record.id as string, bypassRipple);
        return record;
      }),
    );
  }

  async insertAll(collection: string, records: readonly unknown[], bypassRipple = false): Promise<Fields[]> {
    validateCollectionName(collection);
    return this.txs.stageStatement(this.transactionId, () =>
      records.map((body) =>
        this.findById(collection, this.txs.stageInsert(this.transactionId, collection, body, bypassRipple)),
      ),
    );
  }

  async deleteAll(collection: string, idsOrAliases: readonly string[], bypassRipple = false): Promise<Fields[]> {
    validateCollectionName(collection);
    // Looked up before any is staged, so a record named twice (by id and alias) is deleted once.
    const listed = new Map<string, Fields>();
    for (const given of idsOrAliases) {
      const before = this.listed(collection, given);
      if (!listed.has(before.id as string)) listed.set(before.id as string, before);
    }
    return this.txs.stageStatement(this.transactionId, () =>
      [...listed.values()].map((before) => {
        this.txs.stageDelete(this.transactionId, collection, before.id as string, bypassRipple);
        return before;
      }),
    );
  }

  async upsert(collection: string, target: UpsertTarget, record: unknown, bypassRipple = false): Promise<Fields[]> {
    validateCollectionName(collection);
    const tx = this.transactionId;
    if ('filter' in target) {
      const matched = this.matching(collection, target.filter, undefined);
      return this.txs.stageStatement(tx, () =>
        matched.length > 0
          ? matched.map((r) => this.txs.stageUpdate(tx, collection, r.id as string, record, bypassRipple))
          : [this.findById(collection, this.txs.stageInsert(tx, collection, record, bypassRipple))],
      );
    }
    const existing = this.liveOrUndefined(collection, target.id);
    if (existing) return [this.txs.stageUpdate(tx, collection, existing.id as string, record, bypassRipple)];
    const body = isPlainObject(record) && record.id === undefined ? { ...record, id: target.id } : record;
    return [this.findById(collection, this.txs.stageInsert(tx, collection, body, bypassRipple))];
  }

  /**
   * Live records of `collection` matching `filter` as the transaction sees them (a read: observed, and a predicate at
   * Serializable).
   */
  private matching(collection: string, filter: Filter | undefined, limit: number | undefined): Fields[] {
    validateCollectionName(collection);
    return this.txs.find(this.transactionId, collection, {
      filter,
      sort: [],
      skip: 0,
      limit,
      bypassCache: false,
      bypassRipple: false,
    });
  }

  /** A listed record as the transaction sees it; NotFound naming it. */
  private listed(collection: string, idOrAlias: string): Fields {
    const found = this.liveOrUndefined(collection, idOrAlias);
    if (!found) throw new NotFound(`${MESSAGES.recordNotFound}: '${idOrAlias}' in collection '${collection}'`);
    return found;
  }

  /** The record as the transaction sees it, undefined when it is not live (an unknown transaction still throws). */
  private liveOrUndefined(collection: string, idOrAlias: string): Fields | undefined {
    this.txs.get(this.transactionId);
    try {
      return this.findById(collection, idOrAlias);
    } catch (err) {
      if (err instanceof NotFound) return undefined;
      throw err;
    }
  }

  private stageItem(collection: string, item: BulkItem): string {
    const bypass = item.bypassRipple === true;
    switch (item.kind) {
      case 'insert':
        return this.txs.stageInsert(this.transactionId, collection, item.body, bypass);
      case 'update': {
        const id = validateId(item.id);
        this.txs.stageUpdate(this.transactionId, collection, id, item.body, bypass);
        return id;
      }
      case 'delete':
        return this.txs.stageDelete(this.transactionId, collection, validateId(item.id), bypass);
    }
  }

  status(): TransactionStatus {
    return this.txs.status(this.transactionId);
  }

  savepoint(name: string): Promise<string> {
    return this.txs.createSavepoint(this.transactionId, name);
  }

  rollbackTo(name: string): Promise<number> {
    return this.txs.rollbackToSavepoint(this.transactionId, name);
  }

  release(name: string): Promise<void> {
    return this.txs.releaseSavepoint(this.transactionId, name);
  }

  commit(): Promise<number> {
    return this.txs.commit(this.transactionId);
  }

  rollback(): number {
    return this.txs.rollback(this.transactionId);
  }
}
