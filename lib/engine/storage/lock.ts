/**
 * One process per data directory, held by something the kernel lets go of
 * when its process dies: a restart right after a crash (kill -9, the OOM
 * killer) finds the directory free as soon as the dead process's files are
 * closed, and a process that later gets the dead one's pid (common in
 * containers) never blocks a start. The mechanism, best first:
 *
 * - `flock`: an exclusive flock(2) on `LOCK`, through the native addon
 *   (native-lock.ts). The descriptor stays open while the lock is held.
 * - `socket` (Linux without the addon): listening on the abstract Unix
 *   socket `\0eddydb-lock:<hash of the directory's real path>`. Abstract
 *   names belong to a network namespace, so two containers that share the
 *   directory but not their network would not see each other's lock.
 * - `pid` (other platforms without the addon): `LOCK` created exclusively,
 *   taken over when the pid in it is not alive. It cannot tell a reused pid
 *   from the owner, nor a dead owner not yet reaped from a live one.
 *
 * - `none`: a memory-only database holds no directory (DirLock.none()).
 *
 * With the first two, the pid in `LOCK` is only information, for the
 * refusal message. A start that finds the lock held polls until `waitMs` has
 * passed (a killed server takes a moment to go away), then refuses naming
 * the holder. All processes on one directory must use the same mechanism
 * (one install): the mechanisms do not see each other.
 */
import { createHash } from 'node:crypto';
import { closeSync, fchmodSync, ftruncateSync, writeSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Unavailable } from '../../errors.js';
import type { EngineLog } from '../engine-log.js';
import { PRIVATE_FILE_MODE, type StorageFs } from './fs.js';
import { nativeLock } from './native-lock.js';

export type LockMechanism = 'flock' | 'socket' | 'pid' | 'none';

/** How long a start waits for a held lock by default: a killed process with a large heap takes a while to go. */
export const DEFAULT_LOCK_WAIT_MS = 10_000;
const POLL_MS = 50;

export interface LockOptions {
  /** How long to wait for a held lock before refusing (default DEFAULT_LOCK_WAIT_MS). */
  waitMs?: number;
  /** Default: the best this process has. Specs force the fallbacks; `none` holds nothing. */
  mechanism?: LockMechanism;
  /** Where the wait and a fallback mechanism are announced. */
  log?: EngineLog;
}

/** A held lock's release: removes `LOCK` while still holding, so a newcomer's file is never the one removed. */
type Release = () => Promise<void>;
/** One try: the release of the lock now held, or undefined when another process holds it. */
type Attempt = () => Promise<Release | undefined>;

/** `LOCK` files held by this process through the pid mechanism, which cannot see its own second open. */
const heldByPid = new Set<string>();

export class DirLock {
  private released = false;

  private constructor(
    readonly mechanism: LockMechanism,
    private readonly letGo: Release,
  ) {}

  /**
   * Holds `dir` (which must exist) for this process, waiting up to
   * `opts.waitMs` for another holder to go away. Throws Unavailable naming
   * the holder's pid when it does not; fs errors (EROFS, EACCES) propagate.
   */
  static async acquire(fs: StorageFs, dir: string, opts: LockOptions = {}): Promise<DirLock> {
    const file = path.join(dir, 'LOCK');
    const mechanism = opts.mechanism ?? bestMechanism(dir, opts.log);
    if (mechanism === 'none') return DirLock.none();
    const attempt =
      mechanism === 'flock'
        ? flockAttempt(fs, file)
        : mechanism === 'socket'
          ? socketAttempt(fs, file, await socketName(dir))
          : pidAttempt(fs, file);
    const waitMs = opts.waitMs ?? DEFAULT_LOCK_WAIT_MS;
    // Real time, not the engine's clock: this waits for another process to go away.
    const deadline = performance.now() + waitMs;
    let announced = false;
    for (;;) {
      const release = await attempt();
      if (release) return new DirLock(mechanism, release);
      const holder = describeHolder(await holderPid(fs, file));
      if (performance.now() >= deadline) {
        throw new Unavailable(
          `Data directory ${dir} is in use by ` +
            `${holder}${waitMs > 0 ? ` (still held after waiting ${seconds(waitMs)} s)` : ''}`,
        );
      }
      if (!announced)
        opts.log?.(
          `data directory ${dir} is locked by ${holder}; waiting up to ${seconds(waitMs)} s for it to be released`,
          'warn',
        );
      announced = true;
      await sleep(POLL_MS);
    }
  }

