/**
 * A StorageFs held in memory: files are byte buffers, directories a set of
 * paths, and nothing reaches the disk. A memory-only database keeps the small
 * files the engine writes beside its data here (secrets, the replication node
 * id and cursors, the transaction audit file), so those services need no
 * special case.
 *
 * It follows node's semantics where the engine could tell: a handle writes to
 * the file it opened even after a rename or unlink (files are inodes, paths
 * name them), append handles always write at the end, a missing file or
 * parent is ENOENT, a directory where a file is expected EISDIR, and errors
 * carry `code`, `errno`, `syscall` and `path` like node's. New files are mode
 * 0600 and new directories 0700, as on disk. Paths are resolved with
 * path.resolve, so relative paths name the same entries as absolute ones.
 * sync and syncDir check their target and otherwise do nothing; a directory's
 * size is 0.
 */
import path from 'node:path';
import { constants } from 'node:os';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, type StorageFile, type StorageFs } from './fs.js';

type ErrorCode = 'ENOENT' | 'EEXIST' | 'EISDIR' | 'ENOTDIR' | 'EBADF' | 'ENOTEMPTY' | 'EINVAL';

const DESCRIPTIONS: Readonly<Record<ErrorCode, string>> = {
  ENOENT: 'no such file or directory',
  EEXIST: 'file already exists',
  EISDIR: 'illegal operation on a directory',
  ENOTDIR: 'not a directory',
  EBADF: 'bad file descriptor',
  ENOTEMPTY: 'directory not empty',
  EINVAL: 'invalid argument',
};

/** An error shaped like node's fs errors (`code`, negative `errno`, `syscall`, `path`). */
function fsError(code: ErrorCode, syscall: string, file?: string, dest?: string): NodeJS.ErrnoException {
  const where = file === undefined ? '' : dest === undefined ? ` '${file}'` : ` '${file}' -> '${dest}'`;
  const error: NodeJS.ErrnoException = new Error(`${code}: ${DESCRIPTIONS[code]}, ${syscall}${where}`);
  error.code = code;
  error.errno = -constants.errno[code];
  error.syscall = syscall;
  if (file !== undefined) error.path = file;
  if (dest !== undefined) Object.assign(error, { dest });
  return error;
}

/** A file's contents and mode: what a path names, and what a handle keeps after a rename or unlink. */
class Inode {
  /** Capacity grows by doubling, so appending n bytes in small pieces costs O(n). */
  private bytes = Buffer.alloc(0);
  length = 0;
  constructor(public mode: number) {}

  read(into: Buffer, position: number): number {
    if (position >= this.length) return 0;
    return this.bytes.copy(into, 0, position, Math.min(this.length, position + into.length));
  }
  contents(): Buffer {
    return Buffer.from(this.bytes.subarray(0, this.length));
  }
  writeAt(data: Buffer, position: number): void {
    const end = position + data.length;
    this.reserve(end);
    // A write past the end leaves zeros between, as a sparse file reads.
    if (position > this.length) this.bytes.fill(0, this.length, position);
    data.copy(this.bytes, position);
    this.length = Math.max(this.length, end);
  }
  truncate(length: number): void {
    this.reserve(length);
    if (length > this.length) this.bytes.fill(0, this.length, length);
    this.length = length;
  }
  private reserve(size: number): void {
    if (size <= this.bytes.length) return;
    const grown = Buffer.alloc(Math.max(size, this.bytes.length * 2, 64));
    this.bytes.copy(grown, 0, 0, this.length);
    this.bytes = grown;
  }
}

/** An open file: writes at its own position, or always at the end when opened for appending. */
class MemoryFile implements StorageFile {
  private position = 0;
  private closed = false;
  constructor(
    private readonly inode: Inode,
    private readonly appending: boolean,
  ) {}

  async write(data: Buffer, position?: number): Promise<void> {
    this.check('write');
    const at = this.appending ? this.inode.length : (position ?? this.position);
    this.inode.writeAt(data, at);
    this.position = at + data.length;
  }
  async sync(): Promise<void> {
    this.check('fdatasync');
  }
  async truncate(length: number): Promise<void> {
    this.check('ftruncate');
    this.inode.truncate(length);
  }
  async close(): Promise<void> {
    this.check('close');
    this.closed = true;
  }
  private check(syscall: string): void {
    if (this.closed) throw fsError('EBADF', syscall);
  }
}

export class MemoryFs implements StorageFs {
  private readonly files = new Map<string, Inode>();
  /** Each directory's path and permission bits (files keep theirs in their inode). */
  private readonly dirs = new Map<string, number>([[path.resolve('/'), 0o755]]);

