/**
 * The exact JSON reader and writer: integers beyond 2^53 keep their digits
 * both ways, and everything else reads and writes exactly as the built-in
 * JSON does (checked against it on seeded random documents).
 */
import { expect } from 'chai';
import { InvalidInput } from '../../../../lib/errors.js';
import { fromJson, toJson } from '../../../../lib/engine/values/index.js';
import {
  MAX_INTEGER_DIGITS,
  MAX_JSON_DEPTH,
  parseExactJson,
  writeExactJson,
} from '../../../../lib/engine/values/wire/json-exact.js';
import { hasLongIntegerRun, jsonParser } from '../../../../lib/engine/values/wire/json.js';
import { mulberry32 } from '../../../helpers/seeded-random.js';

/** A random JSON-able document without bigints: floats, escapes, unicode, nesting, odd keys. */
function randomDoc(rand: () => number, depth = 0): unknown {
  const pick = Math.floor(rand() * (depth > 3 ? 6 : 8));
  const strings = [
    '',
    'plain',
    'quote " and \\ backslash',
    'line\nbreak\ttab',
    'é ü 😀',
    '\u0001\u001f',
    '\ud800 lone',
    '12345678901234567',
  ];
  switch (pick) {
    case 0:
      return null;
    case 1:
      return rand() < 0.5;
    case 2:
      return Math.floor((rand() - 0.5) * 2 ** 53);
    // Below 1e15: JS writes a whole float from 2^53 up as bare digits, which the reader takes for an exact integer.
    case 3:
      return (rand() - 0.5) * 10 ** Math.floor(rand() * 35 - 20);
    case 4:
      return strings[Math.floor(rand() * strings.length)];
    case 5:
      return [1e21, -0, 5e-324, 1.7976931348623157e308, 9007199254740991, 0.1][Math.floor(rand() * 6)];
    case 6:
      return Array.from({ length: Math.floor(rand() * 4) }, () => randomDoc(rand, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      for (let i = Math.floor(rand() * 4); i > 0; i--)
        o[strings[Math.floor(rand() * strings.length)]! + i] = randomDoc(rand, depth + 1);
      return o;
    }
  }
}

function errorOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('engine/values/json', () => {
  describe('the long integer check (which text goes to the exact parser)', () => {
    /** 16+ digits in a row that are not the integer part, fraction or exponent of a float. */
    const LONG_INTEGER = /(?<![\d.eE])(?<![eE][+-])\d{16,}(?![\d.eE])/;

    it('agrees with a regular expression at every place and length of a run', () => {
      for (let len = 0; len < 40; len++) {
        for (let at = 0; at < 40; at++) {
          const text = 'x'.repeat(at) + '7'.repeat(len) + 'y'.repeat(at % 5);
          expect(hasLongIntegerRun(text), `${len} digits at ${at}`).to.equal(LONG_INTEGER.test(text));
        }
      }
    });

    it('agrees with a regular expression on random text of digits and separators', () => {
      const random = mulberry32(16);
      for (let n = 0; n < 5000; n++) {
        const length = Math.floor(random() * 200);
        let text = '';
        // Mostly digits, so runs of every length near 16 come up.
        for (let i = 0; i < length; i++)
          text += random() < 0.93 ? String(Math.floor(random() * 10)) : ',."eE-+'[Math.floor(random() * 7)];
        expect(hasLongIntegerRun(text), text).to.equal(LONG_INTEGER.test(text));
      }
    });

    it('leaves floats with long fractions or exponents to JSON.parse, which reads them as the exact parser does', () => {
      const random = mulberry32(7);
      const vector = Array.from({ length: 384 }, () => (random() - 0.5) / 3);
      const texts = [
        JSON.stringify({ vector }),
        '[1234567890123456789.5, 0.12345678901234567, 1e1234567890123456, 5E-0000000000000001, 12345678901234567e2]',
      ];
      for (const text of texts) {
        expect(jsonParser(text), text.slice(0, 60)).to.equal(JSON.parse);
        expect(fromJson(text)).to.deep.equal(JSON.parse(text));
      }
      expect(jsonParser('[0.5, 12345678901234567]')).to.not.equal(JSON.parse);
      expect(jsonParser('{"a":-12345678901234567}')).to.not.equal(JSON.parse);
    });
  });

  describe('reading', () => {
    it('reads integers beyond ±(2^53 - 1) as exact bigints and every other integer as a number', () => {
      const text =
        '{"a":9007199254740993,"b":[-9223372036854775808,9223372036854775807],"c":9007199254740991,' +
        '"d":1234567890123456,"e":18446744073709551616,"f":-0,"g":9007199254740992}';
      expect(fromJson(text)).to.deep.equal({
        a: 9007199254740993n,
        b: [-(2n ** 63n), 2n ** 63n - 1n],
        c: 9007199254740991,
        d: 1234567890123456,
        e: 2n ** 64n,
        f: -0,
        g: 2n ** 53n,
      });
    });

    it('reads a number with a fraction or an exponent as a float, however many digits it has', () => {
      expect(fromJson('[9007199254740993.0,9.007199254740993e15,0.12345678901234567890]')).to.deep.equal([
        2 ** 53,
        2 ** 53,
        0.12345678901234568,
      ]);
    });

    it('takes the bare digits JS writes for a whole float beyond 2^53 as that exact integer', () => {
      expect(fromJson(JSON.stringify([2 ** 60, 1e20, 1e21]))).to.deep.equal([
        1152921504606847000n,
        100000000000000000000n,
        1e21,
      ]);
    });

    it('leaves digits inside strings alone', () => {
      expect(fromJson('{"phone":"12345678901234567890","n":1}')).to.deep.equal({ phone: '12345678901234567890', n: 1 });
    });

    it('reads seeded random documents exactly as JSON.parse does', () => {
      const rand = mulberry32(8);
      for (let i = 0; i < 500; i++) {
        const text = JSON.stringify(randomDoc(rand));
        expect(parseExactJson(text), text).to.deep.equal(JSON.parse(text));
        expect(parseExactJson(` \n${text}\t `)).to.deep.equal(JSON.parse(text));
      }
    });

    it('keeps the last of duplicate keys, as JSON.parse does', () => {
      expect(parseExactJson('{"a":1,"a":12345678901234567}')).to.deep.equal({ a: 12345678901234567n });
    });

    it('refuses a __proto__ key on both paths, however it is spelled', () => {
      for (const text of [
        '{"__proto__":{"x":1}}',
        '{"a":[{"\\u005f_proto__":1}]}',
        '{"__proto__":1,"n":12345678901234567}',
        '[{"\\u005f_proto__":12345678901234567}]',
      ]) {
        const err = errorOf(() => fromJson(text));
        expect(err, text).to.be.instanceOf(InvalidInput);
        expect((err as Error).message).to.equal("Forbidden key '__proto__' in body");
      }
    });

    it('throws a SyntaxError with a position for every text JSON.parse refuses', () => {
      const bad = [
        '{',
        '{"a":}',
        '[1,]',
        '01',
        '{"a":1}x',
        '"abc',
        '"a\\x"',
        '-',
        '1.',
        'tru',
        '{"a" 1}',
        '[1 2]',
        '"\u0001"',
        '{"a":1,}',
        "{'a':1}",
        'NaN',
        '+1',
        '.5',
        '\ufeff1',
        '[1]]',
        '',
      ];
      for (const text of bad) {
        expect(
          errorOf(() => JSON.parse(text)),
          text,
        ).to.be.instanceOf(SyntaxError);
        const err = errorOf(() => parseExactJson(text));
        expect(err, text).to.be.instanceOf(SyntaxError);
        expect((err as Error).message, text).to.match(/position \d+|end of JSON input/);
        expect(
          errorOf(() => fromJson(`[${text},12345678901234567]`)),
          text,
        ).to.be.instanceOf(SyntaxError);
      }
    });

    it('refuses nesting deeper than MAX_JSON_DEPTH and integers longer than MAX_INTEGER_DIGITS', () => {
      const deep = '['.repeat(MAX_JSON_DEPTH + 1) + ']'.repeat(MAX_JSON_DEPTH + 1);
      expect(() => parseExactJson(deep)).to.throw(InvalidInput, 'Body nested too deeply');
      expect(parseExactJson('['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH))).to.be.an('array');
      const long = '9'.repeat(MAX_INTEGER_DIGITS + 1);
      expect(() => fromJson(`{"n":${long}}`)).to.throw(
        InvalidInput,
        `Integer of ${MAX_INTEGER_DIGITS + 1} digits at position 5`,
      );
      expect(fromJson(`[${'9'.repeat(MAX_INTEGER_DIGITS)}]`)).to.deep.equal([BigInt('9'.repeat(MAX_INTEGER_DIGITS))]);
    });
  });

  describe('writing', () => {
    it('writes bigints with their exact digits, at the top and nested', () => {
      expect(toJson(2n ** 63n - 1n)).to.equal('9223372036854775807');
      expect(toJson({ a: 9007199254740993n, b: [-(2n ** 63n), 1.5], c: { d: 2n ** 64n } })).to.equal(
        '{"a":9007199254740993,"b":[-9223372036854775808,1.5],"c":{"d":18446744073709551616}}',
      );
    });

    it('writes binary as arrays of byte numbers, alone or beside a bigint', () => {
      expect(toJson({ b: Buffer.from([1, 2]) })).to.equal('{"b":[1,2]}');
      expect(toJson({ b: new Uint8Array([3]), n: 9007199254740993n })).to.equal('{"b":[3],"n":9007199254740993}');
    });

    it('writes seeded random documents exactly as JSON.stringify does', () => {
      const rand = mulberry32(11);
      for (let i = 0; i < 500; i++) {
        const doc = randomDoc(rand);
        expect(writeExactJson(doc)).to.equal(JSON.stringify(doc));
      }
      const odd = {
        u: undefined,
        f: () => 1,
        list: [undefined, () => 1, NaN, Infinity],
        at: new Date(0),
        nested: { toJSON: (k: string) => `key ${k}` },
      };
      expect(writeExactJson(odd)).to.equal(JSON.stringify(odd));
      expect(writeExactJson(undefined)).to.equal(undefined);
    });

    it('refuses a circular structure with a TypeError', () => {
      const loop: Record<string, unknown> = { n: 1n };
      loop.self = loop;
      expect(() => toJson(loop)).to.throw(TypeError, /circular/);
    });

    it('round-trips what it writes through the reader', () => {
      const doc = { a: 9007199254740993n, b: [-(2n ** 63n), 2n ** 63n - 1n, 0.5, 'x'], c: { d: null, e: true } };
      expect(fromJson(toJson(doc))).to.deep.equal(doc);
    });
  });
});
