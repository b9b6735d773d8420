import { expect } from 'chai';
import {
  encodeFrame,
  readFrame,
  encodeHeader,
  checkHeader,
  HEADER_SIZE,
  findNextFrame,
  isZeroFill,
  FrameStream,
  type FrameResult,
} from '../../../lib/engine/storage/frame.js';
import { encodePayload } from '../../../lib/engine/storage/codec.js';
import { nodeFs } from '../../../lib/engine/storage/fs.js';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { removeDir, tempDir } from '../../helpers/temp-dir.js';

describe('engine/storage/frame', () => {
  it('reads back what it encodes, then reports the end', () => {
    const buf = Buffer.concat([encodeFrame(Buffer.from('hello')), encodeFrame(Buffer.from('world'))]);
    const a = readFrame(buf, 0);
    expect(a.kind).to.equal('frame');
    if (a.kind !== 'frame') return;
    expect(a.payload.toString()).to.equal('hello');
    const b = readFrame(buf, a.next);
    expect(b.kind === 'frame' && b.payload.toString()).to.equal('world');
    expect(readFrame(buf, buf.length).kind).to.equal('end');
  });

  it('reports a file ending inside a frame as torn, not corrupt', () => {
    const f = encodeFrame(Buffer.from('payload'));
    expect(readFrame(f.subarray(0, 5), 0).kind).to.equal('torn');
    expect(readFrame(f.subarray(0, f.length - 1), 0).kind).to.equal('torn');
  });

  it('reports a flipped payload bit as a checksum mismatch', () => {
    const f = Buffer.from(encodeFrame(Buffer.from('payload')));
    f[10]! ^= 0x01;
    const r = readFrame(f, 0);
    expect(r.kind).to.equal('corrupt');
  });

  it('reports an absurd length as corruption', () => {
    const f = Buffer.from(encodeFrame(Buffer.from('x')));
    f.writeUInt32LE(0xfffffff0, 0);
    expect(readFrame(f, 0).kind).to.equal('corrupt');
  });

  it('checks magic and version in the file header', () => {
    const h = encodeHeader('EDDYLOG', 1);
    expect(h.length).to.equal(HEADER_SIZE);
    expect(checkHeader(h, 'EDDYLOG')).to.equal(1);
    expect(checkHeader(h, 'EDDYSNAP')).to.equal(undefined);
  });

  it('resyncs past damaged bytes to the next valid frame, and finds none in garbage or zero fill', () => {
    const a = encodeFrame(encodePayload({ seq: 1, effects: [] }));
    const b = encodeFrame(encodePayload({ seq: 2, effects: [] }));
    const buf = Buffer.concat([a, b]);
    buf[a.length - 1]! ^= 0xff;
    expect(readFrame(buf, 0).kind).to.equal('corrupt');
    expect(findNextFrame(buf, 1)).to.equal(a.length);
    expect(findNextFrame(Buffer.alloc(64, 0x5a), 0)).to.equal(undefined);
    const zeros = Buffer.concat([a, Buffer.alloc(32)]);
    expect(findNextFrame(zeros, a.length)).to.equal(undefined);
    expect(isZeroFill(zeros, a.length)).to.equal(true);
    expect(isZeroFill(zeros, 0)).to.equal(false);
  });

  it('streams the frames of a file in small windows, answering what readFrame answers on the whole file', async () => {
    const dir = tempDir();
    try {
      const frames = Array.from({ length: 12 }, (_, i) => encodeFrame(encodePayload({ i, pad: 'x'.repeat(i * 37) })));
      const whole = Buffer.concat([encodeHeader('EDDYLOG\0', 1), ...frames]);
      const flipped = Buffer.from(whole);
      flipped[whole.length - frames.at(-1)!.length + 12]! ^= 1;
      const cases = { whole, torn: whole.subarray(0, whole.length - 5), flipped, headerOnly: whole.subarray(0, 14) };
      for (const [name, bytes] of Object.entries(cases)) {
        const file = path.join(dir, name);
        writeFileSync(file, bytes);
        for (const chunk of [16, 100, 1 << 20]) {
          const stream = await FrameStream.open(nodeFs, file, chunk);
          expect(checkHeader(await stream.head(HEADER_SIZE), 'EDDYLOG\0')).to.equal(1);
          const seen: FrameResult[] = [];
          const expected: FrameResult[] = [];
          for (let at = HEADER_SIZE; ;) {
            const read = await stream.frameAt(at);
            const want = readFrame(bytes, at);
            seen.push(read.kind === 'frame' ? { ...read, payload: Buffer.from(read.payload) } : read);
            expected.push(want);
            if (want.kind !== 'frame') break;
            at = want.next;
          }
          expect(seen, `${name}, chunk ${chunk}`).to.deep.equal(expected);
        }
      }
    } finally {
      removeDir(dir);
    }
  });
});
