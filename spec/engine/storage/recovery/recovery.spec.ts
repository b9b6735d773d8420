import { expect } from 'chai';
import { readdirSync, readFileSync, writeFileSync, truncateSync, statSync } from 'node:fs';
import path from 'node:path';
import { Database } from '../../../../lib/engine/index.js';
import { Corruption } from '../../../../lib/errors.js';
import { tempDir, removeDir } from '../../../helpers/temp-dir.js';

const segments = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.seg'))
    .sort();
const snapshots = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.snap'))
    .sort();

async function fill(dir: string, n: number, opts: { snapshotAt?: number } = {}): Promise<string[]> {
  const db = await Database.open({ dataDir: dir });
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    ids.push(await db.records.insert('items', { n: i, label: `item ${i}` }));
    if (opts.snapshotAt === i) await db.snapshot();
  }
  await db.close();
  return ids;
}

describe('engine/storage/recovery', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => removeDir(dir));

  it('recovers every record after a clean close', async () => {
    const ids = await fill(dir, 50);
    const db = await Database.open({ dataDir: dir });
    expect(await db.records.count('items')).to.equal(50);
    expect(db.records.findById('items', ids[49]!).label).to.equal('item 49');
    await db.close();
  });

  it('replays only batches after the snapshot seq', async () => {
    await fill(dir, 30, { snapshotAt: 9 });
    expect(snapshots(dir)).to.have.length(1);
    const logs: string[] = [];
    const db = await Database.open({ dataDir: dir, log: (m) => logs.push(m) });
    expect(await db.records.count('items')).to.equal(30);
    expect(logs.some((l) => l.startsWith('loaded snapshot-'))).to.equal(true);
    await db.close();
  });

  it('truncates a torn final record with a warning and keeps everything before it', async () => {
    await fill(dir, 20);
    const seg = path.join(dir, segments(dir).at(-1)!);
    truncateSync(seg, statSync(seg).size - 3);
    const logs: string[] = [];
    const db = await Database.open({ dataDir: dir, log: (m) => logs.push(m) });
    expect(await db.records.count('items')).to.equal(19);
    expect(logs.some((l) => l.includes('torn final record'))).to.equal(true);
    await db.records.insert('items', { n: 99 });
    await db.close();
    const again = await Database.open({ dataDir: dir });
    expect(await again.records.count('items')).to.equal(20);
    await again.close();
  });

  it('refuses to start on a bad checksum in the middle of a segment, naming file and offset', async () => {
    await fill(dir, 20);
    const name = segments(dir).at(-1)!;
    const seg = path.join(dir, name);
    const buf = readFileSync(seg);
    buf[200]! ^= 0xff;
    writeFileSync(seg, buf);
    try {
      await Database.open({ dataDir: dir });
      expect.fail('should not open');
    } catch (err) {
      expect(err).to.be.instanceOf(Corruption);
      expect((err as Corruption).file).to.equal(name);
      expect((err as Corruption).offset).to.be.a('number');
    }
  });

  it('refuses to start on a bad length field in the middle of a segment', async () => {
    await fill(dir, 20);
    const seg = path.join(dir, segments(dir).at(-1)!);
    const buf = readFileSync(seg);
    buf.writeUInt32LE(0xfffffff0, 12);
    writeFileSync(seg, buf);
    let err: unknown;
    try {
      await Database.open({ dataDir: dir });
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(Corruption);
  });

  it('removes leftover .tmp files from an interrupted snapshot', async () => {
    await fill(dir, 5);
    writeFileSync(path.join(dir, 'snapshot-0000000000000099.snap.tmp'), 'partial');
    const db = await Database.open({ dataDir: dir });
    expect(readdirSync(dir).some((f) => f.endsWith('.tmp'))).to.equal(false);
    expect(await db.records.count('items')).to.equal(5);
    await db.close();
  });

  it('falls back to the previous snapshot plus a longer replay when the newest is corrupt', async () => {
    const db = await Database.open({ dataDir: dir, keepGenerations: 2 });
    for (let i = 0; i < 10; i++) await db.records.insert('items', { n: i });
    await db.snapshot();
    for (let i = 10; i < 20; i++) await db.records.insert('items', { n: i });
    await db.snapshot();
    for (let i = 20; i < 25; i++) await db.records.insert('items', { n: i });
    await db.close();
    const snaps = snapshots(dir);
    expect(snaps).to.have.length(2);
    const newest = path.join(dir, snaps[1]!);
    const buf = readFileSync(newest);
    buf[buf.length - 5]! ^= 0xff;
    writeFileSync(newest, buf);
    const logs: string[] = [];
    const again = await Database.open({ dataDir: dir, log: (m) => logs.push(m) });
    expect(await again.records.count('items')).to.equal(25);
    expect(logs.some((l) => l.includes('unusable'))).to.equal(true);
    await again.close();
  });

  it('refuses to start when a segment is missing (a gap in seq)', async () => {
    const db = await Database.open({ dataDir: dir, keepGenerations: 1 });
    for (let i = 0; i < 5; i++) await db.records.insert('items', { n: i });
    await db.snapshot();
    for (let i = 0; i < 5; i++) await db.records.insert('items', { n: i });
    await db.close();
    for (const s of snapshots(dir)) removeDir(path.join(dir, s));
    let err: unknown;
    try {
      await Database.open({ dataDir: dir });
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(Corruption);
  });

  it('keeps collections, schemas, trash, TTLs, keys and config across restarts', async () => {
    const db = await Database.open({ dataDir: dir });
    await db.collections.create('people', { fields: { name: { field_type: 'String', required: true } } });
    const id = await db.records.insert('people', { name: 'Ann', ttl: '1h' });
    const gone = await db.records.insert('people', { name: 'Bob' });
    await db.records.delete('people', gone);
    await db.keys.create({ name: 'reader', admin: false });
    await db.updateSettings({ use_typed_values: false });
    await db.close();
    const again = await Database.open({ dataDir: dir });
    expect(again.collections.schema('people')).to.have.nested.property('fields.name.required', true);
    expect(again.records.findById('people', id).ttl).to.be.a('string');
    expect(again.trash.count('people')).to.equal(1);
    expect(again.keys.list().map((k) => k.name)).to.include('reader');
    expect(again.settings().use_typed_values).to.equal(false);
    await again.close();
  });
});

describe('engine/storage/recovery of a garbled final frame', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => removeDir(dir));

  it('treats a bad checksum on the last record as a torn tail', async () => {
    await fill(dir, 10);
    const seg = path.join(dir, segments(dir).at(-1)!);
    const buf = readFileSync(seg);
    buf[buf.length - 2]! ^= 0xff;
    writeFileSync(seg, buf);
    const db = await Database.open({ dataDir: dir });
    expect(await db.records.count('items')).to.equal(9);
    await db.close();
  });

  it('treats trailing zeros (an extended but unwritten file) as a torn tail', async () => {
    await fill(dir, 10);
    const seg = path.join(dir, segments(dir).at(-1)!);
    writeFileSync(seg, Buffer.concat([readFileSync(seg), Buffer.alloc(4096)]));
    const db = await Database.open({ dataDir: dir });
    expect(await db.records.count('items')).to.equal(10);
    await db.close();
  });

  it('refuses a length field garbled mid-file even when it points past the end', async () => {
    await fill(dir, 10);
    const seg = path.join(dir, segments(dir).at(-1)!);
    const buf = readFileSync(seg);
    buf.writeUInt32LE(buf.length, 12);
    writeFileSync(seg, buf);
    let err: unknown;
    try {
      await Database.open({ dataDir: dir });
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(Corruption);
  });
});
