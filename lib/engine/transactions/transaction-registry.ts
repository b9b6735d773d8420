/**
 * The open transactions: ids, owners, expiry, listing, and the audit trail
 * of each one's life. A transaction is in the registry from begin until it
 * commits, rolls back or expires; what it staged and how it commits is the
 * TransactionManager's business (transaction-manager.ts).
 *
 * An expired transaction stays listed as unusable (400 "Transaction has
 * expired") until the periodic cleanup removes it; then it is unknown (404).
 */
import { randomUUID } from 'node:crypto';
import { InvalidInput, MESSAGES, NotFound } from '../../errors.js';
import type { AuditEvent, AuditLog } from './audit.js';
import type { IsolationLevel } from '../admin/settings.js';
import { Transaction } from './transaction.js';

export const CLEANUP_INTERVAL_MS = 60_000;

export interface TransactionStatus {
  transaction_id: string;
  state: 'Active' | 'Expired';
  isolation_level: IsolationLevel;
  operations_count: number;
  savepoints_count: number;
  created_at: number;
  last_activity: number;
  timeout_seconds: number;
}

/** Who is asking: the API key's id, and whether it is an admin key. */
export interface TransactionCaller {
  readonly keyId: string;
  readonly admin: boolean;
}

export class TransactionRegistry {
  private readonly txs = new Map<string, Transaction>();
  private timer: NodeJS.Timeout | undefined;

  /** `ended` is told of every transaction that expires here (so the manager can release what it holds for it). */
  constructor(
    private readonly now: () => number,
    private readonly auditLog: AuditLog,
    private readonly ended: (tx: Transaction) => void,
  ) {}

  /** Registers a new transaction owned by `owner` (an API key id; undefined when auth is off). */
  open(level: IsolationLevel, timeoutSecs: number, owner?: string): Transaction {
    const tx = new Transaction(randomUUID(), level, this.now(), timeoutSecs, owner);
    this.txs.set(tx.id, tx);
    this.audit('begin', tx);
    return tx;
  }

  /**
   * Throws NotFound unless `caller` began the transaction or is an admin, so
   * a transaction id is useless to any other key. Unknown ids pass: the
   * statement itself then answers 404.
   */
  checkOwner(id: string, caller: TransactionCaller | undefined): void {
    const tx = this.txs.get(id);
    if (tx && caller && !caller.admin && tx.owner !== undefined && tx.owner !== caller.keyId)
      throw new NotFound(MESSAGES.transactionNotFound);
  }

  /** The active transaction; counts as activity. Throws NotFound when unknown, InvalidInput when expired. */
  get(id: string): Transaction {
    const tx = this.active(id);
    tx.lastActivity = this.now();
    return tx;
  }

  /** Removes the active transaction and returns it (commit, rollback). Throws like `get`. */
  take(id: string): Transaction {
    const tx = this.get(id);
    this.txs.delete(id);
    return tx;
  }

  /** Status of an active transaction; not counted as activity. Throws like `get`. */
  status(id: string): TransactionStatus {
    return describe(this.active(id), this.now());
  }

  /** Active transactions, only the caller's own unless it is an admin. */
  list(caller?: TransactionCaller): TransactionStatus[] {
    const now = this.now();
    return [...this.txs.values()]
      .filter(
        (t) => !t.isExpired(now) && (!caller || caller.admin || t.owner === undefined || t.owner === caller.keyId),
      )
      .map((t) => describe(t, now));
  }

  /** Removes expired transactions; returns how many. */
  cleanupExpired(): number {
    const now = this.now();
    let count = 0;
    for (const [id, tx] of this.txs) {
      if (!tx.isExpired(now)) continue;
      this.txs.delete(id);
      this.ended(tx);
      this.audit('expired', tx);
      count += 1;
    }
    return count;
  }

  /** Removes expired transactions every 60 s (the server starts it; tests call cleanupExpired). */
  startCleanup(): void {
    this.timer ??= setInterval(() => this.cleanupExpired(), CLEANUP_INTERVAL_MS);
    this.timer.unref();
  }

  stopCleanup(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Appends one event of `tx` to the audit trail, with its current operation count. */
  audit(event: AuditEvent['event'], tx: Transaction, more: { savepoint?: string; error?: string } = {}): void {
    const record: AuditEvent = {
      event,
      transaction_id: tx.id,
      isolation_level: tx.level,
      operations_count: tx.operationsCount,
    };
    if (more.savepoint !== undefined) record.savepoint = more.savepoint;
    if (more.error !== undefined) record.error = more.error;
    this.auditLog.record(record);
  }

  private active(id: string): Transaction {
    const tx = this.txs.get(id);
    if (!tx) throw new NotFound(MESSAGES.transactionNotFound);
    if (tx.isExpired(this.now())) throw new InvalidInput(MESSAGES.transactionExpired);
    return tx;
  }
}

function describe(tx: Transaction, now: number): TransactionStatus {
  return {
    transaction_id: tx.id,
    state: tx.isExpired(now) ? 'Expired' : 'Active',
    isolation_level: tx.level,
    operations_count: tx.operationsCount,
    savepoints_count: tx.savepoints.size,
    created_at: Math.floor(tx.createdAt / 1000),
    last_activity: Math.floor(tx.lastActivity / 1000),
    timeout_seconds: tx.timeoutSecs,
  };
}