  /** The lock of a memory-only database: it holds nothing, and its release does nothing. */
  static none(): DirLock {
    return new DirLock('none', () => Promise.resolve());
  }

  /** Lets the directory go; a second call does nothing. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    await this.letGo();
  }
}

/** flock when the addon loaded; otherwise the socket on Linux and the pid elsewhere, saying why. */
function bestMechanism(dir: string, log: EngineLog | undefined): Exclude<LockMechanism, 'none'> {
  const native = nativeLock();
  if (!('unavailable' in native)) return 'flock';
  const fallback = process.platform === 'linux' ? 'socket' : 'pid';
  const what = fallback === 'socket' ? 'an abstract Unix socket (per network namespace)' : 'the pid in LOCK';
  // At debug: the startup line already names the mechanism (dataLock), and the install warned about the build.
  log?.(`data directory ${dir} is locked with ${what}, not flock: ${native.unavailable}`, 'debug');
  return fallback;
}

function flockAttempt(fs: StorageFs, file: string): Attempt {
  const native = nativeLock();
  if ('unavailable' in native) throw new Error(`flock lock unavailable: ${native.unavailable}`);
  return async () => {
    const fd = native.lockFile(file);
    if (fd < 0) return undefined;
    try {
      fchmodSync(fd, PRIVATE_FILE_MODE);
      ftruncateSync(fd, 0);
      writeSync(fd, String(process.pid), 0);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
    return async () => {
      try {
        await removeIfPresent(fs, file);
      } finally {
        closeSync(fd);
      }
    };
  };
}

/** The abstract socket's name: the directory's real path, so every spelling of it (symlinks, `..`) is one lock. */
async function socketName(dir: string): Promise<string> {
  return `\0eddydb-lock:${createHash('sha256')
    .update(await realpath(dir))
    .digest('hex')
    .slice(0, 32)}`;
}

function socketAttempt(fs: StorageFs, file: string, name: string): Attempt {
  return () =>
    new Promise((resolve, reject) => {
      // Nobody has anything to say to the lock: a connection is closed at once.
      const server = net.createServer((conn) => conn.destroy());
      server.once('error', (err: NodeJS.ErrnoException) =>
        err.code === 'EADDRINUSE' ? resolve(undefined) : reject(err),
      );
      server.listen({ path: name, exclusive: true }, () => {
        // The lock must not keep the process alive by itself.
        server.unref();
        const close = () => new Promise<void>((done) => server.close(() => done()));
        fs.writeFile(file, String(process.pid)).then(
          () =>
            resolve(async () => {
              try {
                await removeIfPresent(fs, file);
              } finally {
                await close();
              }
            }),
          (err) => close().then(() => reject(err)),
        );
      });
    });
}

function pidAttempt(fs: StorageFs, file: string): Attempt {
  return async () => {
    if (heldByPid.has(file)) return undefined;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await fs.writeFile(file, String(process.pid), { exclusive: true });
        heldByPid.add(file);
        return async () => {
          heldByPid.delete(file);
          await removeIfPresent(fs, file);
        };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        const pid = await holderPid(fs, file);
        // Our own pid in a LOCK we do not hold: a previous process with this pid (pid 1 of a restarted container).
        if (pid !== undefined && pid !== process.pid && alive(pid)) return undefined;
        await removeIfPresent(fs, file);
      }
    }
    return undefined;
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid written in `LOCK`, when it holds one. */
async function holderPid(fs: StorageFs, file: string): Promise<number | undefined> {
  try {
    const pid = Number((await fs.readFile(file)).toString('utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

function describeHolder(pid: number | undefined): string {
  return pid === undefined ? 'another process' : `process ${pid}`;
}

function seconds(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}

async function removeIfPresent(fs: StorageFs, file: string): Promise<void> {
  try {
    await fs.unlink(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
