/**
 * The data directory's lock, with real processes: a holder in a child
 * process (helpers/lock-holder.ts) against this one. What the kernel holds
 * (flock, and the abstract socket without the addon) is released the moment
 * the holder dies, so a start right after kill -9 takes it within its wait;
 * the pid in LOCK only names the holder, and a LOCK naming an unrelated
 * live process blocks nothing. The pid fallback's limit is pinned too.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { Database, DirLock, nodeFs, type LockMechanism, type LogLevel } from '../../../lib/engine/index.js';
import { Unavailable } from '../../../lib/errors.js';
import { nativeLock } from '../../../lib/engine/storage/native-lock.js';
import { holdInChild, stopHolder, type LockHolder } from '../../helpers/lock-holder.js';
import { rejection } from '../../helpers/rejection.js';
import { tempDir, removeDir } from '../../helpers/temp-dir.js';

const FLOCK_BUILT = !('unavailable' in nativeLock());
const KERNEL_MECHANISMS: ReadonlyArray<{ mechanism: Exclude<LockMechanism, 'none'>; available: boolean }> = [
  { mechanism: 'flock', available: FLOCK_BUILT },
  { mechanism: 'socket', available: process.platform === 'linux' },
];

/** A process that has nothing to do with EddyDB, alive until killed. */
function unrelatedProcess() {
  return spawn('sleep', ['60'], { stdio: 'ignore' });
}

