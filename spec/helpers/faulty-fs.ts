/**
 * A fault-injecting StorageFs: wraps the real one and fails the way a full
 * or dying disk would.
 *
 * - `failWrites` / `failSyncs`: every write fails with ENOSPC, every fsync
 *   with EIO, until switched off.
 * - `spaceLeft`: a filling disk. Writes consume it; a write that does not fit
 *   writes the bytes that do (a partial write) and then fails with ENOSPC.
 *   `fill()` and `free()` set it to 0 and back to unlimited. Freed space is
 *   not credited on truncate or unlink: tests free the disk explicitly.
 * - `holdSyncs()`: every fsync waits until the returned release is called
 *   (and fails then if `failSyncs` is on by that time), to hold a group
 *   commit in flight.
 * - `loseUnsyncedOnFailedSync`: a failed fsync also drops what was written to
 *   that file since its last successful fsync, as Linux may discard dirty
 *   pages after a write-back error.
 */
import { nodeFs, type StorageFs } from '../../lib/engine/index.js';
import type { StorageFile } from '../../lib/engine/storage/fs.js';

export function fsError(code: 'ENOSPC' | 'EIO', syscall: string): NodeJS.ErrnoException {
  const text = code === 'ENOSPC' ? 'no space left on device' : 'i/o error';
  return Object.assign(new Error(`${code}: ${text}, ${syscall}`), {
    code,
    syscall,
    errno: code === 'ENOSPC' ? -28 : -5,
  });
}

export class FaultyFs implements StorageFs {
  failWrites = false;
  failSyncs = false;
  failTruncates = false;
  /** Reads of files whose name ends with this fail with EIO (a dying disk under a read path). */
  failReadsOf: string | undefined;
  spaceLeft: number | undefined;
  loseUnsyncedOnFailedSync = false;
  writes = 0;
  syncs = 0;
  private syncGate: Promise<void> | undefined;
  /** Size of each file at its last successful fsync (or when opened). */
  private readonly syncedSize = new Map<string, number>();

  /** Holds every fsync from now on until the returned function is called. */
  holdSyncs(): () => void {
    let release!: () => void;
    this.syncGate = new Promise((r) => {
      release = r;
    });
    return () => {
      this.syncGate = undefined;
      release();
    };
  }

  fill(): void {
    this.spaceLeft = 0;
  }
  free(): void {
    this.spaceLeft = undefined;
    this.failWrites = false;
    this.failSyncs = false;
    this.failTruncates = false;
  }

  /** How many of `wanted` bytes fit; throws ENOSPC when none do (or writes are failing). */
  private claim(wanted: number, syscall: string): number {
    if (this.failWrites) throw fsError('ENOSPC', syscall);
    if (this.spaceLeft === undefined) return wanted;
    const fits = Math.min(wanted, this.spaceLeft);
    this.spaceLeft -= fits;
    if (fits === 0 && wanted > 0) throw fsError('ENOSPC', syscall);
    return fits;
  }

  private async writeThrough(f: StorageFile, d: Buffer, position?: number): Promise<void> {
    this.writes++;
    const fits = this.claim(d.length, 'write');
    await f.write(fits === d.length ? d : d.subarray(0, fits), position);
    if (fits < d.length) throw fsError('ENOSPC', 'write');
  }

  private wrap(p: string, f: StorageFile): StorageFile {
    return {
      write: (d, position) => this.writeThrough(f, d, position),
      sync: async () => {
        this.syncs++;
        if (this.syncGate) await this.syncGate;
        if (this.failSyncs) {
          if (this.loseUnsyncedOnFailedSync) await f.truncate(this.syncedSize.get(p) ?? 0);
          throw fsError('EIO', 'fsync');
        }
        await f.sync();
        this.syncedSize.set(p, await nodeFs.size(p));
      },
      truncate: async (n) => {
        if (this.failTruncates) throw fsError('EIO', 'ftruncate');
        await f.truncate(n);
      },
      close: () => f.close(),
    };
  }

  openAppend = async (p: string) => {
    const f = await nodeFs.openAppend(p);
    this.syncedSize.set(p, await nodeFs.size(p));
    return this.wrap(p, f);
  };
  openWrite = async (p: string) => {
    const f = await nodeFs.openWrite(p);
    this.syncedSize.set(p, 0);
    return this.wrap(p, f);
  };
  openUpdate = async (p: string) => {
    const f = await nodeFs.openUpdate(p);
    this.syncedSize.set(p, await nodeFs.size(p));
    return this.wrap(p, f);
  };
  writeFile = async (p: string, data: Buffer | string, opts?: { exclusive?: boolean }) => {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    const fits = this.claim(bytes.length, 'write');
    await nodeFs.writeFile(p, bytes.subarray(0, fits), opts);
    if (fits < bytes.length) throw fsError('ENOSPC', 'write');
  };
  appendFile = async (p: string, data: Buffer | string) => {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    const fits = this.claim(bytes.length, 'write');
    await nodeFs.appendFile(p, bytes.subarray(0, fits));
    if (fits < bytes.length) throw fsError('ENOSPC', 'write');
  };
  readFile = async (p: string) => {
    if (this.failReadsOf !== undefined && p.endsWith(this.failReadsOf)) throw fsError('EIO', 'read');
    return nodeFs.readFile(p);
  };
  readAt = async (p: string, into: Buffer, position: number) => {
    if (this.failReadsOf !== undefined && p.endsWith(this.failReadsOf)) throw fsError('EIO', 'read');
    return nodeFs.readAt(p, into, position);
  };
  readdir = (d: string) => nodeFs.readdir(d);
  rename = (a: string, b: string) => nodeFs.rename(a, b);
  unlink = (p: string) => nodeFs.unlink(p);
  mkdir = (d: string) => nodeFs.mkdir(d);
  syncDir = (d: string) => nodeFs.syncDir(d);
  exists = (p: string) => nodeFs.exists(p);
  size = (p: string) => nodeFs.size(p);
  mode = (p: string) => nodeFs.mode(p);
  chmod = (p: string, mode: number) => nodeFs.chmod(p, mode);
}
