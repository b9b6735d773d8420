/**
 * A MessagePack reader for the storage codec's own payloads (log batches,
 * snapshot frames, shipped batches): the values msgpackr decodes from them
 * (maps as plain objects, a `__proto__` key read as `__proto_`, 64-bit
 * integers as bigints, `Tagged` from extension 0x45, `undefined` from
 * extension 0), built in one pass as the state keeps them, where msgpackr
 * plus a walk over its result made each record twice:
 * - a map is made by shapedObject (values/record-object.ts): sized for
 *   exactly its fields, with no property array beside it;
 * - a short string is taken from the shared table (values/own-string.ts)
 *   without being made when an equal one is there; a long one is made once
 *   from the bytes (flat: it owns its text), and a long string read twice in
 *   a row (a record's id as the key, then in its fields) is one string;
 * - binary data is copied out of the payload, so nothing keeps a whole
 *   segment or snapshot file alive;
 * - inside a record's fields, a short list of short strings is shared
 *   between records, frozen (values/shared-arrays.ts).
 * What it does not read (other extensions, non-string map keys, a damaged
 * payload) makes `unpackStored` answer NOT_DECODED, and the caller decodes
 * the payload with msgpackr instead, with its results and its errors.
 */
import {
  isNumberList,
  isShareableArray,
  MAX_SHARED_LENGTH,
  sharedArray,
  sharedAscii,
  sharedString,
  shapedObject,
  storedNumbers,
  Tagged,
  utf8Text,
} from '../values/index.js';

/** unpackStored's answer for a payload it leaves to msgpackr. */
export const NOT_DECODED: unique symbol = Symbol('not decoded');

const TAGGED_EXT = 0x45;
const UNDEFINED_EXT = 0;
/** Thrown (never escaping this file) on anything this reader leaves to msgpackr. */
const UNSUPPORTED = new Error('left to msgpackr');

const EMPTY = Buffer.alloc(0);
let src: Buffer = EMPTY;
let view: DataView<ArrayBufferLike> = new DataView(EMPTY.buffer, 0, 0);
let pos = 0;
let end = 0;
/** Map nesting: each level collects its keys and values in lists reused from map to map. */
let depth = 0;
/** Maps and arrays open around the value being read. */
let nesting = 0;
/**
 * Containers around a value inside a record's fields, or deeper: a batch, its
 * effects, a put, its fields (a snapshot frame, its rows, a row, the fields).
 */
const RECORD_NESTING = 4;
const keyLists: string[][] = [];
const valueLists: unknown[][] = [];
/** The last long string made, where its bytes were and how many. */
let lastLong = '';
let lastLongAt = -1;
let lastLongBytes = 0;

/** The value in `payload`, or NOT_DECODED when it holds something this reader leaves to msgpackr. */
export function unpackStored(payload: Uint8Array): unknown {
  src = Buffer.isBuffer(payload) ? payload : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  view = new DataView(src.buffer, src.byteOffset, src.byteLength);
  pos = 0;
  end = src.length;
  depth = nesting = 0;
  lastLongBytes = -1;
  try {
    const value = read();
    return pos === end ? value : NOT_DECODED;
  } catch {
    return NOT_DECODED;
  } finally {
    src = EMPTY;
    view = new DataView(EMPTY.buffer, 0, 0);
    lastLong = '';
    for (const values of valueLists) values.fill(undefined);
  }
}

function need(bytes: number): void {
  if (pos + bytes > end) throw UNSUPPORTED;
}

function read(): unknown {
  need(1);
  const token = src[pos++]!;
  if (token < 0x80) return token;
  if (token < 0x90) return readMap(token - 0x80);
  if (token < 0xa0) return readArray(token - 0x90);
  if (token < 0xc0) return readString(token - 0xa0);
  if (token >= 0xe0) return token - 0x100;
  let value: number;
  switch (token) {
    case 0xc0:
      return null;
    case 0xc2:
      return false;
    case 0xc3:
      return true;
    case 0xc4:
      return readBin(readLength(1));
    case 0xc5:
      return readBin(readLength(2));
    case 0xc6:
      return readBin(readLength(4));
    case 0xca:
      need(4);
      value = view.getFloat32(pos);
      pos += 4;
      return value;
    case 0xcb:
      need(8);
      value = view.getFloat64(pos);
      pos += 8;
      return value;
    case 0xcc:
      return readLength(1);
    case 0xcd:
      return readLength(2);
    case 0xce:
      return readLength(4);
    case 0xcf: {
      need(8);
      const big = view.getBigUint64(pos);
      pos += 8;
      return big;
    }
    case 0xd0:
      need(1);
      return view.getInt8(pos++);
    case 0xd1:
      need(2);
      value = view.getInt16(pos);
      pos += 2;
      return value;
    case 0xd2:
      need(4);
      value = view.getInt32(pos);
      pos += 4;
      return value;
    case 0xd3: {
      need(8);
      const big = view.getBigInt64(pos);
      pos += 8;
      return big;
    }
    case 0xd4:
      return readFixExt1();
    case 0xd9:
      return readString(readLength(1));
    case 0xda:
      return readString(readLength(2));
    case 0xdb:
      return readString(readLength(4));
    case 0xdc:
      return readArray(readLength(2));
    case 0xdd:
      return readArray(readLength(4));
    case 0xde:
      return readMap(readLength(2));
    case 0xdf:
      return readMap(readLength(4));
    default:
      throw UNSUPPORTED;
  }
}

