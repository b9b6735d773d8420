/**
 * The log frames of a group of batches (batch-payload.ts): each payload is
 * written straight into the group's buffer (a large batch in slices) and
 * must be byte for byte what one encodeBatch call (msgpackr) gives, for
 * batch sizes at and around the slice size and the MessagePack
 * array-header sizes; a group's frames follow each other in order, whatever
 * their sizes. A large group's buffer given back is what the next large
 * group is written in. payload-writer.spec.ts checks the values one by one.
 */
import { expect } from 'chai';
import type { Effect, LoggedBatch } from '../../../../lib/engine/write/effects.js';
import { encodeBatchFrames, SpareFrames } from '../../../../lib/engine/storage/log/batch-payload.js';
import { decodePayload, encodeBatch } from '../../../../lib/engine/storage/codec.js';
import { readFrame } from '../../../../lib/engine/storage/frame.js';
import { Tagged } from '../../../../lib/engine/values/index.js';

const effect = (i: number, pad = 0): Effect =>
  i % 7 === 0
    ? { kind: 'delete', collection: 'c', id: `r${i}`, trashedAt: i }
    : {
        kind: 'put',
        collection: 'c',
        id: `r${i}`,
        fields: {
          id: `r${i}`,
          n: i,
          big: 2n ** 60n + BigInt(i),
          when: new Tagged('DateTime', '2024-01-01T00:00:00Z'),
          s: 'é'.repeat(i % 40),
          pad: 'x'.repeat(pad),
        } as never,
      };

const batchOf = (seq: number, n: number, pad = 0): LoggedBatch => ({
  seq,
  effects: Array.from({ length: n }, (_, i) => effect(i, pad)),
});

/** The payloads of every frame in `buf`, which must hold nothing else. */
function framesIn(buf: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; ;) {
    const f = readFrame(buf, at);
    if (f.kind === 'end') return out;
    if (f.kind !== 'frame') throw new Error(`frame at ${at}: ${f.kind} ${f.reason}`);
    out.push(f.payload);
    at = f.next;
  }
}

const oneCall = (b: LoggedBatch) => decodePayload(encodeBatch(b));

describe('engine/storage batch frames', () => {
  for (const n of [0, 1, 15, 16, 500, 501, 1234, 65_536]) {
    it(`decodes a batch of ${n} effects as the one-call encoding does`, async () => {
      const batch = batchOf(12_345, n);
      const frames = framesIn(await encodeBatchFrames([batch]));
      expect(frames).to.have.length(1);
      expect(frames[0]!.equals(encodeBatch(batch)), 'the same bytes').to.equal(true);
      expect(decodePayload(frames[0]!)).to.deep.equal(oneCall(batch));
    });
  }

  it('grows the frame when later slices are larger than the first', async () => {
    // The first slice's records are small, the rest large: the frame outgrows its first size.
    const batch: LoggedBatch = {
      seq: 7,
      effects: Array.from({ length: 2_000 }, (_, i) => effect(i, i < 500 ? 0 : 2_000)),
    };
    const frames = framesIn(await encodeBatchFrames([batch]));
    expect(decodePayload(frames[0]!)).to.deep.equal(oneCall(batch));
  });

  it('keeps the frames of a group in order, small and large batches mixed', async () => {
    const group = [batchOf(1, 3), batchOf(2, 1_200), batchOf(3, 0), batchOf(4, 501), batchOf(5, 2)];
    const frames = framesIn(await encodeBatchFrames(group));
    expect(frames.map((p) => decodePayload(p))).to.deep.equal(group.map(oneCall));
    frames.forEach((p, i) => expect(p.equals(encodeBatch(group[i]!)), `batch ${i + 1}`).to.equal(true));
  });

  it('answers at once for a group of small batches', () => {
    const out = encodeBatchFrames([batchOf(1, 3), batchOf(2, 500)]);
    expect(out).to.be.instanceOf(Buffer);
    expect(framesIn(out as Buffer)).to.have.length(2);
  });

  describe('a spare buffer', () => {
    it('writes the next large group in the buffer given back, with its own bytes', async () => {
      const spare = new SpareFrames();
      const first = await encodeBatchFrames([batchOf(1, 1_200)], spare);
      const memory = first.buffer;
      spare.giveBack(first);
      // Smaller, so that it fits in the first one's buffer.
      const second = await encodeBatchFrames([batchOf(2, 900)], spare);
      expect(second.buffer, 'the same memory').to.equal(memory);
      expect(framesIn(second)[0]!.equals(encodeBatch(batchOf(2, 900)))).to.equal(true);
      // Taken: the group after it, with nothing given back, gets memory of its own.
      const third = await encodeBatchFrames([batchOf(3, 900)], spare);
      expect(third.buffer).to.not.equal(memory);
    });

    it('outgrows a spare buffer too small for the group', async () => {
      const spare = new SpareFrames();
      const small = await encodeBatchFrames([batchOf(1, 501)], spare);
      spare.giveBack(small);
      const batch = batchOf(2, 3_000, 300);
      const large = await encodeBatchFrames([batch], spare);
      expect(large.buffer).to.not.equal(small.buffer);
      expect(framesIn(large)[0]!.equals(encodeBatch(batch))).to.equal(true);
    });

    it('takes back only buffers it issued, once each', async () => {
      const spare = new SpareFrames();
      // A small group is written at once, in memory that may be node's shared pool: never taken back.
      const small = encodeBatchFrames([batchOf(1, 3)], spare) as Buffer;
      spare.giveBack(small);
      expect(spare.take()).to.equal(undefined);
      spare.giveBack(Buffer.alloc(1 << 20));
      expect(spare.take()).to.equal(undefined);
      const large = await encodeBatchFrames([batchOf(2, 1_200)], spare);
      spare.giveBack(large);
      spare.giveBack(large);
      expect(spare.take()?.buffer).to.equal(large.buffer);
      expect(spare.take()).to.equal(undefined);
    });
  });
});
