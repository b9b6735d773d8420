/**
 * MemoryFs against node: every scenario runs on the real file system (nodeFs
 * in a temp directory) and on a MemoryFs, and both must give the same
 * answers and fail with the same error codes. Then what only MemoryFs
 * promises: nothing reaches the disk, and two of them share nothing.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { nodeFs, type StorageFs } from '../../../lib/engine/index.js';
import { MemoryFs } from '../../../lib/engine/storage/memory-fs.js';
import { removeDir, tempDir } from '../../helpers/temp-dir.js';

/** What a step gave: its value, or the code and errno it failed with. */
type Outcome = { value: unknown } | { code: string | undefined; errno: number | undefined };

async function outcome(step: () => unknown): Promise<Outcome> {
  try {
    const value = await step();
    return { value: Buffer.isBuffer(value) ? value.toString('latin1') : value };
  } catch (err) {
    const { code, errno } = err as NodeJS.ErrnoException;
    return { code, errno };
  }
}

/** Runs each step in order, one after another, collecting what each gave. */
async function outcomes(steps: ReadonlyArray<() => unknown>): Promise<Outcome[]> {
  const out: Outcome[] = [];
  for (const step of steps) out.push(await outcome(step));
  return out;
}

type Scenario = (fs: StorageFs, dir: string) => Promise<Outcome[]>;

