/**
 * The background sweeps (sweep.ts): expired records, expired key-value
 * entries and the trash past its retention are found in slices and removed
 * in chunks, each chunk one durable write; reads are answered between the
 * chunks, and a write made meanwhile is re-checked in the writer.
 */
import { expect } from 'chai';
import { Database, ManualClock } from '../../../lib/engine/index.js';
import { TRASH_RETENTION_MS } from '../../../lib/engine/records/trash.js';
import { SWEEP_CHUNK } from '../../../lib/engine/expiry/sweep.js';
import { removeDir, tempDir } from '../../helpers/temp-dir.js';

const COUNT = SWEEP_CHUNK * 4 + 10;

describe('engine/sweep: background removal in durable chunks', () => {
  let dir: string;
  let db: Database;
  let clock: ManualClock;
  let batches: number[];
  beforeEach(async () => {
    dir = tempDir();
    clock = new ManualClock(Date.parse('2026-03-01T00:00:00Z'));
    db = await Database.open({ dataDir: dir, clock });
    batches = [];
    db.onCommit((b) => {
      batches.push(b.effects.length);
    });
  });
  afterEach(async () => {
    await db.close();
    removeDir(dir);
  });

  /**
   * Runs `sweep` while reading record `probe` once per turn; resolves to how many reads were answered before it ended.
   */
  async function readsDuring(sweep: Promise<number>, read: () => void): Promise<number> {
    let done = false;
    void sweep.finally(() => {
      done = true;
    });
    let reads = 0;
    while (!done) {
      await new Promise((r) => setImmediate(r));
      read();
      reads += 1;
    }
    return reads;
  }

  it('removes expired records in chunks of one write each, answering reads between them', async function () {
    this.timeout(60_000);
    await db.records.insert('keep', { id: 'probe' });
    await db.bulk.insertMany(
      't',
      Array.from({ length: COUNT }, (_, i) => ({ n: i, ttl: 60 })),
    );
    clock.advance(61_000);
    batches = [];
    const sweep = db.records.expiry.sweep();
    const reads = await readsDuring(sweep, () => db.records.findById('keep', 'probe'));
    expect(await sweep).to.equal(COUNT);
    expect(await db.records.count('t')).to.equal(0);
    expect(batches.length, 'one write per chunk').to.equal(Math.ceil(COUNT / SWEEP_CHUNK));
    expect(Math.max(...batches)).to.be.at.most(SWEEP_CHUNK);
    expect(reads, 'reads answered while the sweep ran').to.be.greaterThan(batches.length);
  });

  it('sweeps the TTL records stored before a restart, beside collections with none', async () => {
    await db.bulk.insertMany(
      'plain',
      Array.from({ length: 50 }, (_, i) => ({ n: i })),
    );
    await db.bulk.insertMany(
      't',
      Array.from({ length: 30 }, (_, i) => ({ n: i, ...(i % 3 === 0 ? { ttl: 60 } : {}) })),
    );
    await db.close();
    db = await Database.open({ dataDir: dir, clock });
    clock.advance(61_000);
    expect(await db.records.expiry.sweep()).to.equal(10);
    expect(await db.records.count('t')).to.equal(20);
    expect(await db.records.count('plain')).to.equal(50);
  });

  it('keeps a record inserted again, with a new TTL, under an expired id while the sweep was under way', async () => {
    await db.bulk.insertMany(
      't',
      Array.from({ length: COUNT }, (_, i) => ({ id: `r${i}`, ttl: 60 })),
    );
    clock.advance(61_000);
    const sweep = db.records.expiry.sweep();
    await db.records.insert('t', { id: `r${COUNT - 1}`, ttl: 600 });
    await sweep;
    expect(
      (await db.records.find('t', { sort: [], skip: 0, bypassCache: false, bypassRipple: false })).map((r) => r.id),
    ).to.deep.equal([`r${COUNT - 1}`]);
  });

  it('lets a sweep that is still running finish instead of starting a second one', async () => {
    await db.bulk.insertMany(
      't',
      Array.from({ length: 10 }, () => ({ ttl: 60 })),
    );
    clock.advance(61_000);
    const [a, b] = [db.records.expiry.sweep(), db.records.expiry.sweep()];
    expect(a).to.equal(b);
    expect(await a).to.equal(10);
  });

  it('deletes expired key-value entries in chunks', async function () {
    this.timeout(60_000);
    for (let i = 0; i < COUNT; i += 500) {
      await Promise.all(Array.from({ length: Math.min(500, COUNT - i) }, (_, k) => db.kv.set(`k${i + k}`, i + k, 60)));
    }
    await db.kv.set('stays', 1);
    clock.advance(61_000);
    batches = [];
    expect(await db.kv.sweep()).to.equal(COUNT);
    expect(batches.length).to.equal(Math.ceil(COUNT / SWEEP_CHUNK));
    expect(db.state.kv.size).to.equal(1);
  });

  it('purges the trash past its retention in chunks, and keeps what was restored meanwhile', async function () {
    this.timeout(60_000);
    await db.bulk.insertMany(
      't',
      Array.from({ length: COUNT }, (_, i) => ({ id: `r${i}` })),
    );
    await db.bulk.run(
      't',
      Array.from({ length: COUNT }, (_, i) => ({ kind: 'delete' as const, id: `r${i}` })),
    );
    clock.advance(TRASH_RETENTION_MS + 1);
    batches = [];
    const purge = db.trash.purgeExpired();
    await db.trash.restore('t', `r${COUNT - 1}`);
    expect(await purge).to.equal(COUNT - 1);
    expect(db.trash.count('t')).to.equal(0);
    expect(batches.length, 'the purge chunks and the restore').to.equal(Math.ceil(COUNT / SWEEP_CHUNK) + 1);
    expect(db.records.findById('t', `r${COUNT - 1}`).id).to.equal(`r${COUNT - 1}`);
  });
});
