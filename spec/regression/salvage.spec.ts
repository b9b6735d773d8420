/**
 * Salvage, and damage at the tail reported at warning level.
 *
 * Without the flag a damaged file stops startup with the file, the byte and
 * the way out. With it the database starts from what is readable, reports
 * exactly what it dropped, copies the damaged files into damaged-<time>/,
 * and writes a fresh snapshot so the next normal start is clean.
 */
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Database, ManualClock, type LogLevel } from '../../lib/engine/index.js';
import { Corruption } from '../../lib/errors.js';
import { startConfig } from '../../lib/cli/config.js';
import { TestServer } from '../helpers/test-server.js';
import { tempDir, removeDir } from '../helpers/temp-dir.js';
import { flipByte, frames, segmentsOf, snapshotsOf } from '../helpers/data-files.js';

const CLOCK_AT = Date.UTC(2025, 5, 1, 12, 0, 0);
const DAMAGED_DIR = 'damaged-20250601T120000000Z';

async function insertEach(dir: string, n: number): Promise<string[]> {
  const db = await Database.open({ dataDir: dir });
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push(await db.records.insert('items', { n: i }));
  await db.close();
  return ids;
}

async function refusal(dir: string): Promise<Corruption> {
  try {
    const db = await Database.open({ dataDir: dir });
    await db.close();
  } catch (err) {
    expect(err).to.be.instanceOf(Corruption);
    return err as Corruption;
  }
  throw new Error('expected the database to refuse to start');
}

describe('salvage', function () {
  this.timeout(30_000);
  let dir: string;
  beforeEach(() => {
    dir = tempDir('eddydb-i8-salvage-');
  });
  afterEach(() => removeDir(dir));

  it('a bad frame in the middle of a segment refuses to start with the file, the byte and the way out', async () => {
    await insertEach(dir, 10);
    const seg = segmentsOf(dir)[0]!;
    const bad = frames(path.join(dir, seg))[4]!;
    flipByte(path.join(dir, seg), bad.offset + bad.size - 2);
    const err = await refusal(dir);
    expect(err.file).to.equal(seg);
    expect(err.offset).to.equal(bad.offset);
    expect(err.message).to.include(`corruption in ${seg} at byte ${bad.offset}: checksum mismatch`);
    expect(err.message).to.include('eddydb verify').and.include('--salvage').and.include('EDDYDB_SALVAGE=1');
  });

  it(
    'salvages a bad frame mid-segment: resyncs to the next frame, reports the bytes and seqs lost, copies the file ' +
      'aside, writes a fresh snapshot',
    async () => {
      const ids = await insertEach(dir, 10);
      const seg = segmentsOf(dir)[0]!;
      const all = frames(path.join(dir, seg));
      const bad = all[4]!;
      flipByte(path.join(dir, seg), bad.offset + bad.size - 2);
      const db = await Database.open({ dataDir: dir, salvage: true, clock: new ManualClock(CLOCK_AT) });
      try {
        expect(await db.records.count('items')).to.equal(9);
        const r = db.recovery;
        expect(r.salvaged).to.equal(true);
        expect(r.droppedFrames).to.equal(1);
        expect(r.droppedBytes).to.equal(bad.size);
        expect(r.damaged).to.deep.equal([
          {
            kind: 'segment',
            lost: true,
            file: seg,
            skipped: [{ from: bad.offset, to: all[5]!.offset, reason: 'checksum mismatch' }],
            lostSeqs: [{ from: bad.seq, to: bad.seq }],
          },
        ]);
        expect(r.warnings[0]).to.equal(
          `${seg}: skipped bytes ${bad.offset}-${all[5]!.offset} (checksum mismatch); 1 batch(es) lost: seq ${bad.seq}`,
        );
        expect(r.movedTo).to.equal(DAMAGED_DIR);
      } finally {
        await db.close();
      }
      // The original left the data directory only after the fresh snapshot; the copy and the report stay.
      expect(readdirSync(path.join(dir, DAMAGED_DIR)).sort()).to.deep.equal(['recovery-report.json', seg].sort());
      expect(existsSync(path.join(dir, seg))).to.equal(false);
      const report = JSON.parse(readFileSync(path.join(dir, DAMAGED_DIR, 'recovery-report.json'), 'utf8'));
      expect(report.damaged[0].lostSeqs).to.deep.equal([{ from: bad.seq, to: bad.seq }]);
      expect(snapshotsOf(dir)).to.have.length(1);
      const again = await Database.open({ dataDir: dir });
      try {
        expect(await again.records.count('items')).to.equal(9);
        expect(again.recovery.warnings).to.deep.equal([]);
        expect(again.recovery.salvaged).to.equal(false);
        const lost = ids.filter((id) => {
          try {
            again.records.findById('items', id);
            return false;
          } catch {
            return true;
          }
        });
        expect(lost).to.have.length(1);
      } finally {
        await again.close();
      }
    },
  );

  it('salvages a damaged only snapshot with the log gone: reads every other frame and names the records lost', async () => {
    const db = await Database.open({ dataDir: dir, keepGenerations: 1 });
    const rows = Array.from({ length: 2500 }, (_, n) => ({ n }));
    expect((await db.bulk.insertMany('items', rows)).successful).to.have.length(2500);
    await db.snapshot();
    await db.close();
    for (const s of segmentsOf(dir)) rmSync(path.join(dir, s));
    const snap = snapshotsOf(dir)[0]!;
    const second = frames(path.join(dir, snap)).filter((f) => f.k === 'recs')[1]!;
    const lost = second.rows!;
    flipByte(path.join(dir, snap), second.offset + 40);

    const err = await refusal(dir);
    expect(err.message).to.include(`${snap} at byte ${second.offset}`);

    const logs: Array<[LogLevel | undefined, string]> = [];
    const salvaged = await Database.open({
      dataDir: dir,
      salvage: true,
      clock: new ManualClock(CLOCK_AT),
      log: (m, l) => logs.push([l, m]),
    });
    try {
      expect(await salvaged.records.count('items')).to.equal(2500 - lost);
      const d = salvaged.recovery.damaged[0]!;
      expect(d.kind).to.equal('snapshot');
      if (d.kind !== 'snapshot') return;
      expect(d.damage!.skipped).to.deep.equal([
        { from: second.offset, to: second.offset + second.size, reason: 'checksum mismatch' },
      ]);
      expect(d.damage!.droppedFrames).to.equal(1);
      expect(d.damage!.lostRecords).to.deep.equal([{ collection: 'items', read: 2500 - lost, lost }]);
      expect(
        logs.some(([l, m]) => l === 'warn' && m.includes(`collection 'items': ${lost} of 2500 records lost`)),
      ).to.equal(true);
    } finally {
      await salvaged.close();
    }
    expect(readdirSync(path.join(dir, DAMAGED_DIR))).to.include(snap);
    const again = await Database.open({ dataDir: dir });
    expect(await again.records.count('items')).to.equal(2500 - lost);
    expect(again.recovery.warnings).to.deep.equal([]);
    await again.close();
  });

  it('leaves a healthy directory alone even with the salvage flag', async () => {
    await insertEach(dir, 5);
    const before = readdirSync(dir).sort();
    const db = await Database.open({ dataDir: dir, salvage: true });
    expect(await db.records.count('items')).to.equal(5);
    expect(db.recovery.salvaged).to.equal(false);
    await db.close();
    expect(readdirSync(dir).sort()).to.deep.equal(before);
  });

  it('is turned on by `eddydb start --salvage` or EDDYDB_SALVAGE=1, and off by default', () => {
    expect(startConfig(['start', '--salvage'], {}).salvage).to.equal(true);
    expect(startConfig(['start', '--salvage', '--port', '9000'], {}).salvage).to.equal(true);
    expect(startConfig(['start'], { EDDYDB_SALVAGE: '1' }).salvage).to.equal(true);
    expect(startConfig(['start'], {}).salvage).to.equal(false);
  });
});

