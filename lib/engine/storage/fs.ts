/**
 * The file operations storage needs, behind an interface so tests can inject
 * faults (a failing append or fsync must turn the engine read-only) without
 * mocking the engine itself. Every file the engine creates in the data
 * directory goes through here.
 *
 * Files are private: what this creates (or replaces) is mode 0600 and a new
 * directory 0700, whatever the process umask. Existing files and directories
 * keep their mode; the startup check warns about loose ones instead of
 * changing them silently (see dir-permissions.ts).
 */
import * as fsp from 'node:fs/promises';
import * as fs from 'node:fs';

export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

export interface StorageFile {
  /**
   * Writes all of `data`: at `position` when given, else at the file's
   * position (always the end for a file opened for appending).
   */
  write(data: Buffer, position?: number): Promise<void>;
  sync(): Promise<void>;
  truncate(length: number): Promise<void>;
  close(): Promise<void>;
}

export interface StorageFs {
  /** Opens a file for appending, creating it (private) when missing. */
  openAppend(path: string): Promise<StorageFile>;
  /** Creates (or replaces) a private file for writing from the start. */
  openWrite(path: string): Promise<StorageFile>;
  /** Opens an existing file to write in place (at positions given to write). */
  openUpdate(path: string): Promise<StorageFile>;
  /**
   * Creates a private file holding `data` (not fsynced). With `exclusive`
   * it fails with EEXIST when the file exists; otherwise it replaces it.
   */
  writeFile(path: string, data: Buffer | string, opts?: { exclusive?: boolean }): Promise<void>;
  /** Appends `data`, creating the file (private) when missing. Not fsynced. */
  appendFile(path: string, data: Buffer | string): Promise<void>;
  readFile(path: string): Promise<Buffer>;
  /**
   * Reads up to `into.length` bytes at `position` into `into`; resolves with
   * the count read (0 at the end). For walking large files in small pieces.
   */
  readAt(path: string, into: Buffer, position: number): Promise<number>;
  readdir(dir: string): Promise<string[]>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  /** Creates `dir` and missing parents (private); an existing directory keeps its mode. */
  mkdir(dir: string): Promise<void>;
  syncDir(dir: string): Promise<void>;
  exists(path: string): boolean;
  size(path: string): Promise<number>;
  /** Permission bits (e.g. 0o600) of a file or directory. */
  mode(path: string): Promise<number>;
  /** Sets the permission bits of a file or directory. */
  chmod(path: string, mode: number): Promise<void>;
}

/**
 * Writes up to this size go straight to the kernel on the calling thread:
 * copying a few kilobytes into the page cache costs less than the round
 * trip to the thread pool (a worker woken, the completion signalled back),
 * which a group commit would otherwise pay before each fsync. Larger ones
 * go to the thread pool, so the event loop is not held while they copy.
 */
export const SYNC_WRITE_MAX_BYTES = 256 * 1024;

class NodeFile implements StorageFile {
  constructor(private readonly fh: fsp.FileHandle) {}
  async write(data: Buffer, position?: number): Promise<void> {
    const at = (off: number) => (position === undefined ? null : position + off);
    if (data.length <= SYNC_WRITE_MAX_BYTES) {
      for (let off = 0; off < data.length;) off += fs.writeSync(this.fh.fd, data, off, data.length - off, at(off));
      return;
    }
    let off = 0;
    while (off < data.length) {
      const { bytesWritten } = await this.fh.write(data, off, data.length - off, at(off));
      off += bytesWritten;
    }
  }
  sync(): Promise<void> {
    return this.fh.datasync();
  }
  truncate(length: number): Promise<void> {
    return this.fh.truncate(length);
  }
  close(): Promise<void> {
    return this.fh.close();
  }
}

/**
 * Opens with `flags`, making the file private when this call created or
 * replaced it. The open mode alone is not enough: the umask filters it, and
 * it is ignored for a file that already exists.
 */
async function openPrivate(file: string, flags: 'a' | 'w' | 'wx'): Promise<fsp.FileHandle> {
  if (flags === 'a') {
    try {
      return await chmodOrClose(await fsp.open(file, 'ax', PRIVATE_FILE_MODE));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      return fsp.open(file, 'a');
    }
  }
  return chmodOrClose(await fsp.open(file, flags, PRIVATE_FILE_MODE));
}

async function chmodOrClose(fh: fsp.FileHandle): Promise<fsp.FileHandle> {
  try {
    await fh.chmod(PRIVATE_FILE_MODE);
    return fh;
  } catch (err) {
    await fh.close();
    throw err;
  }
}

async function writeWhole(file: string, flags: 'a' | 'w' | 'wx', data: Buffer | string): Promise<void> {
  const fh = await openPrivate(file, flags);
  try {
    await new NodeFile(fh).write(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
  } finally {
    await fh.close();
  }
}

export const nodeFs: StorageFs = {
  openAppend: async (p) => new NodeFile(await openPrivate(p, 'a')),
  openWrite: async (p) => new NodeFile(await openPrivate(p, 'w')),
  openUpdate: async (p) => new NodeFile(await fsp.open(p, 'r+')),
  writeFile: (p, data, opts) => writeWhole(p, opts?.exclusive ? 'wx' : 'w', data),
  appendFile: (p, data) => writeWhole(p, 'a', data),
  readFile: (p) => fsp.readFile(p),
  readAt: async (file, into, position) => {
    const fh = await fsp.open(file, 'r');
    try {
      return (await fh.read(into, 0, into.length, position)).bytesRead;
    } finally {
      await fh.close();
    }
  },
  readdir: (d) => fsp.readdir(d),
  rename: (a, b) => fsp.rename(a, b),
  unlink: (p) => fsp.unlink(p),
  mkdir: async (dir) => {
    const existed = fs.existsSync(dir);
    await fsp.mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    if (!existed) await fsp.chmod(dir, PRIVATE_DIR_MODE);
  },
  syncDir: async (dir) => {
    const fh = await fsp.open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  },
  exists: (p) => fs.existsSync(p),
  size: async (p) => (await fsp.stat(p)).size,
  mode: async (p) => (await fsp.stat(p)).mode & 0o777,
  chmod: (p, mode) => fsp.chmod(p, mode),
};
