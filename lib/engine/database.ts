/**
 * Database: the engine's façade. Opens a data directory (recovery), owns the
 * state, the single writer and the log, and exposes the record, collection,
 * trash and key subsystems. One instance per server; nothing global, so
 * tests run many databases in one process.
 *
 * Memory-only (`memory: true`): no data directory, no log, no snapshot, no
 * lock; the engine's small files live in a MemoryFs and the log keeps
 * nothing (MemoryLog), so writes are as atomic and ordered as on disk but
 * are gone at close.
 *
 * Reads go straight to the committed state and never wait for the writer.
 */
import path from 'node:path';
import { Collections } from './collections/collections.js';
import { Records } from './records/records.js';
import { Trash } from './records/trash.js';
import { Bulk } from './records/bulk.js';
import { MultiWrites } from './records/multi-writes.js';
import { AuditLog } from './transactions/audit.js';
import { TransactionManager } from './transactions/transaction-manager.js';
import { Replication } from './ripple/replication.js';
import { KvStore } from './kv/kv.js';
import { IndexManager } from './indexes/index-manager.js';
import { SearchIndexes, type SearchIndexOptions } from './search/search-indexes.js';
import { readBatchesAfter } from './storage/log/log-scan.js';
import type { LoggedBatch } from './write/effects.js';
import { ApiKeys } from './admin/api-keys.js';
import { systemClock, type Clock } from './time/clock.js';
import { IdGenerator } from './records/ids.js';
import { loadOrCreateSecrets, type Secrets } from './admin/secrets.js';
import { DEFAULT_SETTINGS, mergeSettings, type Settings } from './admin/settings.js';
import { DbState } from './write/state.js';
import { DbError, ReadOnlyRefusal, Unavailable } from '../errors.js';
import { nodeFs, type StorageFs } from './storage/fs.js';
import { LOG_ZERO_FILL_BYTES, LogWriter, type DurabilityMode } from './storage/log/log-writer.js';
import type { CommitLog } from './storage/log/commit-log.js';
import { MemoryLog } from './storage/log/memory-log.js';
import { MemoryFs } from './storage/memory-fs.js';
import { recover } from './storage/recovery/recovery.js';
import { emptyRecoveryReport, type RecoveryReport } from './storage/recovery/recovery-report.js';
import { snapshotThreshold, writeSnapshot, type WrittenSnapshot } from './storage/snapshot/snapshot.js';
import { backupStream, captureBackup, type BackupStream } from './storage/backup/backup.js';
import { verifySnapshot } from './storage/snapshot/snapshot-reader.js';
import { redundantFiles, seqOfName } from './storage/generations.js';
import { loadSearchIndexes, persistSearchIndexes, type IndexFilesContext } from './search/index-files.js';
import { moveAside, removeOriginals } from './storage/recovery/damaged-files.js';
import { HEADER_SIZE } from './storage/frame.js';
import { DirLock, type LockMechanism } from './storage/lock.js';
import { securePristineDir } from './storage/dir-permissions.js';
import { StorageHealth, type HealOptions } from './storage/storage-health.js';
import { WriteQueue, type CommitListener, type Operation } from './write/write-queue.js';
import { Checkpoints } from './write/checkpoints.js';
import { ExpiryTracker } from './expiry/expiry.js';
import type { EngineCore } from './core.js';
import { fallbackEngineLog, type EngineLog } from './engine-log.js';
import type { EngineObserver } from './observer.js';
import {
  AutoCommitSession,
  openTransactionSession,
  type Caller,
  type Session,
  type SessionEngine,
  type TransactionSession,
} from './session/index.js';
import { runSearch } from './search/search.js';

/** What every database takes, memory-only or not. */
interface CommonOptions {
  clock?: Clock;
  /** Server defaults; settings changed through PUT /api/config override them. */
  settings?: Partial<Settings>;
  /**
   * Bound on the changes kept for Serializable predicate checks (default 100,000; see transactions/change-history.ts).
   */
  serializableHistoryLimit?: number;
  /** Where recovery, snapshot and storage messages go (default: errors to stderr, see engine-log.ts). */
  log?: EngineLog;
  /** Told of log appends, fsyncs, write groups and snapshots as they happen (the server's metrics; observer.ts). */
  observe?: EngineObserver;
  /** Background search-index builds: work per slice (default 10 ms). */
  searchIndexes?: SearchIndexOptions;
  /**
   * Record ids from this seed (records/ids.ts): the same seed makes the same ids in the same order. For tests;
   * without it ids are random and unguessable.
   */
  idSeed?: string;
}

