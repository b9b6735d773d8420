/**
 * `eddydb export`: a collection's records as NDJSON with typed values, to
 * stdout or a file. Refuses (exit 1) a data directory without EddyDB files
 * and a collection that does not exist, before creating the output file.
 * Streams with backpressure; a write error (disk full, closed pipe) fails
 * the command instead of being dropped.
 */
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Database, recordToWire, toJson, validateCollectionName } from '../../engine/index.js';
import { toolLog } from './tool-log.js';
import { requireDataDir } from './data-dir.js';
import { requireCollection } from './missing-collection.js';
import { progress } from './progress.js';

export interface ExportRequest {
  readonly dataDir: string;
  readonly collection: string;
  /** Output file; stdout when undefined. */
  readonly out?: string;
  /** How long to wait for the data directory's lock (default 10 s). */
  readonly lockWaitMs?: number;
}

/** Runs an export; resolves with the exit code. Throws CliFailure or DbError for known refusals. */
export async function runExport(req: ExportRequest): Promise<number> {
  validateCollectionName(req.collection);
  requireDataDir(req.dataDir, { canCreate: false, create: false });
  const db = await Database.open({ dataDir: req.dataDir, lockWaitMs: req.lockWaitMs, log: toolLog });
  try {
    requireCollection(db, req.dataDir, req.collection);
    const total = await db.records.count(req.collection);
    let n = 0;
    const lines = function* () {
      for (const r of db.records.scan(req.collection)) {
        if (++n % 10_000 === 0) progress(`exported ${n}/${total}`);
        yield toJson(recordToWire(r, { typed: true })) + '\n';
      }
    };
    const source = Readable.from(lines());
    if (req.out) await pipeline(source, createWriteStream(req.out));
    else await pipeline(source, process.stdout, { end: false });
    progress(`exported ${n} records from '${req.collection}'`, true);
    return 0;
  } finally {
    await db.close();
  }
}
