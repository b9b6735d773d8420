/**
 * MessagePack request bodies: every string comes back equal to what was
 * sent (the decoder copies long ones so a stored record does not keep the
 * body's decoded text alive), in maps, arrays, typed extension values and
 * in bodies that spell `__proto__` (decoded through Maps, then refused).
 * JSON bodies: ASCII text (read as Latin-1, a copy) and UTF-8 text read
 * the same as Node's UTF-8 decoder reads them.
 */
import { expect } from 'chai';
import { Packr } from 'msgpackr';
import { decodeBody } from '../../../lib/http/wire/codec.js';
import { Tagged } from '../../../lib/engine/index.js';
import { encodePayload } from '../../../lib/engine/storage/codec.js';

const MSGPACK = 'application/msgpack';
const packr = new Packr({ useRecords: false });
const texts = [
  '',
  'short',
  'x'.repeat(12),
  'y'.repeat(13),
  'z'.repeat(300),
  'Zoë Ångström, 東京 🚀 and more',
  'user.name+tag@example.com',
];

describe('http/codec MessagePack strings', () => {
  it('decodes strings of every length, nested, equal to what was sent', () => {
    const body = { inserts: texts.map((t, i) => ({ data: { id: `client-chosen-id-${i}`, t, list: [t, { t }] } })) };
    expect(decodeBody(packr.pack(body), MSGPACK)).to.deep.equal(body);
  });

  it('leaves a typed extension value (frozen) whole', () => {
    const body = {
      when: new Tagged('DateTime', '2025-06-01T12:34:56.789+00:00'),
      note: 'a note long enough to be a slice',
    };
    const back = decodeBody(encodePayload(body), MSGPACK) as typeof body;
    expect(back).to.deep.equal(body);
    expect(Object.isFrozen(back.when)).to.equal(true);
  });

  it('checks every member: nesting deeper than 100 levels, the byte 0xc1, 64-bit ints made numbers', () => {
    const nest = (levels: number): unknown => (levels === 0 ? 1 : [nest(levels - 1)]);
    expect(() => decodeBody(packr.pack(nest(100)), MSGPACK), 'a number at depth 100').not.to.throw();
    expect(() => decodeBody(packr.pack(nest(101)), MSGPACK), 'a number at depth 101').to.throw(
      'Body nested too deeply',
    );
    expect(() => decodeBody(packr.pack({ a: [nest(100)] }), MSGPACK)).to.throw('Body nested too deeply');
    expect(() => decodeBody(Buffer.from([0x82, 0xa1, 0x61, 0x01, 0xa1, 0x62, 0xc1]), MSGPACK)).to.throw('0xc1');
    const int64 = Buffer.from([
      0x82, 0xa1, 0x61, 0xd3, 0, 0, 0, 0, 0, 0, 0, 7, 0xa1, 0x62, 0x92, 0xcf, 0, 0, 0, 0, 0, 0, 0, 9, 0xc3,
    ]);
    expect(decodeBody(int64, MSGPACK)).to.deep.equal({ a: 7, b: [9, true] });
  });

  it('still refuses a __proto__ key, and decodes other strings in such a body', () => {
    const bad = packr.pack({ a: 'a string long enough to copy', nested: { ['__proto__']: 1 } });
    expect(() => decodeBody(bad, MSGPACK)).to.throw(/__proto__/);
    const fine = { a: 'mentions __proto__ in a value only', b: ['another long string value'] };
    expect(decodeBody(packr.pack(fine), MSGPACK)).to.deep.equal(fine);
  });
});

describe('http/codec JSON text', () => {
  const JSON_TYPE = 'application/json';

  it('reads ASCII and UTF-8 bodies alike, strings of every length equal to what was sent', () => {
    const ascii = { inserts: [{ data: { t: 'plain', v: Array.from({ length: 384 }, (_, i) => Math.sin(i)) } }] };
    expect(decodeBody(Buffer.from(JSON.stringify(ascii)), JSON_TYPE)).to.deep.equal(ascii);
    const body = { inserts: texts.map((t, i) => ({ data: { id: `id-${i}`, t, list: [t, { t }] } })) };
    expect(decodeBody(Buffer.from(JSON.stringify(body)), JSON_TYPE)).to.deep.equal(body);
  });

  it('reads bytes that are not UTF-8 as the UTF-8 decoder does (replacement characters), and escapes as JSON does', () => {
    const raw = Buffer.concat([Buffer.from('{"t":"a'), Buffer.from([0xff, 0xc3]), Buffer.from('b"}')]);
    expect(decodeBody(raw, JSON_TYPE)).to.deep.equal({ t: 'a\ufffd\ufffdb' });
    expect(decodeBody(Buffer.from('{"t":"\\u00e9\\ud83d\\ude80"}'), JSON_TYPE)).to.deep.equal({ t: 'é🚀' });
  });
});