/** A database kept in a data directory: log, snapshots, secrets and a lock. */
export interface DiskDatabaseOptions extends CommonOptions {
  readonly memory?: false;
  dataDir: string;
  fs?: StorageFs;
  /** fsync interval of the `batch` durability mode. */
  batchSyncMs?: number;
  /** Zero fill kept ahead of the log's frames (LogWriter.zeroFillBytes); 0 turns it off. Default 1 MiB. */
  logZeroFillBytes?: number;
  /**
   * Take a snapshot once the current segment passes this many bytes. Unset:
   * 64 MiB, or half the last snapshot's size when that is more, so that the
   * snapshots a growing database writes stay in proportion to what it logs.
   */
  snapshotBytes?: number;
  /**
   * How many generations (a snapshot and the log after it; the empty state
   * counts as the oldest) to keep once a new snapshot is verified. Default 2:
   * the previous generation stays as a fallback. `eddydb compact` uses 1.
   */
  keepGenerations?: number;
  /** When a normal start would refuse on damaged files, start from what is readable (FORMAT.md, Salvage). */
  salvage?: boolean;
  /** Backoff of the background repair after a storage failure, and the summary interval. */
  heal?: HealOptions;
  /**
   * How long to wait for another process's hold on the data directory before refusing (default 10 s; storage/lock.ts).
   */
  lockWaitMs?: number;
  /**
   * The log the writer appends to, made from the local one (a cluster's log publishes each group too; lib/cluster).
   * With it the writer describes each group's changes as it stages them (WriteQueue.describeWhenStaged).
   */
  commitLog?: (local: CommitLog) => CommitLog;
}

/** A memory-only database: nothing is written to disk, and everything is gone at close. */
export interface MemoryDatabaseOptions extends CommonOptions {
  readonly memory: true;
  readonly dataDir?: undefined;
}

export type DatabaseOptions = DiskDatabaseOptions | MemoryDatabaseOptions;

/** Where a memory-only database's MemoryFs keeps the engine's small files (secrets, node id, audit). */
const MEMORY_DIR = '/eddydb-memory';

export class Database {
  readonly records: Records;
  readonly collections: Collections;
  readonly trash: Trash;
  readonly keys: ApiKeys;
  readonly bulk: Bulk;
  readonly audit: AuditLog;
  readonly transactions: TransactionManager;
  readonly replication: Replication;
  readonly kv: KvStore;
  readonly indexes: IndexManager;
  readonly search: SearchIndexes;
  /** Replication peers still needing log segments (their acked seqs are respected by cleanup). */
  retainFor: () => readonly string[] = () => [];
  readonly ids: IdGenerator;
  /** Checkpoints of the whole state (test fixtures): O(1) to take, restored by undoing the changes since. */
  readonly checkpoints: Checkpoints;
  private snapshotting: Promise<unknown> | undefined;
  /** Told of each snapshot once it is verified, before older files are removed (a cluster uploads it). */
  private readonly snapshotListeners: Array<(written: { name: string; seq: number }) => void> = [];
  /** The size of the newest snapshot (written, or recovered from); 0 without one. */
  private lastSnapshotBytes = 0;
  private closed = false;
  private readonly log: EngineLog;
  /** The directory of the engine's files: the data directory, or MEMORY_DIR in a memory-only database's MemoryFs. */
  private readonly dir: string;

