/**
 * LogWriter on a failing disk, directly: a failed append leaves nothing of
 * its batches in the file, acknowledged-but-unsynced frames survive a failed
 * fsync through heal(), heal() refuses while the disk is still full, and a
 * failed rotation keeps the current segment. Files are read back by recovery.
 */
import { expect } from 'chai';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { LogWriter, segmentName } from '../../../../lib/engine/storage/log/log-writer.js';
import { recover } from '../../../../lib/engine/storage/recovery/recovery.js';
import type { StorageFault } from '../../../../lib/engine/storage/storage-fault.js';
import type { LoggedBatch } from '../../../../lib/engine/write/effects.js';
import { nodeFs } from '../../../../lib/engine/index.js';
import { FaultyFs } from '../../../helpers/faulty-fs.js';
import { tempDir, removeDir } from '../../../helpers/temp-dir.js';

const batch = (seq: number): LoggedBatch => ({ seq, effects: [{ kind: 'config', values: { n: seq } }] });

async function attempt(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
    return undefined;
  } catch (err) {
    return err;
  }
}

describe('engine/storage/log-writer on a failing disk', () => {
  let dir: string;
  let fs: FaultyFs;
  let faults: StorageFault[];
  let w: LogWriter;
  const open = async (mode: 'always' | 'batch') => {
    w = new LogWriter(fs, dir, mode, 5);
    w.onFailure = (f) => faults.push(f);
    await w.openSegment(1);
  };
  const seqsOnDisk = async () => {
    const r = await recover(nodeFs, dir);
    return { seq: r.state.seq, config: r.state.config };
  };
  beforeEach(() => {
    dir = tempDir();
    fs = new FaultyFs();
    faults = [];
  });
  afterEach(async () => {
    await w?.close();
    removeDir(dir);
  });

  it('cuts a torn frame off the segment as soon as the append fails, and reports the fault once', async () => {
    await open('always');
    await w.append([batch(1)]);
    const file = path.join(dir, segmentName(1));
    const before = statSync(file).size;
    fs.spaceLeft = 7;
    expect(await attempt(w.append([batch(2)]))).to.have.property('code', 'ENOSPC');
    expect(statSync(file).size).to.equal(before);
    expect(await attempt(w.append([batch(2)])), 'sticky').to.have.property('code', 'ENOSPC');
    expect(faults.map((f) => [f.operation, f.code, f.file])).to.deep.equal([['write', 'ENOSPC', segmentName(1)]]);
  });

  it('refuses to heal while the disk is still full, then heals once it is freed', async () => {
    await open('always');
    await w.append([batch(1)]);
    fs.fill();
    await attempt(w.append([batch(2)]));
    expect(await attempt(w.heal())).to.have.property('code', 'ENOSPC');
    expect(w.failed).to.not.equal(undefined);
    expect(
      readdirSync(dir).filter((f) => f.endsWith('.tmp')),
      'the probe is removed',
    ).to.deep.equal([]);
    fs.free();
    await w.heal();
    expect(w.failed).to.equal(undefined);
    await w.append([batch(2)]);
    expect((await seqsOnDisk()).seq).to.equal(2);
  });

  it('removes a batch whose fsync failed, so the next batch with the same seq is the one recovered', async () => {
    await open('always');
    await w.append([batch(1)]);
    fs.failSyncs = true;
    await attempt(w.append([{ seq: 2, effects: [{ kind: 'config', values: { rejected: true } }] }]));
    fs.free();
    await w.heal();
    await w.append([batch(2)]);
    const r = await seqsOnDisk();
    expect(r.seq).to.equal(2);
    expect(r.config).to.deep.equal({ n: 2 });
  });

  it('keeps acknowledged batch-mode frames until fsynced and rewrites them after a failed fsync lost them', async () => {
    await open('batch');
    await w.append([batch(1)]);
    await w.flush();
    fs.failSyncs = true;
    fs.loseUnsyncedOnFailedSync = true;
    await w.append([batch(2)]);
    await w.append([batch(3)]);
    expect(await attempt(w.flush())).to.have.property('code', 'EIO');
    expect(faults.map((f) => f.operation)).to.deep.equal(['fsync']);
    expect((await seqsOnDisk()).seq, 'the failed fsync dropped them').to.equal(1);
    fs.free();
    await w.heal();
    expect((await seqsOnDisk()).seq).to.equal(3);
  });

  it('reports a failed background fsync at once, without waiting for the next append', async () => {
    await open('batch');
    fs.failSyncs = true;
    await w.append([batch(1)]);
    const until = Date.now() + 5000;
    while (faults.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
    expect(faults.map((f) => [f.operation, f.code])).to.deep.equal([['fsync', 'EIO']]);
  });

  it('keeps appending to the current segment when a rotation fails, and heal removes the abandoned one', async () => {
    await open('always');
    await w.append([batch(1)]);
    fs.spaceLeft = 5;
    expect(await attempt(w.openSegment(2))).to.have.property('code', 'ENOSPC');
    expect(w.currentSegment).to.equal(segmentName(1));
    fs.free();
    await w.heal();
    expect(readdirSync(dir).filter((f) => f.endsWith('.seg'))).to.deep.equal([segmentName(1)]);
    await w.append([batch(2)]);
    expect((await seqsOnDisk()).seq).to.equal(2);
  });

  it('writes an append made the moment the previous append cycle answers, and answers appends in order', async () => {
    await open('always');
    const syncsBefore = fs.syncs;
    // Each append is made in the continuation of the one before: right as the cycle that answered it ends.
    for (let seq = 1; seq <= 20; seq++) await w.append([batch(seq)]);
    const order: number[] = [];
    const release = fs.holdSyncs();
    const first = w.append([batch(21)]).then(() => order.push(21));
    await new Promise((r) => setTimeout(r, 20));
    const later = [22, 23, 24].map((seq) => w.append([batch(seq)]).then(() => order.push(seq)));
    release();
    await Promise.all([first, ...later]);
    expect(order).to.deep.equal([21, 22, 23, 24]);
    expect(fs.syncs - syncsBefore, 'the three appends made during the held fsync share one fsync').to.equal(22);
    expect((await seqsOnDisk()).seq).to.equal(24);
  });
});

describe('engine/storage/log-writer: the buffers of large groups', () => {
  let dir: string;
  let w: LogWriter;
  const puts = (seq: number, from: number, n: number): LoggedBatch => ({
    seq,
    effects: Array.from({ length: n }, (_, i) => {
      const id = `r${from + i}`;
      return { kind: 'put', collection: 'c', id, fields: { id, n: from + i, s: 'x'.repeat(40) } };
    }),
  });
  const created: LoggedBatch = {
    seq: 1,
    effects: [{ kind: 'createCollection', meta: { name: 'c', createdAt: '2024-01-01T00:00:00.000Z' } }],
  };
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(async () => {
    await w?.close();
    removeDir(dir);
  });

  /** Encodes and appends `batch`, handed over or not; the frames appended. */
  const appended = async (batch: LoggedBatch, handedOver: boolean): Promise<Buffer> => {
    const data = await w.encode([batch]);
    await w.appendEncoded(data, undefined, handedOver);
    return data;
  };
  const recordsOnDisk = async () => (await recover(nodeFs, dir)).state.collections.get('c')!.records.size;
  /** A writer in `mode` over a new segment that holds the collection. */
  const opened = async (mode: 'always' | 'batch', syncMs: number) => {
    w = new LogWriter(nodeFs, dir, mode, syncMs);
    await w.openSegment(1);
    await w.append([created]);
  };

  it('writes the next large group in the memory of one handed over once durable (always)', async () => {
    await opened('always', 5);
    const first = await appended(puts(2, 0, 1_200), true);
    const second = await appended(puts(3, 1_200, 1_000), true);
    expect(second.buffer, 'written in the first group’s memory').to.equal(first.buffer);
    // Not handed over: its memory is never taken back.
    const third = await appended(puts(4, 2_200, 1_000), false);
    const fourth = await appended(puts(5, 3_200, 1_000), true);
    expect(third.buffer).to.equal(first.buffer);
    expect(fourth.buffer).to.not.equal(first.buffer);
    await w.close();
    expect(await recordsOnDisk()).to.equal(4_200);
  });

  it('takes a group’s memory back only once its frames are synced (batch)', async () => {
    await opened('batch', 60_000);
    const first = await appended(puts(2, 0, 1_200), true);
    // Written, not synced: heal() may still have to write these frames again.
    const second = await appended(puts(3, 1_200, 1_000), true);
    expect(second.buffer).to.not.equal(first.buffer);
    await w.flush();
    const third = await appended(puts(4, 2_200, 1_000), true);
    expect([first.buffer, second.buffer]).to.include(third.buffer);
    await w.close();
    expect(await recordsOnDisk()).to.equal(3_200);
  });
});
