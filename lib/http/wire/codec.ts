/**
 * Content negotiation: request bodies are MessagePack or JSON as their
 * `Content-Type` says (content-type.ts); an empty body is `{}`.
 * Responses are MessagePack when `Accept` asks for it, else JSON, and are
 * gzipped when the client accepts gzip and the body is worth compressing.
 *
 * A MessagePack body that says nothing JSON cannot is rewritten as JSON text
 * by the native addon (msgpack-json.ts) and read by JSON.parse; any other
 * goes to msgpackr. A large body decodes over two turns of the event loop
 * (decodeLargeBody).
 *
 * Decoding rejects `__proto__` keys anywhere, so nothing downstream can be
 * polluted through a decoded object. msgpackr silently renames a `__proto__`
 * map key to `__proto_`, so a MessagePack body that spells the key at all is
 * decoded to Maps instead, where the key is still visible, and rejected.
 *
 * No number is changed: JSON integers beyond ±(2^53 - 1) and MessagePack
 * 64-bit ints decode to exact bigints (safe ones to numbers), and the engine
 * keeps them or refuses them, naming the field; responses write them back
 * with their exact digits, or as MessagePack 64-bit ints.
 */
import { isAscii } from 'node:buffer';
import { Readable, pipeline } from 'node:stream';
import { constants as zlibConstants, createGzip, deflateRawSync, gzipSync } from 'node:zlib';
import { C1, Packr, Unpackr, type Options } from 'msgpackr';
import { InvalidInput } from '../../errors.js';
import { bodyFormat } from './content-type.js';
import { integerValue, jsonParser, ownString, toJson, yieldSlicedWork } from '../../engine/index.js';
import { PackedAnswer, RecordsAnswer, unwrapRecord, WireRecord } from './wire-record.js';
import { RecordList } from './record-list.js';
import { FileAnswer } from './file-answer.js';
import { msgpackAsJson } from './msgpack-json.js';

// Every 64-bit int decodes as a BigInt ('auto' would turn ±2^53 into a float); the walks below make safe ones numbers.
const INT64: Pick<Options, 'int64AsType'> = { int64AsType: 'bigint' };
const requestUnpackr = new Unpackr({ useRecords: false, mapsAsObjects: true, ...INT64 });
const mapUnpackr = new Unpackr({ useRecords: false, mapsAsObjects: false, ...INT64 });
const PROTO_BYTES = Buffer.from('__proto__', 'utf8');
const responsePackr = new Packr({ useRecords: false, moreTypes: false, encodeUndefinedAsNil: true });

export const MSGPACK = 'application/msgpack';
const GZIP_MIN_BYTES = 1024;
/**
 * Above this, gzip at its fastest level: a large answer (a 10,000-record
 * batch's ids, a big find) compresses to about the same size at a third of
 * the time the default level takes, time the event loop is held for.
 */
const GZIP_FAST_BYTES = 64 * 1024;

export function isMsgpack(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  return mediaType === MSGPACK || mediaType === 'application/x-msgpack' || mediaType === 'application/vnd.msgpack';
}

const MENTIONS_MSGPACK = /msgpack/i;

/** The last Accept header wantsMsgpack was asked about, and its answer: a client sends the same one every time. */
let lastAccept: string | undefined;
let lastWantsMsgpack = false;

export function wantsMsgpack(accept: string | undefined): boolean {
  if (!accept) return false;
  if (accept === lastAccept) return lastWantsMsgpack;
  // Most clients ask for JSON: one scan answers them without splitting the list.
  const wants = MENTIONS_MSGPACK.test(accept) && accept.split(',').some((a) => isMsgpack(a));
  lastAccept = accept;
  lastWantsMsgpack = wants;
  return wants;
}

export function decodeBody(raw: Buffer | undefined, contentType: string | undefined): unknown {
  return bodyParser(raw, contentType)();
}

/**
 * decodeBody() of a large body in two turns of the event loop: the
 * conversion to text and the scans (or the MessagePack rewrite) in this
 * one, JSON.parse in the next, each a few milliseconds for a large batch.
 */
export async function decodeLargeBody(raw: Buffer, contentType: string | undefined): Promise<unknown> {
  const parse = bodyParser(raw, contentType);
  await yieldSlicedWork();
  return parse();
}

/** Decodes `raw` up to its JSON.parse, which the returned function runs (and which is all it does). */
function bodyParser(raw: Buffer | undefined, contentType: string | undefined): () => unknown {
  if (!raw || raw.length === 0) return () => ({});
  if (bodyFormat(contentType) === 'msgpack') {
    // JSON.parse makes the objects at their final size, with flat strings (msgpack-json.ts); a body
    // spelling `__proto__` never goes that way, so that its key is seen and refused.
    const text = raw.includes(PROTO_BYTES) ? undefined : msgpackAsJson(raw);
    if (text !== undefined) return () => JSON.parse(text);
    const value = unpackBody(raw);
    return () => value;
  }
  const text = bodyText(raw);
  if (text.trim() === '') return () => ({});
  const parse = jsonParser(text);
  return () => {
    try {
      return parse(text);
    } catch (err) {
      if (err instanceof InvalidInput) throw err;
      throw new InvalidInput(`Malformed JSON body: ${(err as Error).message}`);
    }
  };
}

