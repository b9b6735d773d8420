/**
 * The MessagePack of `recordToWire(fields, opts)`, written directly for the
 * common record of top-level strings, numbers, booleans and nulls (a point
 * read's answer with `Accept: application/msgpack`), without building the
 * wire object first. The bytes are the ones the HTTP answer packer (msgpackr
 * with `useRecords: false`) writes for that wire object, so clients see no
 * difference: every map is a map16, integers of up to 32 bits take the
 * smallest form, other numbers a float64, a string's header follows its UTF-8
 * length (short strings encoded by hand, lone surrogates as three bytes,
 * longer ones by node's UTF-8 writer). A seeded spec compares the two.
 * Undefined for any other record: the caller packs the wire object.
 */
import { BARE_FIELDS, SCALAR_TYPES, scalarType, type OutputOptions, type ScalarType } from './to-wire.js';
import type { Fields, Value } from '../tagged.js';

const MAP16 = 0xde;

export function recordMsgpack(fields: Fields, opts: OutputOptions): Buffer | undefined {
  const keys = Object.keys(fields);
  if (keys.length > 0xffff) return undefined;
  // Room enough for any record of these scalars: a UTF-16 unit takes at most 3 bytes of UTF-8.
  let room = 3;
  for (const key of keys) {
    const value = fields[key]!;
    if (value !== null && typeof value === 'object') return undefined;
    if (typeof value === 'bigint') return undefined;
    room += 5 + key.length * 3 + WRAPPER_ROOM + (typeof value === 'string' ? 5 + value.length * 3 : 9);
  }
  const out = Buffer.allocUnsafe(room);
  out[0] = MAP16;
  out[1] = keys.length >> 8;
  out[2] = keys.length & 0xff;
  let at = 3;
  for (const key of keys) {
    at = writeKey(out, at, key);
    const value = fields[key]!;
    if (opts.typed && !BARE_FIELDS.has(key)) {
      const prefix = WRAPPERS[scalarType(value)!];
      out.set(prefix, at);
      at += prefix.length;
    }
    at = writeScalar(out, at, value);
  }
  return out.subarray(0, at);
}

/** Each typed wrapper's bytes up to its value: a map16 of two, `type` and its name, then the `value` key. */
const WRAPPERS = Object.fromEntries(
  SCALAR_TYPES.map((type) => {
    const parts = [Buffer.from([MAP16, 0, 2]), fixstr('type'), fixstr(type), fixstr('value')];
    return [type, Buffer.concat(parts)];
  }),
) as Readonly<Record<ScalarType, Buffer>>;
const WRAPPER_ROOM = Math.max(...Object.values(WRAPPERS).map((b) => b.length));

function fixstr(ascii: string): Buffer {
  return Buffer.concat([Buffer.from([0xa0 | ascii.length]), Buffer.from(ascii, 'latin1')]);
}

/** Field names' bytes, kept for the names seen (bounded), so a read does not encode the same names again. */
const KEY_BYTES = new Map<string, Buffer>();
const KEY_BYTES_LIMIT = 10_000;

function writeKey(out: Buffer, at: number, key: string): number {
  let bytes = KEY_BYTES.get(key);
  if (bytes === undefined) {
    const scratch = Buffer.alloc(5 + key.length * 3);
    bytes = Buffer.from(scratch.subarray(0, writeString(scratch, 0, key)));
    if (KEY_BYTES.size < KEY_BYTES_LIMIT) KEY_BYTES.set(key, bytes);
  }
  out.set(bytes, at);
  return at + bytes.length;
}

function writeScalar(out: Buffer, at: number, value: Value): number {
  if (value === null) {
    out[at] = 0xc0;
    return at + 1;
  }
  switch (typeof value) {
    case 'string':
      return writeString(out, at, value);
    case 'boolean':
      out[at] = value ? 0xc3 : 0xc2;
      return at + 1;
    case 'number':
      return writeNumber(out, at, value);
    default:
      throw new Error(`recordMsgpack: not a scalar (${typeof value})`);
  }
}

function writeNumber(out: Buffer, at: number, number: number): number {
  if (number >>> 0 === number) {
    if (number < 0x80) {
      out[at] = number;
      return at + 1;
    }
    if (number < 0x100) {
      out[at] = 0xcc;
      out[at + 1] = number;
      return at + 2;
    }
    if (number < 0x10000) {
      out[at] = 0xcd;
      out.writeUInt16BE(number, at + 1);
      return at + 3;
    }
    out[at] = 0xce;
    out.writeUInt32BE(number, at + 1);
    return at + 5;
  }
  if (number >> 0 === number) {
    if (number >= -0x20) {
      out[at] = 0x100 + number;
      return at + 1;
    }
    if (number >= -0x80) {
      out[at] = 0xd0;
      out[at + 1] = number + 0x100;
      return at + 2;
    }
    if (number >= -0x8000) {
      out[at] = 0xd1;
      out.writeInt16BE(number, at + 1);
      return at + 3;
    }
    out[at] = 0xd2;
    out.writeInt32BE(number, at + 1);
    return at + 5;
  }
  out[at] = 0xcb;
  out.writeDoubleBE(number, at + 1);
  return at + 9;
}

/** A string as msgpackr writes it: the header sized by its UTF-8 length, room first guessed from its UTF-16 length. */
function writeString(out: Buffer, at: number, text: string): number {
  const guess = text.length < 0x20 ? 1 : text.length < 0x100 ? 2 : text.length < 0x10000 ? 3 : 5;
  const bytes = text.length < 0x40 ? writeShortUtf8(out, at + guess, text) : out.write(text, at + guess, 'utf8');
  const header = bytes < 0x20 ? 1 : bytes < 0x100 ? 2 : bytes < 0x10000 ? 3 : 5;
  if (header > guess) out.copyWithin(at + header, at + guess, at + guess + bytes);
  if (header === 1) out[at] = 0xa0 | bytes;
  else if (header === 2) {
    out[at] = 0xd9;
    out[at + 1] = bytes;
  } else if (header === 3) {
    out[at] = 0xda;
    out.writeUInt16BE(bytes, at + 1);
  } else {
    out[at] = 0xdb;
    out.writeUInt32BE(bytes, at + 1);
  }
  return at + header + bytes;
}

/**
 * UTF-8 of a short string by hand, as msgpackr encodes it (a lone surrogate as its own three bytes); the byte count.
 */
function writeShortUtf8(out: Buffer, at: number, text: string): number {
  let position = at;
  for (let i = 0; i < text.length; i++) {
    let order = text.charCodeAt(i);
    if (order < 0x80) {
      out[position++] = order;
    } else if (order < 0x800) {
      out[position++] = (order >> 6) | 0xc0;
      out[position++] = (order & 0x3f) | 0x80;
    } else if ((order & 0xfc00) === 0xd800 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      order = 0x10000 + ((order & 0x03ff) << 10) + (text.charCodeAt(++i) & 0x03ff);
      out[position++] = (order >> 18) | 0xf0;
      out[position++] = ((order >> 12) & 0x3f) | 0x80;
      out[position++] = ((order >> 6) & 0x3f) | 0x80;
      out[position++] = (order & 0x3f) | 0x80;
    } else {
      out[position++] = (order >> 12) | 0xe0;
      out[position++] = ((order >> 6) & 0x3f) | 0x80;
      out[position++] = (order & 0x3f) | 0x80;
    }
  }
  return position - at;
}
