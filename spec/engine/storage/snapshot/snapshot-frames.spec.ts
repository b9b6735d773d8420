/**
 * A snapshot's record frames are sized by bytes: each is encoded in one
 * piece while the event loop waits, so 2,000 rows of large records (vectors)
 * are cut into frames of about half a MiB, and small records still go 2,000
 * to a frame. The rows read back as written, and a row that is not one is
 * reported as a damaged frame.
 */
import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { Database } from '../../../../lib/engine/index.js';
import { Corruption } from '../../../../lib/errors.js';
import { encodePayload } from '../../../../lib/engine/storage/codec.js';
import { encodeFrame, encodeHeader } from '../../../../lib/engine/storage/frame.js';
import { SNAP_MAGIC, SNAP_VERSION, writeSnapshot } from '../../../../lib/engine/storage/snapshot/snapshot.js';
import { readSnapshotBytes } from '../../../../lib/engine/storage/snapshot/snapshot-reader.js';
import { FaultyFs } from '../../../helpers/faulty-fs.js';
import { frames } from '../../../helpers/data-files.js';
import { removeDir, tempDir } from '../../../helpers/temp-dir.js';

describe('engine/storage snapshot record frames', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => {
    dir = tempDir('eddydb-frames-');
  });
  afterEach(() => removeDir(dir));

  async function recordFrames(records: (i: number) => Record<string, unknown>, n: number) {
    const db = await Database.open({ dataDir: dir, settings: { durability: 'none' } });
    await db.bulk.insertMany(
      'c',
      Array.from({ length: n }, (_, i) => records(i)),
    );
    await db.snapshot();
    await db.close();
    const snap = readdirSync(dir).find((f) => f.endsWith('.snap'))!;
    return frames(path.join(dir, snap)).filter((f) => f.k === 'recs');
  }

  it('puts 2,000 small records in a frame', async () => {
    const recs = await recordFrames((i) => ({ i, name: `n${i}` }), 5000);
    expect(recs).to.have.length(3);
    expect(recs.map((f) => f.rows)).to.deep.equal([2000, 2000, 1000]);
  });

  it('cuts records of 384 numbers into frames of about 512 KiB', async () => {
    const recs = await recordFrames(
      (i) => ({ i, embedding: Array.from({ length: 384 }, (_, d) => Math.sin(i * d)) }),
      5000,
    );
    // 5,000 rows of up to 3.5 KB: about 15 MB in frames of about 512 KiB, none much over it.
    expect(recs.length).to.be.within(20, 40);
    for (const frame of recs) expect(frame.size).to.be.below(600 * 1024);
  });

  it('syncs the file as it writes it, so that its last fsync is short', async () => {
    const db = await Database.open({ dataDir: dir, settings: { durability: 'none' } });
    await db.bulk.insertMany(
      'c',
      Array.from({ length: 3000 }, (_, i) => ({ i, text: `${i}`.padEnd(200, '.') })),
    );
    const snapDir = tempDir('eddydb-frames-sync-');
    const syncsWriting = async (syncBytes: number) => {
      const fs = new FaultyFs();
      const written = await writeSnapshot(fs, snapDir, db.state, db.now(), syncBytes);
      return { syncs: fs.syncs, bytes: written.bytes };
    };
    try {
      // About 700 KB in two records frames: each is synced once written, then the file as a whole.
      const often = await syncsWriting(64 * 1024);
      const once = await syncsWriting(2 ** 30);
      expect(often.bytes).to.be.above(640 * 1024);
      expect(often.syncs - once.syncs).to.be.at.least(2);
    } finally {
      removeDir(snapDir);
      await db.close();
    }
  });
});

describe('engine/storage snapshot rows', () => {
  const collection = { name: 'c', createdAt: new Date(0).toISOString() };
  /** A whole snapshot file of seq 7 whose one records frame holds `rows` (and trash frame `trashRows`). */
  const snapshotOf = (rows: unknown[], trashRows: unknown[] = []) =>
    Buffer.concat([
      encodeHeader(SNAP_MAGIC, SNAP_VERSION),
      ...[
        { k: 'meta', seq: 7, created_at: 0 },
        { k: 'config', v: {} },
        { k: 'keys', v: [] },
        { k: 'ripple', seen: [] },
        { k: 'kvLinks', rows: [] },
        { k: 'coll', meta: collection, membership: 1, count: rows.length },
        { k: 'recs', c: 'c', rows },
        { k: 'trash', c: 'c', rows: trashRows },
        { k: 'end', frames: 8 },
      ].map((frame) => encodeFrame(encodePayload(frame))),
    ]);

  it('reads rows back in order, a TTL row counted as expiring', async () => {
    const { state } = await readSnapshotBytes(
      snapshotOf([
        ['a', { id: 'a', n: 1 }, 3, null, null],
        ['b', { id: 'b', n: 2 }, 5, 9_999_999_999_999, null],
      ]),
      'snapshot-7.snap',
      7,
    );
    const coll = state.collections.get('c')!;
    expect([...coll.records.keys()]).to.deep.equal(['a', 'b']);
    expect(coll.records.get('b')).to.deep.include({ version: 5, expiresAt: 9_999_999_999_999, ord: 2 });
    expect(coll.expiringRecords).to.equal(1);
  });

  it('reports a row that is not [id, fields, ...] as a damaged frame, strict or salvaging', async () => {
    for (const bad of [42, ['c', 'not fields', 1, null, null]]) {
      const file = snapshotOf([['a', { id: 'a' }, 3, null, null], bad]);
      const refused = await readSnapshotBytes(file, 'snapshot-7.snap', 7).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(refused).to.be.instanceOf(Corruption);
      expect((refused as Error).message).to.include('a record row that is not [id, fields, ...]');
      const salvaged = await readSnapshotBytes(file, 'snapshot-7.snap', 7, { salvage: true });
      expect(salvaged.damage?.droppedFrames).to.be.greaterThan(0);
      expect(salvaged.state.collections.get('c')!.records.size).to.equal(0);
    }
  });

  it('reports a trash row that is not [id, fields, ...] as a damaged frame too', async () => {
    const good = ['t', { id: 't' }, 2, null, null, 1000];
    const read = await readSnapshotBytes(snapshotOf([], [good]), 'snapshot-7.snap', 7);
    expect(read.state.trash.get('c')!.get('t')).to.deep.include({ deletedAt: 1000 });
    const file = snapshotOf([], [good, 'not a row']);
    const refused = await readSnapshotBytes(file, 'snapshot-7.snap', 7).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).to.be.instanceOf(Corruption);
    const salvaged = await readSnapshotBytes(file, 'snapshot-7.snap', 7, { salvage: true });
    expect(salvaged.damage?.droppedFrames).to.be.greaterThan(0);
  });
});
