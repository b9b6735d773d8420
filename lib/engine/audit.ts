/**
 * The transaction audit trail: begin, commit, rollback, conflicts, expiry
 * and savepoint events with timestamps and operation counts, appended as
 * NDJSON to `audit.log` in the data directory. It is a record for people,
 * not state: recovery never replays it. Appends go through StorageFs, so the
 * file is private (0600) and fault injection reaches it.
 */
import { open } from 'node:fs/promises';
import path from 'node:path';
import type { Clock } from './clock.js';
import type { StorageFs } from './storage/fs.js';

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
  private tailChecked = false;
  private failing = false;
  readonly file: string;

  constructor(private readonly fs: StorageFs, dir: string, private readonly clock: Clock) {
    this.file = path.join(dir, 'audit.log');
  }

  /** Appends an event in order; failures are reported, never thrown into the caller's transaction. */
  record(e: AuditEvent): void {
    const line = JSON.stringify({ timestamp: new Date(this.clock.now()).toISOString(), ...e }) + '\n';
    this.tail = this.tail.then(async () => {
      // A crash mid-append leaves a line without its newline; start on a fresh line so this event survives.
      const prefix = !this.tailChecked && await endsMidLine(this.file) ? '\n' : '';
      this.tailChecked = true;
      await this.fs.appendFile(this.file, prefix + line);
      this.failing = false;
    }).catch((err) => {
      // A full disk fails every append: say so once, and again only after one has succeeded.
      if (!this.failing) console.error(`audit log append failed: ${(err as Error).message}; further failures are not logged until an append succeeds`);
      this.failing = true;
      // A partial append may have left a torn line: the next append checks for it again.
      this.tailChecked = false;
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
      text = (await this.fs.readFile(this.file)).toString('utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const events = text.split('\n').flatMap(parseLine).reverse();
    const filtered = opts.transactionId ? events.filter((e) => e.transaction_id === opts.transactionId) : events;
    return filtered.slice(0, opts.limit ?? 1000);
  }
}

async function endsMidLine(file: string): Promise<boolean> {
  let h;
  try {
    h = await open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  try {
    const { size } = await h.stat();
    if (size === 0) return false;
    const last = Buffer.alloc(1);
    await h.read(last, 0, 1, size - 1);
    return last[0] !== 0x0a;
  } finally {
    await h.close();
  }
}

/**
 * One event, or none for a line a crash tore mid-append (the next append then
 * continues on that line). Why lenient: the trail is for people, not state,
 * and one torn line must not make the whole trail unreadable.
 */
function parseLine(line: string): Array<Record<string, unknown>> {
  if (line === '') return [];
  try {
    const e: unknown = JSON.parse(line);
    return e !== null && typeof e === 'object' && !Array.isArray(e) ? [e as Record<string, unknown>] : [];
  } catch {
    return [];
  }
}