  private constructor(
    readonly state: DbState,
    readonly queue: WriteQueue,
    private readonly logWriter: CommitLog,
    readonly clock: Clock,
    readonly secrets: Secrets,
    private readonly opts: DatabaseOptions,
    private readonly fs: StorageFs,
    private readonly lock: DirLock,
    /** Read-only mode after a storage failure: its cause, state and the repair loop. */
    readonly storage: StorageHealth,
    /** What recovery used, replayed and dropped at startup (GET /api/health). */
    readonly recovery: RecoveryReport,
  ) {
    this.log = opts.log ?? fallbackEngineLog;
    this.dir = opts.memory ? MEMORY_DIR : opts.dataDir;
    this.ids = opts.idSeed === undefined ? new IdGenerator(secrets.idKey) : IdGenerator.seeded(opts.idSeed);
    const core = this.core();
    this.indexes = new IndexManager(core);
    this.search = new SearchIndexes(core, opts.searchIndexes);
    this.kv = new KvStore(core);
    this.records = new Records(core, this.indexes, new ExpiryTracker(core, this.kv));
    this.collections = new Collections(core, this.records);
    this.trash = new Trash(core);
    this.keys = new ApiKeys(core);
    this.bulk = new Bulk(core, this.records);
    this.audit = new AuditLog(fs, this.dir, clock, this.log);
    this.transactions = new TransactionManager(core, this.records, this.audit, opts.serializableHistoryLimit);
    this.replication = new Replication(core);
    this.checkpoints = new Checkpoints(state, queue, {
      beforeRestore: () => this.transactions.rollbackAll(),
      afterRestore: () => this.persistRestored(),
    });
    queue.onCommit(() => this.maybeSnapshot());
  }

  /** The narrow view of this database that the services get (see core.ts). */
  private core(): EngineCore {
    const { state, ids, queue, clock, log } = this;
    return {
      state,
      ids,
      log,
      dataDir: this.dir,
      get readOnly() {
        return queue.readOnly;
      },
      get replica() {
        return queue.refuseWrites !== undefined;
      },
      now: () => clock.now(),
      settings: () => this.settings(),
      write: (op) => queue.submit(op),
      writesApplied: (collection, id) => queue.writesApplied(collection, id),
      onCommit: (listener) => queue.onCommit(listener),
    };
  }

  /**
   * Opens (recovering) or creates the database in `opts.dataDir`, or an empty memory-only one. Throws Corruption on a
   * damaged log.
   */
  static async open(opts: DatabaseOptions): Promise<Database> {
    if (opts.memory) {
      if (opts.dataDir !== undefined)
        throw new TypeError('a memory-only database takes no dataDir: drop dataDir, or drop memory to keep data there');
      return Database.openMemory(opts);
    }
    const fs = opts.fs ?? nodeFs;
    const dir = opts.dataDir;
    await fs.mkdir(dir);
    await securePristineDir(fs, dir);
    const lock = await DirLock.acquire(fs, dir, { waitMs: opts.lockWaitMs, log: opts.log ?? fallbackEngineLog });
    try {
      return await Database.openLocked(opts, fs, lock);
    } catch (err) {
      await lock.release();
      throw err;
    }
  }

  /** An empty database whose files live in a MemoryFs and whose log keeps nothing; secrets are made in memory. */
  private static async openMemory(opts: MemoryDatabaseOptions): Promise<Database> {
    const fs = new MemoryFs();
    await fs.mkdir(MEMORY_DIR);
    const secrets = await loadOrCreateSecrets(fs, MEMORY_DIR);
    const clock = opts.clock ?? systemClock;
    const log = opts.log ?? fallbackEngineLog;
    const state = new DbState();
    const memoryLog = new MemoryLog({ ...DEFAULT_SETTINGS, ...opts.settings }.durability);
    const health = new StorageHealth(clock, {}, log);
    const queue = new WriteQueue(state, memoryLog, health, log, opts.observe);
    const report = emptyRecoveryReport();
    const db = new Database(state, queue, memoryLog, clock, secrets, opts, fs, DirLock.none(), health, report);
    await db.replication.load(fs);
    db.search.start();
    return db;
  }

