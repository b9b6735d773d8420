/**
 * The file operations storage needs, behind an interface so tests can inject
 * faults (a failing append or fsync must turn the engine read-only) without
 * mocking the engine itself.
 */
import * as fsp from 'node:fs/promises';
import * as fs from 'node:fs';

export interface StorageFile {
  write(data: Buffer): Promise<void>;
  sync(): Promise<void>;
  truncate(length: number): Promise<void>;
  close(): Promise<void>;
}

export interface StorageFs {
  openAppend(path: string): Promise<StorageFile>;
  /** Creates (or replaces) a file for writing from the start. */
  openWrite(path: string): Promise<StorageFile>;
  readFile(path: string): Promise<Buffer>;
  readdir(dir: string): Promise<string[]>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  mkdir(dir: string): Promise<void>;
  syncDir(dir: string): Promise<void>;
  exists(path: string): boolean;
  size(path: string): Promise<number>;
}

class NodeFile implements StorageFile {
  constructor(private readonly fh: fsp.FileHandle) {}
  async write(data: Buffer): Promise<void> {
    let off = 0;
    while (off < data.length) {
      const { bytesWritten } = await this.fh.write(data, off, data.length - off);
      off += bytesWritten;
    }
  }
  sync(): Promise<void> { return this.fh.datasync(); }
  truncate(length: number): Promise<void> { return this.fh.truncate(length); }
  close(): Promise<void> { return this.fh.close(); }
}

export const nodeFs: StorageFs = {
  openAppend: async (p) => new NodeFile(await fsp.open(p, 'a')),
  openWrite: async (p) => new NodeFile(await fsp.open(p, 'w')),
  readFile: (p) => fsp.readFile(p),
  readdir: (d) => fsp.readdir(d),
  rename: (a, b) => fsp.rename(a, b),
  unlink: (p) => fsp.unlink(p),
  mkdir: async (d) => { await fsp.mkdir(d, { recursive: true }); },
  syncDir: async (d) => {
    const fh = await fsp.open(d, 'r');
    try { await fh.sync(); } finally { await fh.close(); }
  },
  exists: (p) => fs.existsSync(p),
  size: async (p) => (await fsp.stat(p)).size,
};
