/**
 * A damaged snapshot never yields an empty database.
 *
 * Real data directories are damaged byte by byte (a flip in the header, in a
 * middle frame, in the end frame; 5 bytes cut off) with one snapshot and with
 * two generations. Every case ends with ALL acknowledged records or with a
 * refusal naming the file and the byte: never an empty or partial database.
 * Also: what retention keeps, and a snapshot failing verification.
 */
import { expect } from 'chai';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { Database, ManualClock, nodeFs } from '../../lib/engine/index.js';
import { Corruption, Unavailable } from '../../lib/errors.js';
import { FaultyFs } from '../helpers/faulty-fs.js';
import { tempDir, removeDir } from '../helpers/temp-dir.js';
import { copyDir, cutTail, damagedDirsOf, flipByte, frames, segmentsOf, snapshotsOf } from '../helpers/data-files.js';

interface Fixture {
  dir: string;
  ids: string[];
}

/** Reads back the next snapshot with one byte flipped, as a disk returning bad data would. */
/** Flips one byte near the end of the next snapshot it reads back, the way a bad sector or a lost write would. */
class SnapshotRotFs extends FaultyFs {
  rotNextSnapshotRead = false;
  override readAt = async (p: string, into: Buffer, position: number): Promise<number> => {
    const n = await nodeFs.readAt(p, into, position);
    if (this.rotNextSnapshotRead && p.endsWith('.snap')) {
      const victim = statSync(p).size - 3;
      if (victim >= position && victim < position + n) {
        this.rotNextSnapshotRead = false;
        into[victim - position]! ^= 0xff;
      }
    }
    return n;
  };
}

async function insert(db: Database, ids: string[], n: number): Promise<void> {
  for (let i = 0; i < n; i++)
    ids.push(await db.records.insert('items', { n: ids.length, label: `item ${ids.length}` }));
}

/** 12 records, a snapshot, 4 more; `compacted` drops the log before the snapshot (one generation). */
async function oneSnapshot(compacted: boolean): Promise<Fixture> {
  const dir = tempDir('eddydb-i8-');
  const ids: string[] = [];
  const db = await Database.open({ dataDir: dir, keepGenerations: compacted ? 1 : 2 });
  await insert(db, ids, 12);
  await db.snapshot();
  await insert(db, ids, 4);
  await db.close();
  return { dir, ids };
}

/** 16 records and the snapshot a clean shutdown writes: the log after it is empty (the reported case). */
async function shutdownSnapshot(): Promise<Fixture> {
  const dir = tempDir('eddydb-i8-');
  const ids: string[] = [];
  const db = await Database.open({ dataDir: dir });
  await insert(db, ids, 16);
  await db.close({ snapshot: true });
  return { dir, ids };
}

/** 12 records, snapshot, 12 more, snapshot, 4 more: two generations. */
async function twoGenerations(): Promise<Fixture> {
  const dir = tempDir('eddydb-i8-');
  const ids: string[] = [];
  const db = await Database.open({ dataDir: dir });
  await insert(db, ids, 12);
  await db.snapshot();
  await insert(db, ids, 12);
  await db.snapshot();
  await insert(db, ids, 4);
  await db.close();
  return { dir, ids };
}

type Damage = { name: string; apply: (file: string) => number };
/** Each damage returns the byte offset recovery must name. */
const DAMAGES: Damage[] = [
  {
    name: 'a flipped byte in the header',
    apply: (f) => {
      flipByte(f, 2);
      return 0;
    },
  },
  {
    name: 'a flipped byte in a middle frame',
    apply: (f) => {
      const fr = frames(f).find((x) => x.k === 'recs')!;
      flipByte(f, fr.offset + fr.size - 3);
      return fr.offset;
    },
  },
  {
    name: 'a flipped byte in the end frame',
    apply: (f) => {
      const fr = frames(f).at(-1)!;
      flipByte(f, fr.offset + fr.size - 1);
      return fr.offset;
    },
  },
  {
    name: '5 bytes cut off the end',
    apply: (f) => {
      const fr = frames(f).at(-1)!;
      cutTail(f, 5);
      return fr.offset;
    },
  },
];

async function expectAllRecords(dir: string, ids: string[]): Promise<void> {
  const db = await Database.open({ dataDir: dir });
  try {
    expect(await db.records.count('items')).to.equal(ids.length);
    ids.forEach((id, n) => expect(db.records.findById('items', id).n).to.equal(n));
  } finally {
    await db.close();
  }
}

async function expectRefusal(dir: string, file: string, offset: number): Promise<void> {
  const before = readdirSync(dir).sort();
  let err: unknown;
  try {
    const db = await Database.open({ dataDir: dir });
    await db.close();
  } catch (e) {
    err = e;
  }
  expect(err, 'the database must refuse to start').to.be.instanceOf(Corruption);
  const c = err as Corruption;
  expect(c.file).to.equal(file);
  expect(c.offset).to.equal(offset);
  expect(c.message).to.include(`${file} at byte ${offset}`);
  expect(c.message).to.include('eddydb verify');
  expect(c.message).to.include('--salvage');
  expect(readdirSync(dir).sort(), 'a refusal changes nothing on disk').to.deep.equal(before);
}

