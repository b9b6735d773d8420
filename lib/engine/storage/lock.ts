/**
 * One process per data directory: `LOCK` holds the owner's pid. A lock whose
 * pid is no longer alive (a killed server) is taken over. The file is created
 * through StorageFs, so it is private like every other file in the directory.
 */
import path from 'node:path';
import { Unavailable } from '../../errors.js';
import type { StorageFs } from './fs.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class DirLock {
  private constructor(private readonly fs: StorageFs, private readonly file: string) {}

  /** Throws Unavailable when another live process holds the directory. */
  static async acquire(fs: StorageFs, dir: string): Promise<DirLock> {
    const file = path.join(dir, 'LOCK');
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await fs.writeFile(file, String(process.pid), { exclusive: true });
        return new DirLock(fs, file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const pid = Number((await fs.readFile(file)).toString('utf8'));
        if (pid === process.pid || !Number.isInteger(pid) || !alive(pid)) await removeIfPresent(fs, file);
        else throw new Unavailable(`Data directory ${dir} is in use by process ${pid}`);
      }
    }
    throw new Unavailable(`Could not lock data directory ${dir}`);
  }

  release(): Promise<void> {
    return removeIfPresent(this.fs, this.file);
  }
}

async function removeIfPresent(fs: StorageFs, file: string): Promise<void> {
  try {
    await fs.unlink(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
