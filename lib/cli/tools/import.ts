/**
 * `eddydb import`: records from NDJSON or a JSON array into a collection, in
 * batches of 1,000 (each batch one durable write). Everything that can be
 * refused is checked before the database is opened or touched: the data
 * directory, the input file, the input's format (import-source.ts); then
 * the collection, which must exist unless `--create` is given. Records that
 * fail are reported by line (or array position) and the rest are imported;
 * the exit code is 1 when any failed.
 */
import { open } from 'node:fs/promises';
import { Database, validateCollectionName } from '../../engine/index.js';
import { toolLog } from './tool-log.js';
import { requireDataDir } from './data-dir.js';
import { requireCollection } from './missing-collection.js';
import { jsonArrayItems, ndjsonItems, type ImportItem } from './import-source.js';
import { progress } from './progress.js';

const IMPORT_CHUNK = 1000;

export interface ImportRequest {
  readonly dataDir: string;
  readonly collection: string;
  /** Input file; stdin when undefined. */
  readonly in?: string;
  readonly format: 'ndjson' | 'json';
  /** Make the data directory and the collection when missing. */
  readonly create: boolean;
  /** How long to wait for the data directory's lock (default 10 s). */
  readonly lockWaitMs?: number;
}

/** Runs an import; resolves with the exit code. Throws CliFailure, DbError or an fs error for known refusals. */
export async function runImport(req: ImportRequest): Promise<number> {
  validateCollectionName(req.collection);
  requireDataDir(req.dataDir, { canCreate: true, create: req.create });
  const input = req.in ? (await open(req.in, 'r')).createReadStream() : process.stdin;
  // Otherwise a bare `eddydb import --collection c` in a terminal looks hung.
  if (!req.in && process.stdin.isTTY)
    console.error('reading records from the terminal (end with Ctrl-D); --in FILE reads a file');
  const items = (req.format === 'json' ? jsonArrayItems(input) : ndjsonItems(input))[Symbol.asyncIterator]();
  try {
    // The first item settles the format (a refusal throws here), before the database is opened.
    const first = await items.next();
    const db = await Database.open({ dataDir: req.dataDir, lockWaitMs: req.lockWaitMs, log: toolLog });
    try {
      if (!req.create) requireCollection(db, req.dataDir, req.collection, 'pass --create to make it');
      const { imported, failed } = await insertAll(db, req.collection, first, items);
      progress(`imported ${imported} records into '${req.collection}', ${failed} failed`, true);
      return failed === 0 ? 0 : 1;
    } finally {
      await db.close({ snapshot: true });
    }
  } finally {
    input.destroy();
  }
}

async function insertAll(
  db: Database,
  collection: string,
  first: IteratorResult<ImportItem>,
  rest: AsyncIterator<ImportItem>,
) {
  let imported = 0,
    failed = 0;
  let chunk: Array<{ label: string; record: unknown }> = [];
  const flush = async () => {
    const res = await db.bulk.insertMany(
      collection,
      chunk.map((c) => c.record),
    );
    imported += res.successful.length;
    for (const f of res.failed) console.error(`${f.index === undefined ? '' : `${chunk[f.index]!.label}: `}${f.error}`);
    failed += res.failed.length;
    chunk = [];
    progress(`imported ${imported} (${failed} failed)`);
  };
  for (let next = first; !next.done; next = await rest.next()) {
    const item = next.value;
    if ('error' in item) {
      console.error(`${item.label}: ${item.error}`);
      failed += 1;
      continue;
    }
    chunk.push(item);
    if (chunk.length >= IMPORT_CHUNK) await flush();
  }
  if (chunk.length > 0) await flush();
  return { imported, failed };
}