  async openAppend(file: string): Promise<StorageFile> {
    return new MemoryFile(this.fileFor(file, 'open', false), true);
  }
  async openWrite(file: string): Promise<StorageFile> {
    return new MemoryFile(this.fileFor(file, 'open', true), false);
  }
  async openUpdate(file: string): Promise<StorageFile> {
    return new MemoryFile(this.existing(file, 'open'), false);
  }
  async writeFile(file: string, data: Buffer | string, opts?: { exclusive?: boolean }): Promise<void> {
    if (opts?.exclusive && this.exists(file)) throw fsError('EEXIST', 'open', file);
    this.fileFor(file, 'open', true).writeAt(toBuffer(data), 0);
  }
  async appendFile(file: string, data: Buffer | string): Promise<void> {
    const inode = this.fileFor(file, 'open', false);
    inode.writeAt(toBuffer(data), inode.length);
  }
  async readFile(file: string): Promise<Buffer> {
    return this.existing(file, 'open').contents();
  }
  async readAt(file: string, into: Buffer, position: number): Promise<number> {
    return this.existing(file, 'open').read(into, position);
  }
  async readdir(dir: string): Promise<string[]> {
    const full = this.existingDir(dir, 'scandir');
    const names: string[] = [];
    for (const entry of [...this.files.keys(), ...this.dirs.keys()]) {
      if (entry !== full && path.dirname(entry) === full) names.push(path.basename(entry));
    }
    return names.sort();
  }
  async rename(from: string, to: string): Promise<void> {
    const source = path.resolve(from);
    const target = path.resolve(to);
    const inode = this.files.get(source);
    if (!inode) {
      if (this.dirs.has(source)) return this.renameDir(from, to, source, target);
      throw fsError('ENOENT', 'rename', from, to);
    }
    if (!this.dirs.has(path.dirname(target))) throw fsError('ENOENT', 'rename', from, to);
    if (this.dirs.has(target)) throw fsError('EISDIR', 'rename', from, to);
    this.files.delete(source);
    this.files.set(target, inode);
  }
  async unlink(file: string): Promise<void> {
    const full = path.resolve(file);
    if (this.dirs.has(full)) throw fsError('EISDIR', 'unlink', file);
    if (!this.files.delete(full)) throw fsError('ENOENT', 'unlink', file);
  }
  async mkdir(dir: string): Promise<void> {
    const full = path.resolve(dir);
    const missing: string[] = [];
    for (let at = full; !this.dirs.has(at); at = path.dirname(at)) {
      if (this.files.has(at)) throw fsError(at === full ? 'EEXIST' : 'ENOTDIR', 'mkdir', dir);
      missing.push(at);
    }
    for (const made of missing) this.dirs.set(made, PRIVATE_DIR_MODE);
  }
  async syncDir(dir: string): Promise<void> {
    const full = path.resolve(dir);
    if (!this.dirs.has(full) && !this.files.has(full)) throw fsError('ENOENT', 'open', dir);
  }
  exists(file: string): boolean {
    const full = path.resolve(file);
    return this.files.has(full) || this.dirs.has(full);
  }
  async size(file: string): Promise<number> {
    const full = path.resolve(file);
    if (this.dirs.has(full)) return 0;
    return this.existing(file, 'stat').length;
  }
  async mode(file: string): Promise<number> {
    const full = path.resolve(file);
    const dirMode = this.dirs.get(full);
    if (dirMode !== undefined) return dirMode;
    return this.existing(file, 'stat').mode;
  }
  async chmod(file: string, mode: number): Promise<void> {
    const full = path.resolve(file);
    if (this.dirs.has(full)) this.dirs.set(full, mode & 0o777);
    else this.existing(file, 'chmod').mode = mode & 0o777;
  }

  /** The file at `file`, made (private) when missing, emptied (and private) when `truncate`; ENOENT without its dir. */
  private fileFor(file: string, syscall: string, truncate: boolean): Inode {
    const full = path.resolve(file);
    if (this.dirs.has(full)) throw fsError('EISDIR', syscall, file);
    let inode = this.files.get(full);
    if (!inode) {
      const parent = path.dirname(full);
      if (!this.dirs.has(parent)) throw fsError(this.files.has(parent) ? 'ENOTDIR' : 'ENOENT', syscall, file);
      inode = new Inode(PRIVATE_FILE_MODE);
      this.files.set(full, inode);
    } else if (truncate) {
      // As nodeFs: a replaced file is made private again.
      inode.truncate(0);
      inode.mode = PRIVATE_FILE_MODE;
    }
    return inode;
  }

  private existing(file: string, syscall: string): Inode {
    const full = path.resolve(file);
    const inode = this.files.get(full);
    if (inode) return inode;
    throw fsError(this.dirs.has(full) ? 'EISDIR' : 'ENOENT', syscall, file);
  }

  private existingDir(dir: string, syscall: string): string {
    const full = path.resolve(dir);
    if (this.dirs.has(full)) return full;
    throw fsError(this.files.has(full) ? 'ENOTDIR' : 'ENOENT', syscall, dir);
  }

  /** Moves a directory and everything under it; the target must be missing or an empty directory. */
  private renameDir(from: string, to: string, source: string, target: string): void {
    if (!this.dirs.has(path.dirname(target))) throw fsError('ENOENT', 'rename', from, to);
    if (this.files.has(target)) throw fsError('ENOTDIR', 'rename', from, to);
    if (target === source) return;
    if (target.startsWith(source + path.sep)) throw fsError('EINVAL', 'rename', from, to);
    if (this.dirs.has(target) && this.hasChildren(target)) throw fsError('ENOTEMPTY', 'rename', from, to);
    const moved = (p: string) => target + p.slice(source.length);
    const under = (p: string) => p === source || p.startsWith(source + path.sep);
    for (const [dir, mode] of [...this.dirs].filter(([p]) => under(p))) {
      this.dirs.delete(dir);
      this.dirs.set(moved(dir), mode);
    }
    for (const [file, inode] of [...this.files].filter(([p]) => under(p))) {
      this.files.delete(file);
      this.files.set(moved(file), inode);
    }
  }

  private hasChildren(dir: string): boolean {
    for (const entry of [...this.files.keys(), ...this.dirs.keys()])
      if (path.dirname(entry) === dir && entry !== dir) return true;
    return false;
  }
}

function toBuffer(data: Buffer | string): Buffer {
  return typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
}