describe('damage at the tail is a warning, in the log and in /api/health', function () {
  this.timeout(30_000);
  let dir: string;
  beforeEach(() => {
    dir = tempDir('eddydb-i8-tail-');
  });
  afterEach(() => removeDir(dir));

  it('logs a complete final frame whose checksum fails at warning level and truncates it', async () => {
    await insertEach(dir, 6);
    const seg = path.join(dir, segmentsOf(dir)[0]!);
    const last = frames(seg).at(-1)!;
    flipByte(seg, last.offset + last.size - 2);
    const logs: Array<[LogLevel | undefined, string]> = [];
    const db = await Database.open({ dataDir: dir, log: (m, l) => logs.push([l, m]) });
    expect(await db.records.count('items')).to.equal(5);
    await db.close();
    const warning = logs.find(([, m]) => m.includes('torn final record'));
    expect(warning?.[0]).to.equal('warn');
    expect(warning?.[1]).to.include(`${last.size} bytes dropped from byte ${last.offset} (checksum mismatch`);
  });

  it('GET /api/health reports the snapshot used, the batches replayed and the frames and bytes dropped at startup', async () => {
    await insertEach(dir, 6);
    const seg = path.join(dir, segmentsOf(dir)[0]!);
    const all = frames(seg);
    const last = all.at(-1)!;
    flipByte(seg, last.offset + last.size - 2);
    const t = await TestServer.start({ dataDir: dir });
    try {
      const health = await t.request('GET', '/api/health');
      expect(health.status).to.equal(200);
      expect(health.body.status).to.equal('ok');
      const r = health.body.recovery;
      expect(r).to.deep.include({
        snapshot: null,
        replayed_batches: all.length - 1,
        dropped_frames: 1,
        dropped_bytes: last.size,
        salvaged: false,
      });
      expect(r.warnings).to.have.length(1);
      expect(r.warnings[0]).to.include('torn final record').and.include('checksum mismatch');
    } finally {
      await t.stop();
    }
  });

  it('GET /api/health shows a clean start as nothing dropped', async () => {
    await insertEach(dir, 3);
    const t = await TestServer.start({ dataDir: dir });
    try {
      const r = (await t.request('GET', '/api/health')).body.recovery;
      expect(r).to.deep.equal({
        snapshot: null,
        replayed_batches: 3,
        dropped_frames: 0,
        dropped_bytes: 0,
        warnings: [],
        salvaged: false,
      });
    } finally {
      await t.stop();
    }
  });
});