  private static async openLocked(opts: DiskDatabaseOptions, fs: StorageFs, lock: DirLock): Promise<Database> {
    const dir = opts.dataDir;
    const secrets = await loadOrCreateSecrets(fs, dir);
    const clock = opts.clock ?? systemClock;
    const log = opts.log ?? fallbackEngineLog;
    const recovered = await recover(fs, dir, {
      log: (m, level) => log(m, level),
      salvage: opts.salvage,
      now: clock.now(),
    });
    const settings = mergeSettings({ ...DEFAULT_SETTINGS, ...opts.settings }, recovered.state.config);
    const local = new LogWriter(fs, dir, settings.durability, opts.batchSyncMs ?? 10);
    local.observe = opts.observe;
    local.zeroFillBytes = opts.logZeroFillBytes ?? LOG_ZERO_FILL_BYTES;
    const last = recovered.lastSegment;
    if (last && last.size >= HEADER_SIZE) await local.reopen(last.name, last.size);
    else {
      if (last) await fs.unlink(path.join(dir, last.name));
      await local.openSegment(recovered.state.seq + 1);
    }
    const writer = opts.commitLog ? opts.commitLog(local) : local;
    const health = new StorageHealth(clock, opts.heal, log);
    const queue = new WriteQueue(recovered.state, writer, health, log, opts.observe);
    queue.describeWhenStaged = opts.commitLog !== undefined;
    const db = new Database(recovered.state, queue, writer, clock, secrets, opts, fs, lock, health, recovered.report);
    await db.replication.load(fs);
    if (recovered.report.snapshot)
      db.lastSnapshotBytes = await fs.size(path.join(dir, recovered.report.snapshot)).catch(() => 0);
    const baseSeq = recovered.report.snapshot ? seqOfName(recovered.report.snapshot) : 0;
    await loadSearchIndexes(db.indexFiles(), baseSeq, recovered.state.seq).catch((err) =>
      log(`search indexes: could not read the persisted indexes; rebuilding`, 'warn', err),
    );
    db.search.start();
    if (recovered.report.salvaged) {
      try {
        await db.finishSalvage();
      } catch (err) {
        await db.close().catch(() => undefined);
        throw err;
      }
    }
    return db;
  }

  /**
   * Salvage's last step: a fresh snapshot of what was recovered, so the next
   * normal start is clean; once it is verified, the damaged originals (already
   * copied aside) leave the data directory, before retention runs.
   */
  private async finishSalvage(): Promise<void> {
    const report = this.recovery;
    const snapshot = await this.snapshotWith(async (written) => {
      await removeOriginals(this.fs, this.dir, report, new Set([written.name, this.logWriter.currentSegment]));
    });
    this.log(
      `salvage: wrote ${snapshot.name} (seq ${snapshot.seq}); the damaged files are in ${report.movedTo}/`,
      'warn',
    );
  }

  /** The data directory; undefined for a memory-only database. */
  get dataDir(): string | undefined {
    return this.opts.dataDir;
  }
  /** True for a memory-only database: nothing is written to disk. */
  get memory(): boolean {
    return this.opts.memory === true;
  }
  /** How writes are kept: the log's durability mode, or `memory` when nothing is written to disk. */
  get durability(): DurabilityMode | 'memory' {
    return this.memory ? 'memory' : this.settings().durability;
  }
  /**
   * What holds the data directory for this process (storage/lock.ts): `flock`, or a fallback without the native addon.
   */
  get lockMechanism(): LockMechanism {
    return this.lock.mechanism;
  }
  get readOnly(): boolean {
    return this.queue.readOnly;
  }
  get readOnlyReason(): string | undefined {
    return this.queue.readOnlyReason;
  }
  now(): number {
    return this.clock.now();
  }

  private settingsCache: { config: Readonly<Record<string, unknown>>; settings: Settings } | undefined;

  /** Effective settings: server defaults overridden by stored config (cached until the config changes). */
  settings(): Settings {
    const config = this.state.config;
    if (this.settingsCache?.config !== config) {
      this.settingsCache = {
        config,
        settings: Object.freeze(mergeSettings({ ...DEFAULT_SETTINGS, ...this.opts.settings }, config)),
      };
    }
    return this.settingsCache.settings;
  }

  /** Durably applies a settings patch (parsed by parseSettingsPatch); returns the new settings. */
  async updateSettings(patch: Partial<Settings>): Promise<Settings> {
    await this.write(() => ({ effects: [{ kind: 'config', values: patch }], result: undefined }));
    this.logWriter.mode = this.settings().durability;
    return this.settings();
  }

  /** What sessions run on, and the one auto-commit session (it holds no state); made on first use. */
  private sessions: { engine: SessionEngine; autoCommit: Session } | undefined;