/**
 * The text of a JSON body. Node's UTF-8 decoder takes about 3 ns a byte
 * (13 ms for a 3.8 MB batch of 500 vectors); ASCII, which nearly every JSON
 * body is, reads the same as Latin-1, which is a copy (0.6 ms), and isAscii
 * is a vectorized scan (0.05 ms).
 */
function bodyText(raw: Buffer): string {
  return isAscii(raw) ? raw.toString('latin1') : raw.toString('utf8');
}

/** A MessagePack body decoded by msgpackr and checked (every body the rewrite does not take; specs compare the two). */
export function unpackBody(raw: Buffer): unknown {
  const spellsProto = raw.includes(PROTO_BYTES);
  let value: unknown;
  try {
    value = (spellsProto ? mapUnpackr : requestUnpackr).unpack(raw);
  } catch (err) {
    throw new InvalidInput(`Malformed MessagePack body: ${(err as Error).message}`);
  }
  if (spellsProto) return mapsToObjects(value, 0);
  return checkDecoded(value, 0);
}

/** msgpackr decodes the never-used byte 0xc1 to a marker object instead of failing. */
const neverUsedByte = () => new InvalidInput('Malformed MessagePack body: the never-used byte 0xc1');

/**
 * Rejects `__proto__` keys and the byte 0xc1 in a decoded body, and turns
 * 64-bit ints within ±(2^53 - 1) into numbers, in place (the body is fresh);
 * returns the body. A bigint beyond that range is left for the engine.
 * Strings get their own storage (ownString): msgpackr hands out slices of one
 * decoded text, which a stored record would otherwise keep alive whole.
 */
function checkDecoded(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return ownString(value);
  if (typeof value === 'bigint') return integerValue(value);
  if (value === null || typeof value !== 'object') return value;
  checkContainer(value, depth);
  return value;
}

/**
 * checkDecoded() of a decoded array, map or extension value, in place. A
 * member is stored back only when it is a string (its copy) or an int made
 * a number, and only a member that is an object is walked (a store and a
 * call for every member is a measurable share of decoding a large body).
 */
function checkContainer(container: object, depth: number): void {
  if (depth > 100) throw tooDeep();
  if (container === C1) throw neverUsedByte();
  if (container instanceof Uint8Array) return;
  // Only an extension value (a frozen Tagged) is frozen: its reader copied its strings, and a 64-bit int has no
  // business in it.
  const frozen = Object.isFrozen(container);
  if (Array.isArray(container)) {
    for (let i = 0; i < container.length; i++) {
      if (depth >= 100) throw tooDeep();
      const was: unknown = container[i];
      if (typeof was === 'object' && was !== null) checkContainer(was, depth + 1);
      else if (typeof was === 'string') {
        if (!frozen) container[i] = ownString(was);
      } else if (typeof was === 'bigint') {
        if (frozen) throw int64InExtension();
        container[i] = integerValue(was);
      }
    }
    return;
  }
  const holder = container as Record<string, unknown>;
  // for-in over a decoded map (its prototype is Object.prototype, which has no enumerable members): no key list per
  // object.
  for (const key in holder) {
    if (key === '__proto__') throw new InvalidInput("Forbidden key '__proto__' in body");
    if (depth >= 100) throw tooDeep();
    const was = holder[key];
    if (typeof was === 'object' && was !== null) checkContainer(was, depth + 1);
    else if (typeof was === 'string') {
      if (!frozen) holder[key] = ownString(was);
    } else if (typeof was === 'bigint') {
      if (frozen) throw int64InExtension();
      holder[key] = integerValue(was);
    }
  }
}

/** Deeper than 100 levels: the body (depth 0) or any member of a container at depth 100. */
const tooDeep = () => new InvalidInput('Body nested too deeply');

const int64InExtension = () => new InvalidInput('Malformed MessagePack body: a 64-bit int inside an extension value');

