/**
 * The log's zero fill against real files: a segment kept longer than its
 * frames, the rest zeros. Recovery reads the zeros as the segment's end (no
 * frame dropped, nothing reported), appends continue after the last frame
 * and not after the fill, a clean close and a rotation cut the fill off, and
 * the fill never hides damage: a torn frame in it is a dropped frame, and a
 * frame after zeros is corruption.
 */
import { expect } from 'chai';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { LogWriter, segmentName } from '../../../../lib/engine/storage/log/log-writer.js';
import { recover } from '../../../../lib/engine/storage/recovery/recovery.js';
import { verifyDataDir } from '../../../../lib/engine/storage/recovery/verify.js';
import { readBatchesAfter } from '../../../../lib/engine/storage/log/log-scan.js';
import { encodeBatchFrames } from '../../../../lib/engine/storage/log/batch-payload.js';
import { isZeroFill } from '../../../../lib/engine/storage/frame.js';
import type { LoggedBatch } from '../../../../lib/engine/write/effects.js';
import { Corruption } from '../../../../lib/errors.js';
import { nodeFs } from '../../../../lib/engine/index.js';
import { FaultyFs } from '../../../helpers/faulty-fs.js';
import { tempDir, removeDir } from '../../../helpers/temp-dir.js';

const FILL = 4096;
const batch = (seq: number): LoggedBatch => ({ seq, effects: [{ kind: 'config', values: { n: seq } }] });
const frameOf = async (seq: number) => Buffer.from(await encodeBatchFrames([batch(seq)]));

