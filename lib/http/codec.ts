/**
 * Content negotiation: request bodies are MessagePack or JSON as their
 * `Content-Type` says (content-type.ts); an empty body is `{}`.
 * Responses are MessagePack when `Accept` asks for it, else JSON, and are
 * gzipped when the client accepts gzip and the body is worth compressing.
 *
 * Decoding rejects `__proto__` keys anywhere, so nothing downstream can be
 * polluted through a decoded object. msgpackr silently renames a `__proto__`
 * map key to `__proto_`, so a MessagePack body that spells the key at all is
 * decoded to Maps instead, where the key is still visible, and rejected.
 */
import { gzipSync } from 'node:zlib';
import { C1, Packr, Unpackr, type Options } from 'msgpackr';
import { InvalidInput } from '../errors.js';
import { bodyFormat } from './content-type.js';
import { toJson } from '../engine/index.js';

// 'auto' decodes a 64-bit integer beyond 2^53 as a BigInt instead of rounding it, so it can be refused.
// msgpackr's README documents it; its type definitions lack it.
const INT64_AUTO = { int64AsType: 'auto' } as unknown as Pick<Options, 'int64AsType'>;
const requestUnpackr = new Unpackr({ useRecords: false, mapsAsObjects: true, ...INT64_AUTO });
const mapUnpackr = new Unpackr({ useRecords: false, mapsAsObjects: false, ...INT64_AUTO });
const PROTO_BYTES = Buffer.from('__proto__', 'utf8');
const responsePackr = new Packr({ useRecords: false, moreTypes: false, encodeUndefinedAsNil: true });

export const MSGPACK = 'application/msgpack';
const GZIP_MIN_BYTES = 1024;

export function isMsgpack(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const t = contentType.split(';')[0]!.trim().toLowerCase();
  return t === MSGPACK || t === 'application/x-msgpack' || t === 'application/vnd.msgpack';
}

export function wantsMsgpack(accept: string | undefined): boolean {
  return !!accept && accept.split(',').some((a) => isMsgpack(a));
}

export function decodeBody(raw: Buffer | undefined, contentType: string | undefined): unknown {
  if (!raw || raw.length === 0) return {};
  if (bodyFormat(contentType) === 'msgpack') {
    const spellsProto = raw.includes(PROTO_BYTES);
    let value: unknown;
    try {
      value = (spellsProto ? mapUnpackr : requestUnpackr).unpack(raw);
    } catch (err) {
      throw new InvalidInput(`Malformed MessagePack body: ${(err as Error).message}`);
    }
    if (spellsProto) return mapsToObjects(value, 0);
    assertNoProtoKeys(value, 0);
    return value;
  }
  const text = raw.toString('utf8');
  if (text.trim() === '') return {};
  try {
    // The reviver costs time; only a body that could spell __proto__ needs it.
    if (!text.includes('__proto__') && !text.includes('\\u')) return JSON.parse(text);
    return JSON.parse(text, (key, value) => {
      if (key === '__proto__') throw new InvalidInput("Forbidden key '__proto__' in body");
      return value;
    });
  } catch (err) {
    if (err instanceof InvalidInput) throw err;
    throw new InvalidInput(`Malformed JSON body: ${(err as Error).message}`);
  }
}

/** msgpackr decodes the never-used byte 0xc1 to a marker object instead of failing. */
const neverUsedByte = () => new InvalidInput('Malformed MessagePack body: the never-used byte 0xc1');
const unsafeInteger = (v: bigint) => new InvalidInput(`Integer ${v} is outside the exactly representable range ±(2^53 - 1)`);

function assertNoProtoKeys(v: unknown, depth: number): void {
  if (depth > 100) throw new InvalidInput('Body nested too deeply');
  if (v === C1) throw neverUsedByte();
  if (typeof v === 'bigint') throw unsafeInteger(v);
  if (v === null || typeof v !== 'object' || v instanceof Uint8Array) return;
  if (Array.isArray(v)) { for (const x of v) assertNoProtoKeys(x, depth + 1); return; }
  for (const key of Object.keys(v)) {
    if (key === '__proto__') throw new InvalidInput("Forbidden key '__proto__' in body");
    assertNoProtoKeys((v as Record<string, unknown>)[key], depth + 1);
  }
}

/** Converts the Maps of a MessagePack body to plain objects, rejecting `__proto__` keys. */
function mapsToObjects(v: unknown, depth: number): unknown {
  if (depth > 100) throw new InvalidInput('Body nested too deeply');
  if (v === C1) throw neverUsedByte();
  if (typeof v === 'bigint') throw unsafeInteger(v);
  if (Array.isArray(v)) return v.map((x) => mapsToObjects(x, depth + 1));
  if (!(v instanceof Map)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of v) {
    if (typeof k !== 'string' && typeof k !== 'number') throw new InvalidInput('MessagePack map keys must be strings');
    const key = String(k);
    if (key === '__proto__') throw new InvalidInput("Forbidden key '__proto__' in body");
    out[key] = mapsToObjects(x, depth + 1);
  }
  return out;
}

/** JSON with binary as arrays of byte numbers (protocol.md 1.4 rule 6); one implementation, in the engine. */
export { toJson };

export interface Encoded { body: Buffer; contentType: string; gzip: boolean }

export function encodeBody(value: unknown, accept: string | undefined, acceptEncoding: string | undefined): Encoded {
  const msgpack = wantsMsgpack(accept);
  let body = msgpack ? responsePackr.pack(value) : Buffer.from(toJson(value), 'utf8');
  const gzip = body.length >= GZIP_MIN_BYTES && !!acceptEncoding && /\bgzip\b/i.test(acceptEncoding);
  if (gzip) body = gzipSync(body);
  return { body, contentType: msgpack ? MSGPACK : 'application/json; charset=utf-8', gzip };
}
