/**
 * The one info line a server logs once it listens, so an operator sees in a
 * single place what started and from what: `server started` with version,
 * address, dataDir (memory-only: `storage`, saying that nothing is written
 * to disk), durability (`memory` when memory-only), collections and records
 * (user collections only), recoveryMs (opening the data directory: lock,
 * snapshot, replay), what recovery did (snapshot, replayedBatches,
 * droppedFrames, droppedBytes, recoveryWarnings, salvaged), dataLock (what
 * holds the data directory: flock, a fallback without the native addon, or
 * `none` when memory-only) and adminKey: generated, configured (from the
 * environment) or stored. Never the key itself: a generated key is announced
 * on its own, as a plain stdout print, once.
 */
import {
  isInternalCollection,
  type DurabilityMode,
  type LockMechanism,
  type RecoveryReport,
} from '../../engine/index.js';
import type { ServerLog } from './server-log.js';

/** Where the admin key came from at this start. */
export type AdminKeySource = 'generated' | 'configured' | 'stored';

export interface StartupFacts {
  readonly version: string;
  readonly host: string;
  readonly port: number;
  readonly recoveryMs: number;
  readonly adminKey: AdminKeySource;
  /** Served over TLS: the address says https. */
  readonly isTls?: boolean;
}

/** The opened database as the summary reads it. */
export interface StartedEngine {
  readonly state: { readonly collections: ReadonlyMap<string, { readonly records: { readonly size: number } }> };
  readonly recovery: RecoveryReport;
  /** Undefined for a memory-only database. */
  readonly dataDir: string | undefined;
  readonly durability: DurabilityMode | 'memory';
  readonly lockMechanism: LockMechanism;
}

/** What the summary says of a memory-only database instead of a data directory. */
export const MEMORY_ONLY = 'memory only: nothing is written to disk';

/** Logs the startup summary of `engine` at info. */
export function logStartupSummary(log: ServerLog, engine: StartedEngine, facts: StartupFacts): void {
  let collections = 0;
  let records = 0;
  for (const [name, collection] of engine.state.collections) {
    if (isInternalCollection(name)) continue;
    collections += 1;
    records += collection.records.size;
  }
  const recovery = engine.recovery;
  const host = facts.host.includes(':') ? `[${facts.host}]` : facts.host;
  log('info', 'server started', {
    version: facts.version,
    address: `${facts.isTls ? 'https' : 'http'}://${host}:${facts.port}`,
    ...(engine.dataDir === undefined ? { storage: MEMORY_ONLY } : { dataDir: engine.dataDir }),
    durability: engine.durability,
    collections,
    records,
    recoveryMs: Math.round(facts.recoveryMs * 10) / 10,
    snapshot: recovery.snapshot,
    replayedBatches: recovery.replayedBatches,
    droppedFrames: recovery.droppedFrames,
    droppedBytes: recovery.droppedBytes,
    recoveryWarnings: recovery.warnings.length,
    salvaged: recovery.salvaged,
    dataLock: engine.lockMechanism,
    adminKey: facts.adminKey,
  });
}
