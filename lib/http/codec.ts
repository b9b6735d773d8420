/**
 * Content negotiation: request bodies are MessagePack when
 * `Content-Type: application/msgpack`, else JSON; an empty body is `{}`.
 * Responses are MessagePack when `Accept` asks for it, else JSON, and are
 * gzipped when the client accepts gzip and the body is worth compressing.
 *
 * Decoding rejects `__proto__` keys anywhere, so nothing downstream can be
 * polluted through a decoded object.
 */
import { gzipSync } from 'node:zlib';
import { Packr, Unpackr } from 'msgpackr';
import { InvalidInput, UnsupportedMedia } from '../errors.js';

const requestUnpackr = new Unpackr({ useRecords: false, mapsAsObjects: true, int64AsType: 'number' });
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
  if (isMsgpack(contentType)) {
    let value: unknown;
    try {
      value = requestUnpackr.unpack(raw);
    } catch (err) {
      throw new InvalidInput(`Malformed MessagePack body: ${(err as Error).message}`);
    }
    assertNoProtoKeys(value, 0);
    return value;
  }
  const type = contentType?.split(';')[0]!.trim().toLowerCase();
  if (type && type !== 'application/json' && !type.endsWith('+json') && type !== 'text/plain') {
    throw new UnsupportedMedia(`Unsupported Content-Type '${type}'; use application/json or application/msgpack`);
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

function assertNoProtoKeys(v: unknown, depth: number): void {
  if (depth > 100) throw new InvalidInput('Body nested too deeply');
  if (v === null || typeof v !== 'object' || v instanceof Uint8Array) return;
  if (Array.isArray(v)) { for (const x of v) assertNoProtoKeys(x, depth + 1); return; }
  for (const key of Object.keys(v)) {
    if (key === '__proto__') throw new InvalidInput("Forbidden key '__proto__' in body");
    assertNoProtoKeys((v as Record<string, unknown>)[key], depth + 1);
  }
}

/** JSON with binary written as arrays of byte numbers (protocol.md 1.4 rule 6). */
export function toJson(value: unknown): string {
  return JSON.stringify(value, function (this: Record<string, unknown>, key, v) {
    const orig = this[key];
    if (orig instanceof Uint8Array) return Array.from(orig);
    return v;
  });
}

export interface Encoded { body: Buffer; contentType: string; gzip: boolean }

export function encodeBody(value: unknown, accept: string | undefined, acceptEncoding: string | undefined): Encoded {
  const msgpack = wantsMsgpack(accept);
  let body = msgpack ? responsePackr.pack(value) : Buffer.from(toJson(value), 'utf8');
  const gzip = body.length >= GZIP_MIN_BYTES && !!acceptEncoding && /\bgzip\b/i.test(acceptEncoding);
  if (gzip) body = gzipSync(body);
  return { body, contentType: msgpack ? MSGPACK : 'application/json; charset=utf-8', gzip };
}
