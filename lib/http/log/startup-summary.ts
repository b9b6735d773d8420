/**
 * The one info line a server logs once it listens, so an operator sees in a
 * single place what started and from what: `server started` with version,
 * address, dataDir, durability, collections and records (user collections
 * only), recoveryMs (opening the data directory: lock, snapshot, replay),
 * what recovery did (snapshot, replayedBatches, droppedFrames, droppedBytes,
 * recoveryWarnings, salvaged), dataLock (what holds the data directory:
 * flock, or a fallback without the native addon) and adminKey: generated, configured (from the
 * environment) or stored. Never the key itself: a generated key is announced
 * on its own, as a plain stdout print, once.
 */
import { isInternalCollection, type Database } from '../../engine/index.js';
import type { ServerLog } from './server-log.js';

/** Where the admin key came from at this start. */
export type AdminKeySource = 'generated' | 'configured' | 'stored';

export interface StartupFacts {
  readonly version: string;
  readonly host: string;
  readonly port: number;
  readonly recoveryMs: number;
  readonly adminKey: AdminKeySource;
}

/** Logs the startup summary of `db` at info. */
export function logStartupSummary(log: ServerLog, db: Database, facts: StartupFacts): void {
  let collections = 0;
  let records = 0;
  for (const [name, c] of db.state.collections) {
    if (isInternalCollection(name)) continue;
    collections += 1;
    records += c.records.size;
  }
  const r = db.recovery;
  const host = facts.host.includes(':') ? `[${facts.host}]` : facts.host;
  log('info', 'server started', {
    version: facts.version, address: `http://${host}:${facts.port}`, dataDir: db.dataDir, durability: db.settings().durability,
    collections, records, recoveryMs: Math.round(facts.recoveryMs * 10) / 10, snapshot: r.snapshot, replayedBatches: r.replayedBatches,
    droppedFrames: r.droppedFrames, droppedBytes: r.droppedBytes, recoveryWarnings: r.warnings.length, salvaged: r.salvaged,
    dataLock: db.lockMechanism, adminKey: facts.adminKey,
  });
}