/** An unsigned big-endian integer of `bytes` bytes (a length or a uint). */
function readLength(bytes: 1 | 2 | 4): number {
  need(bytes);
  const value = bytes === 1 ? src[pos]! : bytes === 2 ? view.getUint16(pos) : view.getUint32(pos);
  pos += bytes;
  return value;
}

function readFixExt1(): unknown {
  need(2);
  const type = src[pos]!;
  // The type and one data byte: all of undefined; a filler before the `[type, value]` pair of a Tagged.
  pos += 2;
  if (type === UNDEFINED_EXT) return undefined;
  if (type !== TAGGED_EXT) throw UNSUPPORTED;
  const pair = read();
  if (!Array.isArray(pair)) throw UNSUPPORTED;
  return new Tagged(pair[0], pair[1]);
}

function readArray(length: number): readonly unknown[] {
  if (length > end - pos) throw UNSUPPORTED;
  const array = new Array<unknown>(length);
  const outside = nesting++;
  for (let i = 0; i < length; i++) array[i] = read();
  nesting = outside;
  if (outside < RECORD_NESTING) return array;
  // Inside a record's fields (a batch's or a snapshot's), a list of short strings is shared, frozen, and a list of
  // numbers is held as doubles: V8 makes this function's arrays as the most general it has seen them become, whose
  // numbers are each a heap object (values/stored-array.ts).
  if (isShareableArray(array)) return sharedArray(array);
  return isNumberList(array) ? storedNumbers(array) : array;
}

function readMap(length: number): Record<string, unknown> {
  if (length > (end - pos) >> 1) throw UNSUPPORTED;
  const level = depth++;
  const outside = nesting++;
  const keys = (keyLists[level] ??= []);
  const values = (valueLists[level] ??= []);
  for (let i = 0; i < length; i++) {
    const key = readKey(keys[i]);
    keys[i] = key === '__proto__' ? '__proto_' : key;
    values[i] = read();
  }
  depth = level;
  nesting = outside;
  return shapedObject(keys, values, length);
}

/**
 * A map key. `expected` is the key the last map of this level had at this
 * place: records of a collection repeat their keys in order, so most keys
 * are that string again, read by comparing the bytes (no hash, no new string).
 */
function readKey(expected: string | undefined): string {
  need(1);
  const token = src[pos++]!;
  let length: number;
  if (token >= 0xa0 && token < 0xc0) length = token - 0xa0;
  else if (token === 0xd9) length = readLength(1);
  else if (token === 0xda) length = readLength(2);
  else if (token === 0xdb) length = readLength(4);
  else throw UNSUPPORTED;
  if (expected !== undefined && expected.length === length && pos + length <= end && isAsciiOf(expected, pos)) {
    pos += length;
    return expected;
  }
  return readString(length);
}

/** True when the bytes at `at` are `text`, all ASCII. */
function isAsciiOf(text: string, at: number): boolean {
  for (let i = 0; i < text.length; i++) {
    const byte = src[at + i]!;
    if (byte > 0x7f || byte !== text.charCodeAt(i)) return false;
  }
  return true;
}

function readString(length: number): string {
  need(length);
  const start = pos;
  pos += length;
  if (length <= MAX_SHARED_LENGTH) return sharedAscii(src, start, pos) ?? sharedString(utf8Text(src, start, pos));
  if (lastLongBytes === length && sameBytes(lastLongAt, start, length)) return lastLong;
  lastLongAt = start;
  lastLongBytes = length;
  lastLong = utf8Text(src, start, pos);
  return lastLong;
}

function sameBytes(a: number, b: number, length: number): boolean {
  for (let i = 0; i < length; i++) if (src[a + i] !== src[b + i]) return false;
  return true;
}

function readBin(length: number): Buffer {
  need(length);
  const bytes = Buffer.from(src.subarray(pos, pos + length));
  pos += length;
  return bytes;
}
