import { expect } from 'chai';
import {
  encodeFrame,
  readFrame,
  encodeHeader,
  checkHeader,
  HEADER_SIZE,
  findNextFrame,
  isZeroFill,
} from '../../../lib/engine/storage/frame.js';
import { encodePayload } from '../../../lib/engine/storage/codec.js';

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
});
