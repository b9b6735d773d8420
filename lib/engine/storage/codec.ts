/**
 * MessagePack encoding of log and snapshot payloads (msgpackr).
 *
 * Stored values are written as they live in memory; `Tagged` values travel
 * as extension type 0x45 ('E') holding `[type, value]`. Maps decode as plain
 * objects. An Integer beyond ±(2^53 - 1) is a bigint in memory and a 64-bit
 * int on disk; msgpackr writes every number as at most a 32-bit int or a
 * float64, so a 64-bit int on disk is always such an Integer and is read back
 * as a bigint, never rounded to a float. This codec is for our own files
 * only; the HTTP layer has its own.
 *
 * Decoded strings own their text. msgpackr's native reader decodes a run of
 * ASCII strings as one string and hands out slices of it, so a recovered
 * record kept its whole frame's text alive (about 300 bytes more per record
 * than the same record inserted live); `ownStrings` copies every string
 * long enough to be such a slice. And after reading a file, `releaseSource`
 * drops the reader's reference to it (msgpackr keeps the last source).
 */
import { addExtension, Packr, Unpackr } from 'msgpackr';
import { Tagged, type TaggedPayload, type TaggedType } from '../values/index.js';

export const TAGGED_EXT = 0x45;

addExtension({
  Class: Tagged,
  type: TAGGED_EXT,
  write: (t: Tagged) => [t.type, t.value],
  read: ([type, value]: [TaggedType, TaggedPayload]) => new Tagged(type, ownStrings(value) as TaggedPayload),
});

const packr = new Packr({ useRecords: false, moreTypes: false, bundleStrings: false });
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true, int64AsType: 'bigint' });

export function encodePayload(value: unknown): Buffer {
  return packr.pack(value);
}

export function decodePayload<T>(buf: Uint8Array): T {
  return ownStrings(unpackr.unpack(buf)) as T;
}

/** Lets go of the buffer last decoded (a whole segment or snapshot file is one). */
export function releaseSource(): void {
  unpackr.unpack(NIL);
}

const NIL = Buffer.alloc(1, 0xc0);

/** V8 copies substrings shorter than this (SlicedString::kMinLength); longer ones are slices. */
const MIN_SLICE_LENGTH = 13;

/** `value` with every string that may be a slice replaced by a copy, in place (a fresh decode is ours to change). */
function ownStrings(value: unknown): unknown {
  if (typeof value === 'string') return value.length < MIN_SLICE_LENGTH ? value : ownText(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = ownStrings(value[i]);
  } else if (Object.getPrototypeOf(value) === Object.prototype) {
    const obj = value as Record<string, unknown>;
    // for-in over a decoded map (own keys only: its prototype is Object.prototype) allocates no key list.
    for (const key in obj) obj[key] = ownStrings(obj[key]);
  }
  return value;
}

/** A copy of `s` with its own storage: join writes its parts into a new flat string. */
function ownText(s: string): string {
  return [s.slice(0, -1), s.slice(-1)].join('');
}
