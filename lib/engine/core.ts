/**
 * EngineCore: the part of the database every engine service shares — the
 * committed state, the clock, id generation, the effective settings, the
 * single writer and its commit listeners, and the engine log.
 *
 * Services get this (plus the few other services they really call) instead
 * of the whole Database, so no service imports the façade and the façade is
 * the only module that knows them all. Database builds one core object and
 * hands it to each service it constructs (see database.ts).
 */
import type { EngineLog } from './engine-log.js';
import type { IdGenerator } from './records/ids.js';
import type { Settings } from './admin/settings.js';
import type { DbState } from './write/state.js';
import type { CommitListener, Operation } from './write/write-queue.js';

export interface EngineCore {
  /** Committed state: read freely, change only through `write`. */
  readonly state: DbState;
  readonly ids: IdGenerator;
  /**
   * The directory of the engine's files (replication keeps its cursors there): the data directory, or for a
   * memory-only database a directory of its in-memory file system.
   */
  readonly dataDir: string;
  readonly log: EngineLog;
  /** True after a storage failure, until the repair succeeds: every write is refused. */
  readonly readOnly: boolean;
  /** True on a cluster's replica: its writes come from the cluster's log, and background writers do nothing. */
  readonly replica: boolean;
  now(): number;
  /** Effective settings: server defaults overridden by stored config. */
  settings(): Settings;
  /** Runs a write operation in the single writer (see WriteQueue.submit). */
  write<R>(op: Operation<R>): Promise<R>;
  /** Resolves once the writes in flight to a record are applied; undefined when none is (WriteQueue.writesApplied). */
  writesApplied(collection: string, id: string): Promise<void> | undefined;
  /** Called after each batch is durable and applied, in seq order. */
  onCommit(listener: CommitListener): void;
}