describe('engine/storage/log zero fill ahead of the frames', () => {
  let dir: string;
  let fs: FaultyFs;
  let w: LogWriter | undefined;
  const seg = (start = 1) => path.join(dir, segmentName(start));
  const open = async () => {
    w = new LogWriter(fs, dir, 'always', 5);
    w.zeroFillBytes = FILL;
    await w.openSegment(1);
    return w;
  };
  /** Writes `bytes` over the first segment's bytes from `at` (within its length, as a torn write would); returns the file. */
  const overwrite = (bytes: Buffer, at: number): Buffer => {
    const file = readFileSync(seg());
    bytes.copy(file, at);
    writeFileSync(seg(), file);
    return file;
  };
  /** Appends seqs from..to, one append each. */
  const appendSeqs = async (writer: LogWriter, from: number, to: number) => {
    for (let seq = from; seq <= to; seq++) await writer.append([batch(seq)]);
  };
  beforeEach(() => {
    dir = tempDir();
    fs = new FaultyFs();
    w = undefined;
  });
  afterEach(async () => {
    await w?.close();
    removeDir(dir);
  });

  it('keeps the segment longer than its frames, and recovery reads the zeros as its end without a report', async () => {
    const writer = await open();
    await appendSeqs(writer, 1, 20);
    const file = readFileSync(seg());
    const r = await recover(nodeFs, dir);
    expect(r.state.seq).to.equal(20);
    expect(r.lastSegment!.size).to.be.below(file.length);
    expect(file.length - r.lastSegment!.size).to.be.at.least(FILL / 2);
    expect(isZeroFill(file, r.lastSegment!.size)).to.equal(true);
    expect(r.report).to.include({ droppedFrames: 0, droppedBytes: 0 });
    expect(r.report.tail).to.equal(undefined);
    expect(r.report.warnings).to.deep.equal([]);
  });

  it('grows the fill as the frames reach it, so a long log stays one readable segment', async () => {
    const writer = await open();
    const frame = (await frameOf(1)).length;
    const count = Math.ceil((FILL * 3) / frame);
    await appendSeqs(writer, 1, count);
    const r = await recover(nodeFs, dir);
    expect(r.state.seq).to.equal(count);
    expect(statSync(seg()).size - r.lastSegment!.size).to.be.within(FILL / 2, FILL);
  });

  it('writes no fill after a large write, which extends the file by itself', async () => {
    const writer = await open();
    await writer.append([{ seq: 1, effects: [{ kind: 'config', values: { text: 'x'.repeat(FILL) } }] }]);
    expect(statSync(seg()).size).to.equal((await recover(nodeFs, dir)).lastSegment!.size);
    await appendSeqs(writer, 2, 2);
    expect(statSync(seg()).size - (await recover(nodeFs, dir)).lastSegment!.size).to.be.within(FILL / 2, FILL);
  });

  it('appends after the last frame once reopened after a crash, not after the fill', async () => {
    const writer = await open();
    await appendSeqs(writer, 1, 5);
    // The first writer is left as a crash leaves it: never closed.
    const r = await recover(nodeFs, dir);
    const again = new LogWriter(fs, dir, 'always', 5);
    again.zeroFillBytes = FILL;
    await again.reopen(r.lastSegment!.name, r.lastSegment!.size);
    await appendSeqs(again, 6, 9);
    await again.close();
    const after = await recover(nodeFs, dir);
    expect(after.state.seq).to.equal(9);
    expect(after.report.tail).to.equal(undefined);
    expect((await readBatchesAfter(nodeFs, dir, 0, 100)).batches.map((b) => b.seq)).to.deep.equal([
      1, 2, 3, 4, 5, 6, 7, 8, 9,
    ]);
  });

  it('cuts the fill off on a clean close and on rotation', async () => {
    const writer = await open();
    await appendSeqs(writer, 1, 3);
    await writer.openSegment(4);
    await appendSeqs(writer, 4, 6);
    const firstEnd = (await recover(nodeFs, dir)).state.seq;
    expect(firstEnd).to.equal(6);
    expect(isZeroFill(readFileSync(seg(1)), statSync(seg(1)).size - 1), 'the rotated segment ends in a frame').to.equal(
      false,
    );
    await writer.close();
    w = undefined;
    const last = readFileSync(seg(4));
    expect(last[last.length - 1], 'the closed segment ends in a frame').to.not.equal(0);
    expect((await verifyDataDir(nodeFs, dir)).map((f) => f.ok)).to.deep.equal([true, true]);
  });

  it('reads zero fill at the end of an earlier segment as its end too', async () => {
    const writer = await open();
    await appendSeqs(writer, 1, 3);
    await writer.openSegment(4);
    await appendSeqs(writer, 4, 5);
    writeFileSync(seg(1), Buffer.concat([readFileSync(seg(1)), Buffer.alloc(1000)]));
    const r = await recover(nodeFs, dir);
    expect(r.state.seq).to.equal(5);
    expect(r.report.warnings).to.deep.equal([]);
    expect((await verifyDataDir(nodeFs, dir)).every((f) => f.ok)).to.equal(true);
  });

  it('reports a frame torn inside the fill as a dropped frame', async () => {
    const writer = await open();
    await appendSeqs(writer, 1, 4);
    const end = (await recover(nodeFs, dir)).lastSegment!.size;
    const torn = (await frameOf(5)).subarray(0, 11);
    overwrite(torn, end);
    const r = await recover(nodeFs, dir);
    expect(r.state.seq).to.equal(4);
    expect(r.report.droppedFrames).to.equal(1);
    expect(r.report.tail).to.include({ offset: end, frames: 1 });
  });

  it('drops a last write torn by a crash before its fsync (unwritten bytes, then frames of it), reporting each frame', async () => {
    const writer = await open();
    await appendSeqs(writer, 1, 4);
    const end = (await recover(nodeFs, dir)).lastSegment!.size;
    const lastWrite = Buffer.concat([await frameOf(5), await frameOf(6), await frameOf(7)]);
    lastWrite.fill(0, 0, 8); // the sector holding frame 5's header was not kept
    overwrite(lastWrite, end);
    const r = await recover(nodeFs, dir);
    expect(r.state.seq).to.equal(4);
    expect(r.report.tail).to.include({ offset: end, frames: 3 });
    expect(r.report.droppedFrames).to.equal(3);
  });

  it('drops a torn last write when a whole sector inside its first frame was not kept', async () => {
    const writer = await open();
    await appendSeqs(writer, 1, 2);
    const end = (await recover(nodeFs, dir)).lastSegment!.size;
    const big = Buffer.from(
      await encodeBatchFrames([{ seq: 3, effects: [{ kind: 'config', values: { text: 'x'.repeat(20_000) } }] }]),
    );
    const lastWrite = Buffer.concat([big, await frameOf(4)]);
    const file = Buffer.concat([readFileSync(seg()).subarray(0, end), lastWrite]);
    const sector = Math.ceil((end + 100) / 512) * 512;
    file.fill(0, sector, sector + 512);
    writeFileSync(seg(), file);
    const r = await recover(nodeFs, dir);
    expect(r.state.seq).to.equal(2);
    expect(r.report.tail).to.include({ offset: end, frames: 2 });
  });

  it('still refuses, naming the byte, a frame after damage that is not unwritten bytes, or after zeros in an earlier segment', async () => {
    const writer = await open();
    await appendSeqs(writer, 1, 4);
    const end = (await recover(nodeFs, dir)).lastSegment!.size;
    const garbage = Buffer.concat([Buffer.from([9, 9, 9, 9, 1, 2, 3, 4, 5]), await frameOf(6)]);
    const file = overwrite(garbage, end);
    let error: unknown;
    await recover(nodeFs, dir).catch((err: unknown) => (error = err));
    expect(error).to.be.instanceOf(Corruption);
    expect((error as Error).message).to.include(String(end));

    // Zeros, then a frame, in a segment that is not the last: data lost in the middle of the log.
    writeFileSync(seg(), file.subarray(0, end));
    await writer.openSegment(5);
    await appendSeqs(writer, 5, 6);
    writeFileSync(seg(), Buffer.concat([file.subarray(0, end), Buffer.alloc(8), await frameOf(5)]));
    error = undefined;
    await recover(nodeFs, dir).catch((err: unknown) => (error = err));
    expect(error).to.be.instanceOf(Corruption);
    expect((error as Error).message).to.include(segmentName(1));
  });

  it('acknowledges frames that fit on a disk too full for the fill, and the fault is the next frame that does not', async () => {
    const writer = await open();
    const frame = (await frameOf(1)).length;
    // Room for the first frame and a few bytes of its fill.
    fs.spaceLeft = frame + 10;
    await appendSeqs(writer, 1, 1);
    expect(writer.failed).to.equal(undefined);
    let error: unknown;
    await appendSeqs(writer, 2, 2).catch((err: unknown) => (error = err));
    expect(error).to.have.property('code', 'ENOSPC');
    fs.free();
    await writer.heal();
    await appendSeqs(writer, 2, 4);
    expect((await recover(nodeFs, dir)).state.seq).to.equal(4);
  });
});
