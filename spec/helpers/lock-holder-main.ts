/**
 * A process that holds a data directory and waits to be killed: run by
 * lock-holder.ts as `lock-holder-main.ts <dir> <how> <waitMs>`, where `how`
 * is `database` (Database.open, the mechanism it picks) or a lock mechanism
 * forced on DirLock. Prints `held <mechanism> <pid>` once it holds, or
 * `refused <message>` and exits 1. SIGTERM releases the lock and exits.
 */
import { Database, DirLock, nodeFs, type LockMechanism } from '../../lib/engine/index.js';

const [dir, how, waitMs] = process.argv.slice(2) as [string, string, string];
try {
  const held =
    how === 'database'
      ? await Database.open({ dataDir: dir, lockWaitMs: Number(waitMs) })
      : await DirLock.acquire(nodeFs, dir, { mechanism: how as LockMechanism, waitMs: Number(waitMs) });
  const mechanism = held instanceof Database ? held.lockMechanism : held.mechanism;
  process.stdout.write(`held ${mechanism} ${process.pid}\n`);
  process.on('SIGTERM', () => {
    void (held instanceof Database ? held.close() : held.release()).then(() => process.exit(0));
  });
  setInterval(() => undefined, 60_000);
} catch (err) {
  process.stdout.write(`refused ${(err as Error).message}\n`);
  process.exit(1);
}
