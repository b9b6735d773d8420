/**
 * The statement interface: one way to read and write, in or out of a
 * transaction. Procedures (and later stored functions) call a Session and
 * never ask which kind they hold; `Database.session` picks it.
 *
 * Record bodies are wire records (`{field: value, id?, ttl?, ...}`); the
 * engine converts and validates them. Writes resolve once durable
 * (auto-commit) or once staged (transaction).
 */
import type { Bulk, BulkItem, BulkResult } from '../records/bulk.js';
import type { MultiWrites, UpsertTarget } from '../records/multi-writes.js';
import type { Records } from '../records/records.js';
import type { Filter, Query } from '../query/index.js';
import type { SearchHit, SearchRequest } from '../search/search.js';
import type { TransactionManager } from '../transactions/transaction-manager.js';
import type { TransactionStatus } from '../transactions/transaction-registry.js';
import type { ActionStep } from '../records/update-actions.js';
import type { Fields } from '../values/index.js';

/** Who runs the statements: the API key, and whether it is an admin (admins may use any transaction). */
export interface Caller {
  readonly keyId: string;
  readonly admin: boolean;
}

export interface SearchResult {
  readonly results: SearchHit[];
  readonly total: number;
}

/**
 * What sessions run on (not the whole Database, so this folder stays out of
 * the façade's import circle). `search` runs over committed records, or over
 * `view` (a transaction's own records) when given.
 */
export interface SessionEngine {
  readonly records: Records;
  readonly bulk: Bulk;
  readonly transactions: TransactionManager;
  readonly multi: MultiWrites;
  search(collection: string, req: SearchRequest, view?: Map<string, Fields>): Promise<SearchResult>;
  /** A wait to run after a write into `collection` commits, before it is answered (SearchIndexes.pacer). */
  pacer(collection: string): (() => Promise<void>) | undefined;
}

export interface Session {
  /** The transaction the statements join; undefined when each statement commits on its own. */
  readonly transactionId: string | undefined;

  /** One record by id or primary-key-alias value. Throws NotFound. */
  findById(collection: string, idOrAlias: string): Fields;
  /**
   * In a transaction: resolves once a commit in flight to the record is applied, when reading it now would
   * observe a version about to be replaced (TransactionManager.writesSettled); undefined otherwise.
   */
  writesSettled(collection: string, idOrAlias: string): Promise<void> | undefined;
  /** Records matching a parsed query, shaped (projection, join); a long query runs in slices of the event loop. */
  find(collection: string, query: Query): Promise<Fields[]>;
  /** Text, vector or hybrid search; a text search waits while the collection's text index is built. */
  search(collection: string, req: SearchRequest): Promise<SearchResult>;
  /** How many live records `collection` holds (0 when it does not exist). */
  count(collection: string): Promise<number>;
  /**
   * The distinct bare values of field path `field` (sorted), among the records
   * matching `filter` (all when undefined). Throws InvalidInput for a bad field path.
   */
  distinct(collection: string, field: string, filter?: Filter): Promise<unknown[]>;

  /** Inserts a wire record; resolves to its id. */
  insert(collection: string, record: unknown, bypassRipple?: boolean): Promise<string>;
  /** Merges a partial wire record into an existing record; resolves to the new fields. */
  update(collection: string, idOrAlias: string, record: unknown, bypassRipple?: boolean): Promise<Fields>;
  /** Applies update actions in order, atomically; resolves to the new fields. */
  applyActions(
    collection: string,
    idOrAlias: string,
    steps: readonly ActionStep[],
    bypassRipple?: boolean,
  ): Promise<Fields>;
  /** Deletes a record into the trash; resolves to its id. */
  delete(collection: string, idOrAlias: string, bypassRipple?: boolean): Promise<string>;
  /**
   * Many writes to one collection; an item that fails is reported alone while the rest go on. `items` is taken
   * over (an auto-commit write lets each chunk of items go once it is staged): the caller does not read the items after.
   */
  writeMany(collection: string, items: BulkItem[]): Promise<BulkResult>;

  // Statements over many records: each is all or nothing (one durable batch, or staged as one statement).
  // Filters match live records as this session sees them (a transaction: its earlier staged writes included).

  /**
   * Merges a partial wire record into every record matching `filter` (all when undefined; at most `limit`); resolves to
   * their new fields.
   */
  updateWhere(
    collection: string,
    filter: Filter | undefined,
    record: unknown,
    bypassRipple?: boolean,
    limit?: number,
  ): Promise<Fields[]>;
  /**
   * Applies update actions in order to every record matching `filter` (at most `limit`); resolves to their new fields.
   */
  applyActionsWhere(
    collection: string,
    filter: Filter | undefined,
    steps: readonly ActionStep[],
    bypassRipple?: boolean,
    limit?: number,
  ): Promise<Fields[]>;
  /** Deletes every record matching `filter` into the trash; resolves to the deleted records as they were. */
  deleteWhere(collection: string, filter: Filter | undefined, bypassRipple?: boolean): Promise<Fields[]>;
  /** Inserts every wire record or none; resolves to the inserted records, in order. */
  insertAll(collection: string, records: readonly unknown[], bypassRipple?: boolean): Promise<Fields[]>;
  /**
   * Deletes every listed record (ids or alias values) or none (NotFound naming a missing one); resolves to them as they
   * were.
   */
  deleteAll(collection: string, idsOrAliases: readonly string[], bypassRipple?: boolean): Promise<Fields[]>;
  /**
   * Updates the target (a record by id, or every filter match) when it exists, else inserts the record; resolves to
   * what was written.
   */
  upsert(collection: string, target: UpsertTarget, record: unknown, bypassRipple?: boolean): Promise<Fields[]>;
}

/** A session inside one transaction: its statements are staged, and it ends with commit or rollback. */
export interface TransactionSession extends Session {
  readonly transactionId: string;

  status(): TransactionStatus;
  /** Marks the current point, after every statement sent before it has staged; returns the name. */
  savepoint(name: string): Promise<string>;
  /** Undoes what was staged after the savepoint; returns how many operations were undone. */
  rollbackTo(name: string): Promise<number>;
  release(name: string): Promise<void>;
  /** Validates and applies the staged operations atomically; returns their count. 409 on a conflict. */
  commit(): Promise<number>;
  /** Drops the transaction; returns how many operations were discarded. */
  rollback(): number;
}

export function isTransactionSession(session: Session): session is TransactionSession {
  return session.transactionId !== undefined;
}
