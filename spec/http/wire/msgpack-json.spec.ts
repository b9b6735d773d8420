/**
 * The native rewrite of MessagePack bodies as JSON text (lib/http/wire/msgpack-json.cc):
 * where it rewrites a body, JSON.parse of its text is exactly what msgpackr's
 * path (`unpackBody`) decodes, -0 and key order included; where the body
 * holds what JSON would not carry exactly, it declines and decodeBody gives
 * msgpackr's value or refusal. Random bodies, then the edges one by one.
 */
import { isDeepStrictEqual } from 'node:util';
import { expect } from 'chai';
import { Packr } from 'msgpackr';
import { encode as otherEncode } from '@msgpack/msgpack';
import { decodeBody, unpackBody } from '../../../lib/http/wire/codec.js';
import { msgpackAsJson, msgpackRewriteAvailable } from '../../../lib/http/wire/msgpack-json.js';
import { mulberry32 } from '../../helpers/seeded-random.js';

const MP = 'application/msgpack';
const packr = new Packr({ useRecords: false, moreTypes: false, variableMapSize: true });
const defaultPackr = new Packr({ useRecords: false });
const float32Packr = new Packr({ useRecords: false, useFloat32: 1 });

/** What unpackBody gives, or the message it refuses with. */
function viaMsgpackr(raw: Buffer): { value: unknown } | { error: string } {
  try {
    return { value: unpackBody(raw) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

function viaDecodeBody(raw: Buffer): { value: unknown } | { error: string } {
  try {
    return { value: decodeBody(raw, MP) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** Rewritten (and then equal to msgpackr's value), or declined; and decodeBody agrees with msgpackr either way. */
function check(raw: Buffer): 'rewritten' | 'declined' {
  const text = msgpackAsJson(raw);
  const expected = viaMsgpackr(raw);
  expect(isDeepStrictEqual(viaDecodeBody(raw), expected), `decodeBody of ${raw.toString('hex').slice(0, 80)}`).to.equal(
    true,
  );
  if (text === undefined) return 'declined';
  expect('value' in expected, 'a rewritten body is one msgpackr decodes').to.equal(true);
  expect(
    isDeepStrictEqual(JSON.parse(text), (expected as { value: unknown }).value),
    `rewrite of ${raw.toString('hex').slice(0, 80)}: ${text.slice(0, 120)}`,
  ).to.equal(true);
  expect(text).to.not.match(/\d{16}/);
  return 'rewritten';
}

const STRINGS = [
  '',
  'a',
  'Ann',
  'user 12',
  'user12@example.com',
  'x'.repeat(40),
  'y'.repeat(300),
  'é',
  'Zoë Ångström',
  '日本語テキスト',
  '😀 emoji',
  'quote " and \\ backslash',
  'line\nbreak\ttab\rcr',
  'bell\u0007 and nul\u0000',
  'del\u007f',
  '123456789012345',
  '1234567890123456',
  '\u2028\u2029',
  'ends with digit 7',
];

function randomValue(rnd: () => number, depth: number): unknown {
  const pick = Math.floor(rnd() * (depth > 4 ? 8 : 11));
  switch (pick) {
    case 0:
      return null;
    case 1:
      return rnd() < 0.5;
    case 2:
      return Math.floor(rnd() * 256) - 128;
    case 3:
      return Math.floor((rnd() - 0.5) * 2 ** 40);
    case 4:
      return [
        0.5,
        -0,
        0,
        1e21,
        1.5e-7,
        12.34,
        -3.25,
        0.1 + 0.2,
        Number.MAX_SAFE_INTEGER,
        2 ** 53 + 2,
        -(2 ** 31),
        2 ** 32,
      ][Math.floor(rnd() * 12)];
    case 5:
      return STRINGS[Math.floor(rnd() * STRINGS.length)];
    case 6:
      return [NaN, Infinity, 2n ** 60n, -(2n ** 62n), 5n, Buffer.from([1, 2, 3]), new Date(0)][Math.floor(rnd() * 7)];
    case 7:
      return `s${Math.floor(rnd() * 1e6)}`;
    case 8:
    case 9: {
      const o: Record<string, unknown> = {};
      const n = Math.floor(rnd() * 6);
      for (let i = 0; i < n; i++)
        o[rnd() < 0.2 ? String(i) : STRINGS[Math.floor(rnd() * STRINGS.length)]! + i] = randomValue(rnd, depth + 1);
      return o;
    }
    default:
      return Array.from({ length: Math.floor(rnd() * 5) }, () => randomValue(rnd, depth + 1));
  }
}

describe('http/codec: MessagePack bodies rewritten as JSON text', function () {
  before(function () {
    if (!msgpackRewriteAvailable) {
      // The addon is optional (npm install builds it); without it every body goes to msgpackr, which the other codec
      // specs cover.
      console.log('    (build/Release/eddydb_codec.node was not built: nothing to compare)');
      this.skip();
    }
  });

  it('decodes 3,000 random bodies, from two encoders, exactly as msgpackr does, rewriting most of them', () => {
    const rnd = mulberry32(15);
    const counts = { rewritten: 0, declined: 0 };
    // msgpackr with variable-size map headers, msgpackr's default (every map a map16), @msgpack/msgpack (its own
    // choices of widths).
    const encoders = [
      (v: unknown) => packr.pack(v),
      (v: unknown) => defaultPackr.pack(v),
      (v: unknown) => Buffer.from(otherEncode(v, { useBigInt64: true })),
    ];
    for (let i = 0; i < 3000; i++) counts[check(encoders[i % 3]!(randomValue(rnd, 0)))]++;
    expect(counts.rewritten).to.be.above(1000);
    expect(counts.declined).to.be.above(100);
  });

  it('rewrites a batch body as its JSON text', () => {
    const inserts = Array.from({ length: 50 }, (_, i) => ({
      data: {
        name: `user ${i}`,
        email: `user${i}@example.com`,
        age: 18 + i,
        score: i / 8,
        active: i % 2 === 0,
        bio: 'x'.repeat(90),
      },
    }));
    const raw = packr.pack({ inserts });
    expect(check(raw)).to.equal('rewritten');
    expect(msgpackAsJson(raw)).to.equal(JSON.stringify({ inserts }));
  });

  it('declines what JSON would not carry exactly, and decodeBody gives msgpackr its say', () => {
    const declined = [
      NaN,
      -Infinity,
      2n ** 53n,
      -(2n ** 53n),
      Buffer.from('bin'),
      new Date(5),
      0.1 + 0.2,
      1234567890123456,
      'digits 1234567890123456 in a row',
    ];
    for (const v of declined) expect(check(packr.pack({ v })), String(v)).to.equal('declined');
    // float32: those whose shortest double digits are short are rewritten, the others declined.
    expect(check(float32Packr.pack({ v: 0.5 }))).to.equal('rewritten');
    expect(check(float32Packr.pack({ v: 0.1 }))).to.equal('declined');
    // A key that is not a string (msgpackr makes text of it its own way).
    expect(
      check(new Packr({ useRecords: false, mapsAsObjects: false }).pack(new Map<unknown, unknown>([[1, 'one']]))),
    ).to.equal('declined');
  });

  it('declines bytes msgpackr refuses: 0xc1, cut short, left over, invalid UTF-8', () => {
    const valid = packr.pack({ a: [1, 'two'] });
    for (const raw of [
      Buffer.from([0x81, 0xa1, 0x61, 0xc1]),
      valid.subarray(0, valid.length - 1),
      Buffer.concat([valid, Buffer.from([0x01])]),
    ]) {
      expect(check(raw)).to.equal('declined');
      expect(() => decodeBody(raw, MP)).to.throw(/Malformed MessagePack body/);
    }
    // A string of bytes that are not UTF-8 (a lone continuation byte, an overlong form, a surrogate).
    for (const bytes of [[0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82]]) {
      expect(check(Buffer.from([0xa0 | bytes.length, ...bytes]))).to.equal('declined');
    }
  });

  it('keeps the depth limit: a leaf at depth 100 passes, a container there is left to msgpackr, which refuses it', () => {
    const nest = (levels: number, leaf: unknown): unknown => (levels === 0 ? leaf : [nest(levels - 1, leaf)]);
    expect(check(packr.pack(nest(100, 1)))).to.equal('rewritten');
    const deep = packr.pack(nest(100, [1]));
    expect(check(deep)).to.equal('declined');
    expect(() => decodeBody(deep, MP)).to.throw('Body nested too deeply');
  });

  it('never rewrites a body spelling __proto__: it is refused as before', () => {
    const raw = packr.pack({ data: { ['__proto__']: { admin: true } } });
    expect(() => decodeBody(raw, MP)).to.throw("Forbidden key '__proto__' in body");
  });
});
