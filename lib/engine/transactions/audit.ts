/**
 * The transaction audit trail: begin, commit, rollback, conflicts, expiry
 * and savepoint events with timestamps and operation counts, appended as
 * NDJSON to `audit.log` in the data directory. It is a record for people,
 * not state: recovery never replays it. Appends go through StorageFs, so the
 * file is private (0600) and fault injection reaches it.
 */
import path from 'node:path';
import type { Clock } from '../time/clock.js';
import type { StorageFile, StorageFs } from '../storage/fs.js';
import { fallbackEngineLog, type EngineLog } from '../engine-log.js';

export interface AuditEvent {
  event:
    | 'begin'
    | 'commit'
    | 'commit_conflict'
    | 'commit_failed'
    | 'rollback'
    | 'expired'
    | 'savepoint_create'
    | 'savepoint_rollback'
    | 'savepoint_release';
  transaction_id: string;
  isolation_level: string;
  operations_count: number;
  savepoint?: string;
  error?: string;
}

/**
 * How long the first event waits for others before the append: commits come in bursts, and one write per burst
 * instead of one per event keeps libuv's thread pool, which the log's fsyncs use, free. The trail is for people,
 * so a crash may lose these last milliseconds of it; never a transaction.
 */
const COALESCE_MS = 5;

export class AuditLog {
  /** Lines recorded and not yet handed to a write: written together by the next one. */
  private pending: string[] = [];
  private writing: Promise<void> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private file_: StorageFile | undefined;
  private tailChecked = false;
  private failing = false;
  /** The second `stampPrefix` is of, and its text up to the seconds' point (`2026-01-01T00:00:00.`). */
  private stampSecond = NaN;
  private stampPrefix = '';
  readonly file: string;

  constructor(
    private readonly fs: StorageFs,
    dir: string,
    private readonly clock: Clock,
    private readonly log: EngineLog = fallbackEngineLog,
  ) {
    this.file = path.join(dir, 'audit.log');
  }

  /**
   * Appends an event in order; failures are reported, never thrown into the
   * caller's transaction. Events recorded within COALESCE_MS of each other,
   * or while a write is in flight, go out together through one open handle:
   * a file open per event kept libuv's thread pool busy enough to delay the
   * log's fsyncs (commits at 1/10 of their speed).
   */
  record(event: AuditEvent): void {
    this.pending.push(auditLine(this.timestamp(), event));
    if (this.writing || this.timer) return;
    this.timer = setTimeout(() => this.startWriting(), COALESCE_MS);
    this.timer.unref();
  }

  /**
   * The clock's time in ISO 8601. Date's formatting costs about a microsecond, a good part of an event's cost: the
   * text up to the seconds is made once a second, and the milliseconds are appended.
   */
  private timestamp(): string {
    const now = this.clock.now();
    const second = Math.floor(now / 1000);
    if (second !== this.stampSecond) {
      this.stampSecond = second;
      this.stampPrefix = new Date(second * 1000).toISOString().slice(0, -4);
    }
    const ms = now - second * 1000;
    return `${this.stampPrefix}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z`;
  }

  private startWriting(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.writing ??= this.drain().finally(() => {
      this.writing = undefined;
      // An event recorded after the drain's last look and before this callback would wait for the next event.
      if (this.pending.length > 0) this.startWriting();
    });
  }

  /** Writes what is pending at once and waits for it (reads, tests, shutdown). */
  async flush(): Promise<void> {
    if (this.timer) this.startWriting();
    while (this.writing) await this.writing;
  }

  /** Flushes and closes the file (shutdown). */
  async close(): Promise<void> {
    await this.flush();
    const file = this.file_;
    this.file_ = undefined;
    await file?.close().catch(() => undefined);
  }

  private async drain(): Promise<void> {
    while (this.pending.length > 0) {
      const lines = this.pending.join('');
      this.pending = [];
      try {
        if (!this.file_) {
          // A crash mid-append leaves a line without its newline; start on a fresh line so these events survive.
          const prefix = !this.tailChecked && (await endsMidLine(this.fs, this.file)) ? '\n' : '';
          this.tailChecked = true;
          this.file_ = await this.fs.openAppend(this.file);
          if (prefix) await this.file_.write(Buffer.from(prefix));
        }
        await this.file_.write(Buffer.from(lines, 'utf8'));
        this.failing = false;
      } catch (err) {
        // A full disk fails every append: say so once, and again only after one has succeeded.
        if (!this.failing)
          this.log('audit log append failed; further failures are not logged until an append succeeds', 'error', err);
        this.failing = true;
        // A partial append may have left a torn line: reopen and check again next time.
        const file = this.file_;
        this.file_ = undefined;
        this.tailChecked = false;
        await file?.close().catch(() => undefined);
      }
    }
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

/**
 * An event's NDJSON line, its members in a fixed order (a savepoint's name after the transaction's id, an error
 * last): what JSON.stringify writes for such an object, without making the object or walking it generically.
 */
export function auditLine(timestamp: string, event: AuditEvent): string {
  const text = JSON.stringify;
  let line = `{"timestamp":${text(timestamp)},"event":${text(event.event)}`;
  line += `,"transaction_id":${text(event.transaction_id)}`;
  if (event.savepoint !== undefined) line += `,"savepoint":${text(event.savepoint)}`;
  line += `,"isolation_level":${text(event.isolation_level)},"operations_count":${text(event.operations_count)}`;
  if (event.error !== undefined) line += `,"error":${text(event.error)}`;
  return line + '}\n';
}

/** True when the file's last byte is not a newline (a crash tore the last append). */
async function endsMidLine(fs: StorageFs, file: string): Promise<boolean> {
  if (!fs.exists(file)) return false;
  const size = await fs.size(file);
  if (size === 0) return false;
  const last = Buffer.alloc(1);
  await fs.readAt(file, last, size - 1);
  return last[0] !== 0x0a;
}

/**
 * One event, or none for a line a crash tore mid-append (the next append then
 * continues on that line). Why lenient: the trail is for people, not state,
 * and one torn line must not make the whole trail unreadable.
 */
function parseLine(line: string): Array<Record<string, unknown>> {
  if (line === '') return [];
  try {
    const event: unknown = JSON.parse(line);
    return event !== null && typeof event === 'object' && !Array.isArray(event)
      ? [event as Record<string, unknown>]
      : [];
  } catch {
    return [];
  }
}