  /**
   * The statement interface for `caller`: inside transaction `transactionId`
   * when given (NotFound when it belongs to another key), else auto-commit.
   */
  session(caller: Caller | undefined, transactionId: string): TransactionSession;
  session(caller: Caller | undefined, transactionId?: string): Session;
  session(caller: Caller | undefined, transactionId?: string): Session {
    if (!this.sessions) {
      const engine: SessionEngine = {
        records: this.records,
        bulk: this.bulk,
        transactions: this.transactions,
        multi: new MultiWrites(this.core(), this.records, this.indexes),
        search: (c, req, view) => runSearch(this, c, req, view),
        pacer: (c) => this.search.pacer(c),
      };
      this.sessions = { engine, autoCommit: new AutoCommitSession(engine) };
    }
    return transactionId === undefined
      ? this.sessions.autoCommit
      : openTransactionSession(this.sessions.engine, transactionId, caller);
  }

  /** Runs a write operation in the single writer (see WriteQueue.submit). */
  write<R>(op: Operation<R>): Promise<R> {
    return this.queue.submit(op);
  }

  /**
   * Logged batches after `seq`, read back from the segments (replication catch-up). Throws Unavailable for a
   * memory-only database: it keeps no log.
   */
  async readLog(afterSeq: number, limit: number): Promise<{ batches: LoggedBatch[]; firstAvailable: number }> {
    if (this.memory) throw new Unavailable('ripples need a data directory; this database is memory-only');
    return readBatchesAfter(this.fs, this.dir, afterSeq, limit);
  }

  onCommit(listener: CommitListener): void {
    this.queue.onCommit(listener);
  }

  /** Tells `listener` of each snapshot written to the data directory, once verified. */
  onSnapshot(listener: (written: { name: string; seq: number }) => void): void {
    this.snapshotListeners.push(listener);
  }

  /**
   * A backup of the whole database at the current seq (storage/backup/),
   * captured between two write groups and streamed as its reader pulls,
   * while writes go on; a memory-only database is backed up the same way.
   */
  async backup(source: { version: string }): Promise<BackupStream> {
    const capture = await this.queue.exclusive(async () =>
      captureBackup(this.state, this.secrets, this.clock.now(), { version: source.version, memory: this.memory }),
    );
    return backupStream(capture);
  }

  /**
   * Writes a snapshot now and removes log segments and old snapshots it
   * makes redundant. Writes continue meanwhile. Returns the snapshot seq.
   * A memory-only database writes nothing: `{name: 'memory', seq, bytes: 0}`.
   */
  async snapshot(): Promise<{ name: string; seq: number; bytes: number }> {
    if (this.memory) return { name: 'memory', seq: this.state.seq, bytes: 0 };
    try {
      return await this.snapshotWith();
    } catch (err) {
      throw this.snapshotFailure(err);
    }
  }

  /**
   * A snapshot that failed on the disk is a storage failure (503), not a bug:
   * when it turned the engine read-only, StorageHealth has logged the cause and
   * the refusal is counted like any write; otherwise the cause travels with it.
   */
  private snapshotFailure(err: unknown): unknown {
    if (err instanceof DbError) return err;
    if (this.readOnly) return this.storage.refuse();
    const code = (err as NodeJS.ErrnoException).code;
    return code ? new Unavailable(`Snapshot failed: storage error ${code}`, { cause: err }) : err;
  }

  private async snapshotWith(
    beforeRetention?: (written: WrittenSnapshot) => Promise<void>,
  ): Promise<{ name: string; seq: number; bytes: number }> {
    while (this.snapshotting) await this.snapshotting.catch(() => undefined);
    const started = performance.now();
    const run = this.runSnapshot(beforeRetention);
    this.snapshotting = run;
    const ended = (failed: boolean) => this.opts.observe?.snapshot?.((performance.now() - started) / 1000, failed);
    try {
      const written = await run;
      ended(false);
      return written;
    } catch (err) {
      ended(true);
      throw err;
    } finally {
      this.snapshotting = undefined;
    }
  }