describe('a damaged snapshot never yields an empty database', function () {
  this.timeout(60_000);
  const fixtures: Record<string, Fixture> = {};
  const cases: string[] = [];
  before(async () => {
    fixtures.shutdown = await shutdownSnapshot();
    fixtures.one = await oneSnapshot(false);
    fixtures.compacted = await oneSnapshot(true);
    fixtures.two = await twoGenerations();
  });
  after(() => {
    for (const f of [...Object.values(fixtures).map((x) => x.dir), ...cases]) removeDir(f);
  });
  const copy = (name: string): Fixture => {
    const dir = tempDir('eddydb-i8-case-');
    cases.push(dir);
    copyDir(fixtures[name]!.dir, dir);
    return { dir, ids: fixtures[name]!.ids };
  };

  for (const d of DAMAGES) {
    it(`the snapshot of a clean shutdown with ${d.name}: recovers every record, never an empty database`, async () => {
      const { dir, ids } = copy('shutdown');
      d.apply(path.join(dir, snapshotsOf(dir)[0]!));
      await expectAllRecords(dir, ids);
    });

    it(`one snapshot with ${d.name}: recovers every record from the log kept since seq 1`, async () => {
      const { dir, ids } = copy('one');
      const [snap] = snapshotsOf(dir);
      d.apply(path.join(dir, snap!));
      await expectAllRecords(dir, ids);
      // The damaged snapshot was set aside, not deleted, and the next start is clean.
      expect(existsSync(path.join(dir, damagedDirsOf(dir)[0]!, snap!))).to.equal(true);
      await expectAllRecords(dir, ids);
    });

    it(`one snapshot whose older log is gone, with ${d.name}: refuses to start naming the file and byte`, async () => {
      const { dir } = copy('compacted');
      const [snap] = snapshotsOf(dir);
      const offset = d.apply(path.join(dir, snap!));
      await expectRefusal(dir, snap!, offset);
    });

    it(`two generations, the newest with ${d.name}: falls back to the older one and recovers every record`, async () => {
      const { dir, ids } = copy('two');
      const newest = snapshotsOf(dir).at(-1)!;
      d.apply(path.join(dir, newest));
      await expectAllRecords(dir, ids);
    });

    it(`two generations, both damaged (the newest with ${d.name}): refuses to start naming the newest file and byte`, async () => {
      const { dir } = copy('two');
      const [older, newest] = snapshotsOf(dir);
      flipByte(path.join(dir, older!), 2);
      const offset = d.apply(path.join(dir, newest!));
      await expectRefusal(dir, newest!, offset);
    });
  }

  it('two generations with the older snapshot damaged: starts from the newest, untouched', async () => {
    const { dir, ids } = copy('two');
    flipByte(path.join(dir, snapshotsOf(dir)[0]!), 40);
    await expectAllRecords(dir, ids);
  });

  it('refuses when a damaged newest snapshot is newer than everything the older generation and the log reach', async () => {
    const { dir } = copy('two');
    const [, newest] = snapshotsOf(dir);
    const [between, last] = segmentsOf(dir);
    // The older generation's log now ends a batch short of the newest snapshot's seq.
    removeDir(path.join(dir, last!));
    cutTail(path.join(dir, between!), 5);
    flipByte(path.join(dir, newest!), 2);
    await expectRefusal(dir, newest!, 0);
  });

  it('refuses when the segment between two generations is missing and the newest snapshot is damaged', async () => {
    const { dir } = copy('two');
    const [, newest] = snapshotsOf(dir);
    removeDir(path.join(dir, segmentsOf(dir)[0]!));
    flipByte(path.join(dir, newest!), 2);
    await expectRefusal(dir, newest!, 0);
  });
});

describe('generation retention', function () {
  this.timeout(30_000);
  let dir: string;
  beforeEach(() => {
    dir = tempDir('eddydb-i8-keep-');
  });
  afterEach(() => removeDir(dir));

  it('keeps the log from seq 1 after the first snapshot, and after the second only what the first generation needs', async () => {
    const db = await Database.open({ dataDir: dir });
    const ids: string[] = [];
    await insert(db, ids, 5);
    const s1 = await db.snapshot();
    expect(segmentsOf(dir)[0]).to.equal('log-0000000000000001.seg');
    expect(snapshotsOf(dir)).to.deep.equal([s1.name]);
    await insert(db, ids, 5);
    const s2 = await db.snapshot();
    expect(snapshotsOf(dir)).to.deep.equal([s1.name, s2.name]);
    expect(segmentsOf(dir)).to.deep.equal([
      `log-${String(s1.seq + 1).padStart(16, '0')}.seg`,
      `log-${String(s2.seq + 1).padStart(16, '0')}.seg`,
    ]);
    await insert(db, ids, 5);
    const s3 = await db.snapshot();
    expect(snapshotsOf(dir)).to.deep.equal([s2.name, s3.name]);
    expect(segmentsOf(dir)[0]).to.equal(`log-${String(s2.seq + 1).padStart(16, '0')}.seg`);
    await db.close();
  });

  it('a snapshot that fails verification deletes nothing and is moved aside', async () => {
    const fs = new SnapshotRotFs();
    const clock = new ManualClock(Date.UTC(2025, 0, 2, 3, 4, 5));
    const db = await Database.open({ dataDir: dir, fs, clock });
    const ids: string[] = [];
    await insert(db, ids, 5);
    await db.snapshot();
    await insert(db, ids, 5);
    const before = readdirSync(dir)
      .filter((f) => f.endsWith('.seg') || f.endsWith('.snap'))
      .sort();
    fs.rotNextSnapshotRead = true;
    let err: unknown;
    try {
      await db.snapshot();
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(Unavailable);
    expect((err as Error).message)
      .to.include('failed verification')
      .and.include('no file was deleted');
    const after = readdirSync(dir)
      .filter((f) => f.endsWith('.seg') || f.endsWith('.snap'))
      .sort();
    for (const f of before) expect(after, `${f} must survive`).to.include(f);
    expect(damagedDirsOf(dir)).to.deep.equal(['damaged-20250102T030405000Z']);
    await insert(db, ids, 2);
    await db.close();
    await expectAllRecords(dir, ids);
  });
});
