/**
 * One process per data directory: `LOCK` holds the owner's pid. A lock whose
 * pid is no longer alive (a killed server) is taken over.
 */
import * as fs from 'node:fs';
import path from 'node:path';
import { Unavailable } from '../../errors.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class DirLock {
  private constructor(private readonly file: string) {}

  /** Throws Unavailable when another live process holds the directory. */
  static acquire(dir: string): DirLock {
    const file = path.join(dir, 'LOCK');
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
        return new DirLock(file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const pid = Number(fs.readFileSync(file, 'utf8'));
        if (pid === process.pid || !Number.isInteger(pid) || !alive(pid)) fs.rmSync(file, { force: true });
        else throw new Unavailable(`Data directory ${dir} is in use by process ${pid}`);
      }
    }
    throw new Unavailable(`Could not lock data directory ${dir}`);
  }

  release(): void {
    fs.rmSync(this.file, { force: true });
  }
}
