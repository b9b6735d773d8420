/**
 * Snapshot verification reads the file back in 4 MiB pieces and compares
 * every frame's checksum with the one written: frames larger than a piece,
 * and damage inside them, are handled too.
 */
import { expect } from 'chai';
import { statSync } from 'node:fs';
import { Database, nodeFs } from '../../../../lib/engine/index.js';
import { Unavailable } from '../../../../lib/errors.js';
import { FaultyFs } from '../../../helpers/faulty-fs.js';
import { removeDir, tempDir } from '../../../helpers/temp-dir.js';

/** Flips the byte at `fraction` of every snapshot read back, like a bad sector. */
class RotAt extends FaultyFs {
  fraction: number | undefined;
  override readAt = async (p: string, into: Buffer, position: number): Promise<number> => {
    const n = await nodeFs.readAt(p, into, position);
    if (this.fraction !== undefined && p.endsWith('.snap')) {
      const victim = Math.floor(statSync(p).size * this.fraction);
      if (victim >= position && victim < position + n) into[victim - position]! ^= 0x01;
    }
    return n;
  };
}

describe('engine/storage snapshot verification', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => {
    dir = tempDir('eddydb-verify-');
  });
  afterEach(() => removeDir(dir));

  /** `n` records of 6 KB with three of 5 MB in the middle: each of those is a frame larger than a read. */
  async function bigRecords(db: Database, n: number): Promise<void> {
    const small = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => ({ i: from + i, text: `${from + i}`.padEnd(6000, 'x') }));
    await db.bulk.insertMany('big', small(0, n / 2));
    await db.bulk.insertMany(
      'big',
      Array.from({ length: 3 }, (_, i) => ({ huge: i, text: `${i}`.padEnd(5 * 1024 * 1024, 'y') })),
    );
    await db.bulk.insertMany('big', small(n / 2, n / 2));
  }

  it('passes a snapshot whose record frames are larger than one 4 MiB read', async () => {
    const db = await Database.open({ dataDir: dir, settings: { durability: 'none' } });
    await bigRecords(db, 3000);
    const s = await db.snapshot();
    expect(s.bytes).to.be.above(30 * 1024 * 1024);
    await db.close();
  });

  for (const [where, fraction] of [
    ['the first piece', 0.01],
    ['a frame larger than a piece', 0.5],
    ['the last frame', 0.999],
  ] as const) {
    it(`catches one flipped bit in ${where}`, async () => {
      const fs = new RotAt();
      const db = await Database.open({ dataDir: dir, fs, settings: { durability: 'none' } });
      await bigRecords(db, 3000);
      fs.fraction = fraction;
      let err: unknown;
      try {
        await db.snapshot();
      } catch (e) {
        err = e;
      }
      expect(err).to.be.instanceOf(Unavailable);
      expect((err as Error).message).to.match(/failed verification/);
      fs.fraction = undefined;
      await db.close();
    });
  }
});