const SCENARIOS: Record<string, Scenario> = {
  'writes, replaces and reads whole files, private, and refuses an exclusive write over one': (fs, dir) => {
    const f = path.join(dir, 'a');
    return outcomes([
      () => fs.exists(f),
      () => fs.writeFile(f, 'hello'),
      () => fs.readFile(f),
      () => fs.size(f),
      () => fs.mode(f),
      () => fs.exists(f),
      () => fs.writeFile(f, 'x', { exclusive: true }),
      () => fs.writeFile(f, Buffer.from('bye')),
      () => fs.readFile(f),
      () => fs.writeFile(path.join(dir, 'b'), 'new', { exclusive: true }),
      () => fs.readFile(path.join(dir, 'b')),
    ]);
  },

  'appends to a file, creating it private': (fs, dir) => {
    const f = path.join(dir, 'log');
    return outcomes([
      () => fs.appendFile(f, 'one\n'),
      () => fs.appendFile(f, Buffer.from('two\n')),
      () => fs.readFile(f),
      () => fs.mode(f),
    ]);
  },

  'writes through a handle at its position; a truncate leaves the position, so the next write leaves zeros': async (
    fs,
    dir,
  ) => {
    const f = path.join(dir, 'w');
    await fs.writeFile(f, 'old contents');
    const file = await fs.openWrite(f);
    return outcomes([
      () => fs.size(f),
      () => file.write(Buffer.from('abc')),
      () => file.write(Buffer.from('def')),
      () => file.sync(),
      () => fs.readFile(f),
      () => file.truncate(2),
      () => file.write(Buffer.from('Z')),
      () => fs.readFile(f),
      () => file.truncate(9),
      () => fs.readFile(f),
      () => file.close(),
      () => fs.mode(f),
    ]);
  },

  'writes in place at the positions given, through a handle opened for update; a missing file is ENOENT': async (
    fs,
    dir,
  ) => {
    const f = path.join(dir, 'u');
    await fs.writeFile(f, 'abcdefgh');
    const file = await fs.openUpdate(f);
    return outcomes([
      () => file.write(Buffer.from('XY'), 3),
      () => fs.readFile(f),
      () => file.write(Buffer.from('Z'), 10),
      () => fs.readFile(f),
      () => file.write(Buffer.from('0'), 0),
      () => fs.readFile(f),
      () => file.close(),
      () => fs.mode(f),
      () => fs.openUpdate(path.join(dir, 'missing')),
    ]);
  },

  'appends through a handle always at the end, also after a truncate': async (fs, dir) => {
    const f = path.join(dir, 'seg');
    await fs.writeFile(f, 'head');
    const file = await fs.openAppend(f);
    return outcomes([
      () => file.write(Buffer.from('-one')),
      () => file.truncate(2),
      () => file.write(Buffer.from('-two')),
      () => fs.readFile(f),
      () => file.close(),
      () => fs.openAppend(path.join(dir, 'fresh')).then((h) => h.close()),
      () => fs.size(path.join(dir, 'fresh')),
      () => fs.mode(path.join(dir, 'fresh')),
    ]);
  },

  'reads pieces at a position, short at the end and nothing past it': async (fs, dir) => {
    const f = path.join(dir, 'r');
    await fs.writeFile(f, '0123456789');
    const read = async (size: number, at: number) => {
      const into = Buffer.alloc(size, '.');
      const n = await fs.readAt(f, into, at);
      return [n, into.toString('latin1')];
    };
    return outcomes([
      () => read(4, 0),
      () => read(4, 3),
      () => read(4, 8),
      () => read(4, 10),
      () => read(4, 50),
      () => fs.readAt(path.join(dir, 'missing'), Buffer.alloc(1), 0),
    ]);
  },

  'renames over a file, keeps an open handle on the renamed file, and refuses a missing source or target dir': async (
    fs,
    dir,
  ) => {
    const a = path.join(dir, 'a');
    const b = path.join(dir, 'b');
    await fs.writeFile(a, 'from a');
    await fs.writeFile(b, 'from b');
    const handle = await fs.openAppend(a);
    return outcomes([
      () => fs.rename(a, b),
      () => fs.exists(a),
      () => fs.readFile(b),
      () => handle.write(Buffer.from(' and later')),
      () => fs.readFile(b),
      () => handle.close(),
      () => fs.rename(a, b),
      () => fs.rename(b, path.join(dir, 'nowhere', 'c')),
      () => fs.readdir(dir),
    ]);
  },

  'unlinks a file (an open handle still writes, to no name), and refuses a missing one or a directory': async (
    fs,
    dir,
  ) => {
    const f = path.join(dir, 'gone');
    await fs.writeFile(f, 'x');
    await fs.mkdir(path.join(dir, 'sub'));
    const handle = await fs.openAppend(f);
    return outcomes([
      () => fs.unlink(f),
      () => fs.exists(f),
      () => handle.write(Buffer.from('y')),
      () => handle.close(),
      () => fs.unlink(f),
      () => fs.unlink(path.join(dir, 'sub')),
      () => fs.readdir(dir),
    ]);
  },

  'makes directories with their parents, private; an existing one keeps its mode': (fs, dir) => {
    const deep = path.join(dir, 'x', 'y', 'z');
    return outcomes([
      () => fs.mkdir(deep),
      () => fs.exists(deep),
      () => fs.mode(deep),
      () => fs.mode(path.join(dir, 'x')),
      () => fs.chmod(deep, 0o750),
      () => fs.mkdir(deep),
      () => fs.mode(deep),
      () => fs.readdir(path.join(dir, 'x')),
      () => fs.syncDir(deep),
    ]);
  },

  'refuses a directory over a file, or under one': async (fs, dir) => {
    const f = path.join(dir, 'plain');
    await fs.writeFile(f, 'x');
    return outcomes([() => fs.mkdir(f), () => fs.mkdir(path.join(f, 'below'))]);
  },

  'lists the names in a directory, files and directories, and refuses a missing one or a file': async (fs, dir) => {
    await fs.writeFile(path.join(dir, 'b.txt'), 'b');
    await fs.writeFile(path.join(dir, 'a.txt'), 'a');
    await fs.mkdir(path.join(dir, 'c', 'deeper'));
    await fs.writeFile(path.join(dir, 'c', 'inner'), 'i');
    const sorted = async (d: string) => (await fs.readdir(d)).sort();
    return outcomes([
      () => sorted(dir),
      () => sorted(path.join(dir, 'c')),
      () => sorted(path.join(dir, 'missing')),
      () => sorted(path.join(dir, 'a.txt')),
    ]);
  },

  'fails on what is missing or is a directory: ENOENT and EISDIR': async (fs, dir) => {
    await fs.mkdir(path.join(dir, 'd'));
    const missing = path.join(dir, 'missing');
    return outcomes([
      () => fs.readFile(missing),
      () => fs.size(missing),
      () => fs.mode(missing),
      () => fs.chmod(missing, 0o600),
      () => fs.syncDir(missing),
      () => fs.openAppend(path.join(missing, 'file')),
      () => fs.openWrite(path.join(missing, 'file')),
      () => fs.writeFile(path.join(missing, 'file'), 'x'),
      () => fs.appendFile(path.join(missing, 'file'), 'x'),
      () => fs.readFile(path.join(dir, 'd')),
      () => fs.writeFile(path.join(dir, 'd'), 'x'),
      () => fs.writeFile(path.join(dir, 'd'), 'x', { exclusive: true }),
      () => fs.openWrite(path.join(dir, 'd')),
    ]);
  },

  'keeps the mode a chmod sets, on files and directories': async (fs, dir) => {
    const f = path.join(dir, 'f');
    await fs.writeFile(f, 'x');
    return outcomes([
      () => fs.chmod(f, 0o644),
      () => fs.mode(f),
      () => fs.writeFile(f, 'replaced'),
      () => fs.mode(f),
      () => fs.chmod(dir, 0o711),
      () => fs.mode(dir),
      () => fs.chmod(dir, 0o700),
    ]);
  },
};