  private async runSnapshot(
    beforeRetention?: (snapshot: WrittenSnapshot) => Promise<void>,
  ): Promise<{ name: string; seq: number; bytes: number }> {
    const dir = this.dir;
    // Rotate and capture between groups, so the new segment holds exactly the batches after the snapshot.
    const { written } = await this.queue.exclusive(async () => {
      await this.logWriter.openSegment(this.state.seq + 1);
      return { written: writeSnapshot(this.fs, dir, this.state, this.clock.now()) };
    });
    const result = await written;
    await this.verifyWritten(result);
    this.lastSnapshotBytes = result.bytes;
    // Optional: without them the search indexes are rebuilt at the next start.
    await persistSearchIndexes(this.indexFiles(), result.seq, () => this.state.seq).catch((err) =>
      this.log(`search indexes not persisted with ${result.name}: ${(err as Error).message}`, 'warn', err),
    );
    await beforeRetention?.(result);
    for (const listener of this.snapshotListeners) listener({ name: result.name, seq: result.seq });
    await this.removeRedundantFiles(dir);
    return { name: result.name, seq: result.seq, bytes: result.bytes };
  }

  /** What persisting and loading the search indexes needs (search/index-files.ts). */
  private indexFiles(): IndexFilesContext {
    return { fs: this.fs, dir: this.dir, search: this.search, log: this.log };
  }

  /**
   * Re-reads a snapshot just renamed into place. On any mismatch it is moved
   * aside and nothing is deleted, so the previous generations stay whole.
   */
  private async verifyWritten(written: WrittenSnapshot): Promise<void> {
    try {
      await verifySnapshot(this.fs, this.dir, written);
    } catch (err) {
      const moved = await moveAside(this.fs, this.dir, [written.name], this.clock.now());
      throw new Unavailable(
        `snapshot ${written.name} failed verification (${(err as Error).message}); moved to ${moved}/, no file was ` +
          `deleted`,
        { cause: err },
      );
    }
  }

  /** Deletes what no kept generation (see keepGenerations) and no replication peer needs. */
  private async removeRedundantFiles(dir: string): Promise<void> {
    // Replication peers read the log from their acknowledged seq: keep what they still need.
    const peerNeed = this.replication.oldestNeeded(this.retainFor());
    const keep = this.opts.memory ? 1 : (this.opts.keepGenerations ?? 2);
    const doomed = redundantFiles(await this.fs.readdir(dir), keep, peerNeed);
    for (const name of doomed) await this.fs.unlink(path.join(dir, name));
  }

  private maybeSnapshot(): void {
    if (this.opts.memory) return;
    const threshold = snapshotThreshold(this.opts.snapshotBytes, this.lastSnapshotBytes);
    if (this.snapshotting || this.closed || this.logWriter.bytesInSegment < threshold) return;
    this.snapshot().catch((err) => this.logSnapshotFailure('snapshot (log segment full)', err));
  }

  /**
   * Logs a snapshot that failed in the background (size threshold, schedule,
   * shutdown) at error level with its cause. A refusal because the engine is
   * read-only is not logged again: StorageHealth has logged that failure.
   */
  logSnapshotFailure(what: string, err: unknown): void {
    if (err instanceof ReadOnlyRefusal) return;
    this.log(
      `${what} failed: ${(err as Error)?.message ?? String(err)}; the log keeps growing until a snapshot succeeds`,
      'error',
      err,
    );
  }

  /**
   * A restored checkpoint is a change the log does not hold: with a data
   * directory it is made durable as a snapshot (written in the writer, so no
   * batch can follow it into a segment before the snapshot is in place).
   */
  private async persistRestored(): Promise<void> {
    if (this.memory) return;
    while (this.snapshotting) await this.snapshotting.catch(() => undefined);
    await this.logWriter.openSegment(this.state.seq + 1);
    const written = await writeSnapshot(this.fs, this.dir, this.state, this.clock.now());
    await this.verifyWritten(written);
  }

  /** Waits for in-flight writes and snapshots, takes a final snapshot when asked, and closes the log. */
  async close(opts: { snapshot?: boolean } = {}): Promise<void> {
    if (this.closed) return;
    this.storage.stop();
    this.records.stopTimers();
    this.transactions.stopCleanup();
    this.search.stop();
    await this.queue.idle();
    if (this.snapshotting) await this.snapshotting.catch(() => undefined);
    // One last repair, so a disk freed since the last retry closes with a clean log.
    if (this.readOnly && !(await this.storage.healNow()))
      this.log('closing while read-only: storage still failing', 'error');
    if (opts.snapshot && !this.readOnly)
      await this.snapshot().catch((err) => this.logSnapshotFailure('final snapshot', err));
    await this.search.close();
    this.closed = true;
    await this.audit.close();
    await this.logWriter.close();
    await this.lock.release();
  }
}
