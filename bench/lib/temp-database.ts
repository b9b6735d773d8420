/** A throwaway database (durability none, no size-triggered snapshot) for in-process benchmarks. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Database } from '../../lib/engine/index.js';

export async function withTempDatabase<T>(fn: (db: Database) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(path.join(tmpdir(), 'eddydb-bench-'));
  const db = await Database.open({
    dataDir: dir,
    settings: { durability: 'none' },
    snapshotBytes: Number.MAX_SAFE_INTEGER,
  });
  try {
    return await fn(db);
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