describe('data directory lock (real processes)', function () {
  this.timeout(60_000);
  let dir: string;
  let holder: LockHolder | undefined;
  beforeEach(() => {
    dir = tempDir('eddydb-lock-');
  });
  afterEach(async () => {
    if (holder) await stopHolder(holder);
    holder = undefined;
    removeDir(dir);
  });

  for (const { mechanism, available } of KERNEL_MECHANISMS) {
    describe(`${mechanism}`, () => {
      beforeEach(function () {
        if (!available) this.skip();
      });

      it("makes another process wait for it, then refuse naming the holder's pid", async () => {
        holder = await holdInChild(dir, mechanism);
        expect(holder.mechanism).to.equal(mechanism);
        expect(readFileSync(path.join(dir, 'LOCK'), 'utf8'), "the holder's pid, as information").to.equal(
          String(holder.pid),
        );
        const logged: Array<[string, LogLevel | undefined]> = [];
        const began = performance.now();
        const err = await rejection(
          DirLock.acquire(nodeFs, dir, { mechanism, waitMs: 300, log: (m, l) => logged.push([m, l]) }),
        );
        expect(performance.now() - began, 'refused only after the wait').to.be.at.least(290);
        expect(err).to.be.instanceOf(Unavailable);
        expect((err as Error).message).to.equal(
          `Data directory ${dir} is in use by process ${holder.pid} (still held after waiting 0.3 s)`,
        );
        expect(logged, 'the wait is announced once').to.deep.equal([
          [
            `data directory ${dir} is locked by process ${holder.pid}; waiting up to 0.3 s for it to be released`,
            'warn',
          ],
        ]);
      });

      it('is released by the kernel when its holder is killed with SIGKILL: a start at once takes it', async () => {
        holder = await holdInChild(dir, mechanism);
        // No wait for the exit: the start races the dead process's teardown, and waits for the kernel's release.
        holder.proc.kill('SIGKILL');
        const lock = await DirLock.acquire(nodeFs, dir, { mechanism, waitMs: 10_000 });
        expect(lock.mechanism).to.equal(mechanism);
        expect(readFileSync(path.join(dir, 'LOCK'), 'utf8')).to.equal(String(process.pid));
        await lock.release();
        expect(existsSync(path.join(dir, 'LOCK')), 'a clean release removes LOCK').to.equal(false);
      });

      it('is not blocked by a LOCK naming a live, unrelated process', async () => {
        const other = unrelatedProcess();
        try {
          writeFileSync(path.join(dir, 'LOCK'), String(other.pid));
          const lock = await DirLock.acquire(nodeFs, dir, { mechanism, waitMs: 0 });
          expect(readFileSync(path.join(dir, 'LOCK'), 'utf8')).to.equal(String(process.pid));
          await lock.release();
        } finally {
          other.kill('SIGKILL');
        }
      });

      it('refuses a second hold in the same process', async () => {
        const lock = await DirLock.acquire(nodeFs, dir, { mechanism, waitMs: 0 });
        try {
          const err = await rejection(DirLock.acquire(nodeFs, dir, { mechanism, waitMs: 0 }));
          expect((err as Error).message).to.equal(`Data directory ${dir} is in use by process ${process.pid}`);
        } finally {
          await lock.release();
        }
        await (await DirLock.acquire(nodeFs, dir, { mechanism, waitMs: 0 })).release();
      });

      it('is one lock for every spelling of the directory (a symlink to it)', async () => {
        const link = `${dir}-link`;
        symlinkSync(dir, link);
        try {
          holder = await holdInChild(link, mechanism);
          const err = await rejection(DirLock.acquire(nodeFs, dir, { mechanism, waitMs: 0 }));
          expect((err as Error).message).to.include(`in use by process ${holder.pid}`);
        } finally {
          removeDir(link);
        }
      });
    });
  }

  describe('pid (the fallback without the addon, off Linux)', () => {
    it('takes over a LOCK whose process is gone or is this one, and is blocked by a live one', async () => {
      const file = path.join(dir, 'LOCK');
      const other = unrelatedProcess();
      try {
        writeFileSync(file, String(other.pid));
        const err = await rejection(DirLock.acquire(nodeFs, dir, { mechanism: 'pid', waitMs: 0 }));
        expect((err as Error).message, 'it cannot tell an unrelated process from a holder').to.include(
          `in use by process ${other.pid}`,
        );
      } finally {
        other.kill('SIGKILL');
        await new Promise((r) => other.once('exit', r));
      }
      await (await DirLock.acquire(nodeFs, dir, { mechanism: 'pid', waitMs: 0 })).release();
      writeFileSync(file, String(process.pid));
      const lock = await DirLock.acquire(nodeFs, dir, { mechanism: 'pid', waitMs: 0 });
      const second = await rejection(DirLock.acquire(nodeFs, dir, { mechanism: 'pid', waitMs: 0 }));
      expect((second as Error).message, 'but not its own second hold').to.include(`in use by process ${process.pid}`);
      await lock.release();
    });
  });

  describe('Database.open', () => {
    it('refuses, after the wait, a directory another process has open, naming it', async () => {
      holder = await holdInChild(dir, 'database');
      expect(holder.mechanism).to.equal(FLOCK_BUILT ? 'flock' : process.platform === 'linux' ? 'socket' : 'pid');
      const began = performance.now();
      const err = await rejection(Database.open({ dataDir: dir, lockWaitMs: 400 }));
      expect(performance.now() - began).to.be.at.least(390);
      expect(err).to.be.instanceOf(Unavailable);
      expect((err as Error).message).to.equal(
        `Data directory ${dir} is in use by process ${holder.pid} (still held after waiting 0.4 s)`,
      );
    });

    it('opens once the other process closes the directory within the wait', async () => {
      holder = await holdInChild(dir, 'database');
      const opening = Database.open({ dataDir: dir, lockWaitMs: 20_000 });
      await new Promise((r) => setTimeout(r, 300));
      await stopHolder(holder, 'SIGTERM');
      const db = await opening;
      expect(db.lockMechanism).to.equal(holder.mechanism);
      await db.close();
    });

    it('opens a directory whose LOCK names a live, unrelated process at once', async function () {
      if (!FLOCK_BUILT && process.platform !== 'linux') this.skip();
      const other = unrelatedProcess();
      try {
        await (await Database.open({ dataDir: dir })).close();
        writeFileSync(path.join(dir, 'LOCK'), String(other.pid));
        const db = await Database.open({ dataDir: dir, lockWaitMs: 0 });
        await db.close();
      } finally {
        other.kill('SIGKILL');
      }
    });
  });
});