/** Converts the Maps of a MessagePack body to plain objects, rejecting `__proto__` keys. */
function mapsToObjects(value: unknown, depth: number): unknown {
  if (depth > 100) throw tooDeep();
  if (value === C1) throw neverUsedByte();
  if (typeof value === 'bigint') return integerValue(value);
  if (typeof value === 'string') return ownString(value);
  if (Array.isArray(value)) return value.map((member) => mapsToObjects(member, depth + 1));
  if (!(value instanceof Map)) return value;
  const out: Record<string, unknown> = {};
  for (const [rawKey, member] of value) {
    if (typeof rawKey !== 'string' && typeof rawKey !== 'number') {
      throw new InvalidInput('MessagePack map keys must be strings');
    }
    const key = String(rawKey);
    if (key === '__proto__') throw new InvalidInput("Forbidden key '__proto__' in body");
    out[key] = mapsToObjects(member, depth + 1);
  }
  return out;
}

/** JSON with binary as arrays of byte numbers (protocol.md 1.4 rule 6); one implementation, in the engine. */
export { toJson };

/**
 * Large answers use the fastest level: about the same size here, a third of
 * the time. One that barely compresses (a batch's random ids: an 8 KiB
 * sample keeps more than half its size) is only entropy-coded, which gets
 * nearly as much of it in a third of the time; matching repeats is what costs.
 */
function gzipBody(body: Buffer): Buffer {
  if (body.length < GZIP_FAST_BYTES) return gzipSync(body);
  const sample = deflateRawSync(body.subarray(0, GZIP_SAMPLE_BYTES), { level: zlibConstants.Z_BEST_SPEED });
  const strategy =
    sample.length > GZIP_SAMPLE_BYTES / 2 ? zlibConstants.Z_HUFFMAN_ONLY : zlibConstants.Z_DEFAULT_STRATEGY;
  return gzipSync(body, { level: zlibConstants.Z_BEST_SPEED, strategy });
}

const GZIP_SAMPLE_BYTES = 8 * 1024;

function jsonText(value: unknown): string {
  if (value instanceof WireRecord || value instanceof RecordList || value instanceof RecordsAnswer) return value.json();
  return toJson(value);
}

/**
 * `body`: bytes, or JSON text that node writes as UTF-8 (no Buffer made for
 * it). A long answer comes as `chunks` instead (body empty), for the
 * transport to write with back-pressure, without a Content-Length.
 */
export interface Encoded {
  body: Buffer | string;
  /** A record's MessagePack answer whose bytes are `body` (HttpResponse.packed). */
  packed?: PackedAnswer;
  contentType: string;
  gzip: boolean;
  chunks?: AsyncIterable<Buffer | string>;
  /** Headers the answer adds (a FileAnswer's). */
  headers?: Readonly<Record<string, string>>;
}

/**
 * `value` may be a WireRecord (a stored record), whose JSON is written
 * straight from its fields when it can be, or a RecordList (a find's
 * records), streamed when it is long (record-list.ts), or a FileAnswer, sent
 * as it is.
 */
export function encodeBody(value: unknown, accept: string | undefined, acceptEncoding: string | undefined): Encoded {
  if (value instanceof FileAnswer)
    return { body: '', contentType: value.contentType, gzip: false, chunks: value.chunks, headers: value.headers };
  const acceptsGzip = !!acceptEncoding && /\bgzip\b/i.test(acceptEncoding);
  if (value instanceof RecordList && value.long) return streamedList(value, wantsMsgpack(accept), acceptsGzip);
  if (wantsMsgpack(accept)) {
    const direct =
      value instanceof WireRecord ? value.directMsgpack() : value instanceof RecordList ? value.msgpack() : undefined;
    const packed = direct instanceof PackedAnswer ? direct.bytes : (direct ?? responsePackr.pack(unwrapRecord(value)));
    const gzip = acceptsGzip && packed.length >= GZIP_MIN_BYTES;
    if (gzip) return { body: gzipBody(packed), contentType: MSGPACK, gzip };
    return { body: packed, contentType: MSGPACK, gzip, packed: direct instanceof PackedAnswer ? direct : undefined };
  }
  const text = jsonText(value);
  const gzip = acceptsGzip && Buffer.byteLength(text, 'utf8') >= GZIP_MIN_BYTES;
  return {
    body: gzip ? gzipBody(Buffer.from(text, 'utf8')) : text,
    contentType: 'application/json; charset=utf-8',
    gzip,
  };
}

/** A long list of records as chunks, gzipped on the thread pool by a stream when the client accepts it. */
function streamedList(list: RecordList, msgpack: boolean, gzip: boolean): Encoded {
  const rendered: AsyncIterable<Buffer | string> = msgpack ? list.msgpackChunks() : list.jsonChunks();
  const contentType = msgpack ? MSGPACK : 'application/json; charset=utf-8';
  if (!gzip) return { body: '', contentType, gzip, chunks: rendered };
  const zipped = createGzip({ level: zlibConstants.Z_BEST_SPEED });
  // Errors end both streams; the transport sees the gzip stream fail and closes the connection.
  pipeline(Readable.from(rendered), zipped, () => undefined);
  return { body: '', contentType, gzip, chunks: zipped };
}