describe('engine/storage/memory-fs', () => {
  describe('answers as node does', () => {
    let dir: string;
    beforeEach(() => {
      dir = tempDir('eddydb-memfs-');
    });
    afterEach(() => removeDir(dir));

    for (const [title, scenario] of Object.entries(SCENARIOS)) {
      it(title, async () => {
        const real = await scenario(nodeFs, dir);
        const memory = new MemoryFs();
        await memory.mkdir('/spec/root');
        expect(await scenario(memory, '/spec/root')).to.deep.equal(real);
      });
    }
  });

  it("fails like node's fs errors: code, errno, syscall, path and message", async () => {
    const fs = new MemoryFs();
    const err = await fs.readFile('/nothing/here').then(
      () => undefined,
      (e: NodeJS.ErrnoException) => e,
    );
    expect(err).to.be.instanceOf(Error);
    expect(err).to.include({ code: 'ENOENT', errno: -2, syscall: 'open', path: '/nothing/here' });
    expect(err!.message).to.equal("ENOENT: no such file or directory, open '/nothing/here'");
  });

  it('writes nothing to the disk', async () => {
    const fs = new MemoryFs();
    const dir = path.join('/tmp', `eddydb-memfs-never-${process.pid}`);
    await fs.mkdir(dir);
    await fs.writeFile(path.join(dir, 'secrets'), 'x');
    await fs.appendFile(path.join(dir, 'audit.log'), 'y');
    expect(fs.exists(path.join(dir, 'secrets'))).to.equal(true);
    expect(existsSync(dir)).to.equal(false);
  });

  it('shares nothing between two of them', async () => {
    const a = new MemoryFs();
    const b = new MemoryFs();
    await a.mkdir('/d');
    await a.writeFile('/d/f', 'a');
    expect(b.exists('/d')).to.equal(false);
    expect(b.exists('/d/f')).to.equal(false);
  });

  it('grows a file appended to in small pieces, keeping every byte', async () => {
    const fs = new MemoryFs();
    const file = await fs.openAppend('/big');
    const expected: string[] = [];
    for (let i = 0; i < 5000; i++) {
      expected.push(`line ${i}\n`);
      await file.write(Buffer.from(`line ${i}\n`));
    }
    expect((await fs.readFile('/big')).toString()).to.equal(expected.join(''));
  });
});
