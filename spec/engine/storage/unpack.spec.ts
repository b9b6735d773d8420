/**
 * unpackStored reads the storage codec's payloads into the same values as
 * msgpackr (maps as objects, 64-bit integers as bigints, Tagged, undefined),
 * checked against it on seeded random payloads; it builds maps sized for
 * their fields, shares short strings, makes a long string read twice in a
 * row once, copies binary data, and leaves anything else to msgpackr
 * (NOT_DECODED).
 */
import { expect } from 'chai';
import { Packr, Unpackr } from 'msgpackr';
import { encodePayload } from '../../../lib/engine/storage/codec.js';
import { NOT_DECODED, unpackStored } from '../../../lib/engine/storage/unpack.js';
import { ownStrings, Tagged, type TaggedType, type Value } from '../../../lib/engine/values/index.js';
import { heapPerRecord } from '../../helpers/heap.js';
import { mulberry32 } from '../../helpers/seeded-random.js';

const reference = new Unpackr({ useRecords: false, mapsAsObjects: true, int64AsType: 'bigint' });
const msgpackr = (payload: Buffer): unknown => ownStrings(reference.unpack(payload));

const TEXTS = ['', 'a', 'Oslo', 'x'.repeat(16), 'y'.repeat(17), 'Zoë Ångström, 東京 🚀', 'user.name+tag@example.com'];
const TAGS: TaggedType[] = ['DateTime', 'Decimal', 'UUID', 'Duration', 'Number', 'Float'];

/** A random stored value of at most `depth` levels, the same for the same generator. */
function randomValue(u: () => number, depth: number): unknown {
  const pick = Math.floor(u() * (depth > 0 ? 14 : 10));
  switch (pick) {
    case 0:
      return null;
    case 1:
      return u() < 0.5;
    case 2:
      return Math.floor(u() * 300) - 150;
    case 3:
      return Math.floor((u() - 0.5) * 2 ** 40);
    case 4:
      return (u() - 0.5) * 1e6;
    case 5:
      return BigInt(Math.floor(u() * 2 ** 30)) * 2n ** 33n * (u() < 0.5 ? -1n : 1n);
    case 6:
      return TEXTS[Math.floor(u() * TEXTS.length)]! + (u() < 0.3 ? String(Math.floor(u() * 1e9)) : '');
    case 7:
      return 'long text '.repeat(1 + Math.floor(u() * 30));
    case 8:
      return Buffer.from(Array.from({ length: Math.floor(u() * 40) }, () => Math.floor(u() * 256)));
    case 9:
      return new Tagged(TAGS[Math.floor(u() * TAGS.length)]!, u() < 0.5 ? 'text value' : u() * 1000);
    case 10:
    case 11: {
      const out: Record<string, unknown> = {};
      const n = Math.floor(u() * 14);
      for (let i = 0; i < n; i++)
        out[u() < 0.8 ? `k${Math.floor(u() * 20)}` : TEXTS[i % TEXTS.length]!] = randomValue(u, depth - 1);
      return out;
    }
    case 12:
      return Array.from({ length: Math.floor(u() * 6) }, () => randomValue(u, depth - 1));
    default:
      return new Tagged('Set', [randomValue(u, 0), randomValue(u, 0)] as Value[]);
  }
}

describe('engine/storage/unpack', () => {
  it('reads seeded random payloads into the values msgpackr reads', () => {
    const u = mulberry32(31);
    for (let i = 0; i < 3_000; i++) {
      const value = { seq: i, effects: [randomValue(u, 4), randomValue(u, 3)], rows: [[`id-${i}`, randomValue(u, 2)]] };
      const payload = encodePayload(value);
      const ours = unpackStored(payload);
      expect(ours, `payload ${i}`).to.not.equal(NOT_DECODED);
      expect(ours, `payload ${i}`).to.deep.equal(msgpackr(payload));
    }
  });

  it('keeps the order of keys, reads __proto__ as msgpackr does and 32-bit floats', () => {
    const packr = new Packr({ useRecords: false, useFloat32: 1 });
    const withProto = JSON.parse('{"b":1,"__proto__":2,"a":3}') as object;
    for (const value of [{ z: 1, a: 2, m: 3 }, withProto, { f: 1.5 }]) {
      const payload = packr.pack(value);
      const ours = unpackStored(payload) as object;
      expect(Object.keys(ours)).to.deep.equal(Object.keys(msgpackr(payload) as object));
      expect(ours).to.deep.equal(msgpackr(payload));
      expect(Object.getPrototypeOf(ours)).to.equal(Object.prototype);
    }
  });

  it('reads undefined and a Tagged as msgpackr does', () => {
    const payload = encodePayload({ gone: undefined, when: new Tagged('DateTime', '2025-06-01T12:34:56+00:00') });
    const ours = unpackStored(payload) as { gone: unknown; when: Tagged };
    expect(Object.keys(ours)).to.deep.equal(['gone', 'when']);
    expect(ours.gone).to.equal(undefined);
    expect(ours.when).to.be.instanceOf(Tagged);
    expect(Object.isFrozen(ours.when)).to.equal(true);
    expect(ours).to.deep.equal(msgpackr(payload));
  });

  it('reads ids, shared short strings and binary data, copying the binary data out of the payload', () => {
    const id = 'AbCdEfGhIjKlMnOpQrStUv';
    const payload = encodePayload([
      [id, { id, city: 'Oslo', blob: Buffer.from([1, 2, 3]) }],
      [`${id}x`, { id: `${id}x`, city: 'Oslo' }],
    ]);
    const rows = unpackStored(payload) as Array<[string, { id: string; city: string; blob?: Buffer }]>;
    expect(rows[0]![0]).to.equal(id);
    expect(rows[1]![1].id).to.equal(`${id}x`);
    expect(rows[0]![1].city).to.equal('Oslo');
    expect(Buffer.isBuffer(rows[0]![1].blob)).to.equal(true);
    expect(rows[0]![1].blob!.buffer).to.not.equal(payload.buffer);
    payload.fill(0);
    expect([...rows[0]![1].blob!]).to.deep.equal([1, 2, 3]);
  });

  it('leaves to msgpackr what it does not read: other extensions, non-string keys, extra or missing bytes', () => {
    const packr = new Packr({ useRecords: false });
    expect(unpackStored(packr.pack({ when: new Date(0) }))).to.equal(NOT_DECODED);
    expect(unpackStored(packr.pack(new Map([[1, 'one']])))).to.equal(NOT_DECODED);
    const payload = encodePayload({ a: 'text', b: [1, 2, 3] });
    expect(unpackStored(Buffer.concat([payload, Buffer.from([0xc0])]))).to.equal(NOT_DECODED);
    for (let cut = 0; cut < payload.length; cut++) expect(unpackStored(payload.subarray(0, cut))).to.equal(NOT_DECODED);
    expect(unpackStored(Buffer.from([0xdd, 0xff, 0xff, 0xff, 0xff]))).to.equal(NOT_DECODED);
  });

  it('makes records smaller than msgpackr does', () => {
    const keys = ['id', 'name', 'email', 'age', 'city', 'plan', 'score', 'visits', 'active', 'note', 'tags'];
    const payloads = Array.from({ length: 64 }, (_, i) =>
      encodePayload(Object.fromEntries(keys.map((k, j) => [k, j === 0 ? `record-${i}` : j * i]))),
    );
    const ours = heapPerRecord(30_000, (i) => unpackStored(payloads[i % payloads.length]!));
    const theirs = heapPerRecord(30_000, (i) => reference.unpack(payloads[i % payloads.length]!));
    expect(theirs - ours).to.be.greaterThan(16);
  });
});
