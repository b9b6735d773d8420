/**
 * The transaction audit trail: begin, commit, rollback, conflicts, expiry
 * and savepoint events with timestamps and operation counts, appended as
 * NDJSON to `audit.log` in the data directory. It is a record for people,
 * not state: recovery never replays it.
 */
import { appendFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Clock } from './clock.js';

export interface AuditEvent {
  event: 'begin' | 'commit' | 'commit_conflict' | 'commit_failed' | 'rollback' | 'expired'
    | 'savepoint_create' | 'savepoint_rollback' | 'savepoint_release';
  transaction_id: string;
  isolation_level: string;
  operations_count: number;
  savepoint?: string;
  error?: string;
}

export class AuditLog {
  private tail: Promise<void> = Promise.resolve();
  readonly file: string;

  constructor(dir: string, private readonly clock: Clock) {
    this.file = path.join(dir, 'audit.log');
  }

  /** Appends an event in order; failures are reported, never thrown into the caller's transaction. */
  record(e: AuditEvent): void {
    const line = JSON.stringify({ timestamp: new Date(this.clock.now()).toISOString(), ...e }) + '\n';
    this.tail = this.tail.then(() => appendFile(this.file, line)).catch((err) => {
      console.error(`audit log append failed: ${(err as Error).message}`);
    });
  }

  /** Waits for pending appends (tests, shutdown). */
  flush(): Promise<void> {
    return this.tail;
  }

  /** The newest events first, optionally for one transaction. */
  async read(opts: { limit?: number; transactionId?: string } = {}): Promise<Array<Record<string, unknown>>> {
    await this.flush();
    let text = '';
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const events = text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>).reverse();
    const filtered = opts.transactionId ? events.filter((e) => e.transaction_id === opts.transactionId) : events;
    return filtered.slice(0, opts.limit ?? 1000);
  }
}
