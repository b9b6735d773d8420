/**
 * A WriteQueue over real files in a temp dir, through the fault-injecting
 * fs, with storage repairs that run only when a test asks (healNow): no
 * timer races the assertions. Shared by the write-queue specs.
 */
import { WriteQueue } from '../../lib/engine/write/write-queue.js';
import { LogWriter } from '../../lib/engine/storage/log/log-writer.js';
import { StorageHealth } from '../../lib/engine/storage/storage-health.js';
import { DbState } from '../../lib/engine/write/state.js';
import { ManualClock } from '../../lib/engine/index.js';
import type { EngineLog } from '../../lib/engine/engine-log.js';
import { FaultyFs } from './faulty-fs.js';
import { tempDir, removeDir } from './temp-dir.js';

export interface WriteQueueFixture {
  readonly dir: string;
  readonly fs: FaultyFs;
  readonly state: DbState;
  readonly writer: LogWriter;
  readonly health: StorageHealth;
  readonly queue: WriteQueue;
  /** Stops repairs, waits for the writer, closes the log and removes the dir. */
  close(): Promise<void>;
}

export async function openWriteQueue(log: EngineLog = () => undefined): Promise<WriteQueueFixture> {
  const dir = tempDir();
  const fs = new FaultyFs();
  const state = new DbState();
  const writer = new LogWriter(fs, dir, 'always', 5);
  await writer.openSegment(1);
  const health = new StorageHealth(
    new ManualClock(),
    { firstMs: 3_600_000, maxMs: 3_600_000, summaryMs: 3_600_000 },
    log,
  );
  const queue = new WriteQueue(state, writer, health, log);
  return {
    dir,
    fs,
    state,
    writer,
    health,
    queue,
    async close() {
      health.stop();
      await queue.idle();
      await writer.close();
      removeDir(dir);
    },
  };
}
