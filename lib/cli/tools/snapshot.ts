/**
 * `eddydb snapshot` and `eddydb compact`: open a stopped server's data
 * directory, write a snapshot, and let retention keep two generations
 * (snapshot) or one (compact). Refuses a directory without EddyDB files
 * unless `--create`.
 */
import { Database } from '../../engine/index.js';
import { toolLog } from './tool-log.js';
import { requireDataDir } from './data-dir.js';

/**
 * Snapshots `dataDir`, keeping `keepGenerations` (waiting up to `lockWaitMs` for its lock); resolves with the exit
 * code.
 */
export async function runSnapshot(
  dataDir: string,
  keepGenerations: 1 | 2,
  create: boolean,
  lockWaitMs?: number,
): Promise<number> {
  requireDataDir(dataDir, { canCreate: true, create });
  const db = await Database.open({ dataDir, keepGenerations, lockWaitMs, log: toolLog });
  try {
    const s = await db.snapshot();
    console.log(`snapshot ${s.name} written (seq ${s.seq}, ${s.bytes} bytes)`);
    return 0;
  } finally {
    await db.close();
  }
}
