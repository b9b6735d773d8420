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
 * Decoded strings own their text (values/own-string.ts: otherwise a recovered
 * record kept its frame's decoded text alive), and after reading a file
 * `releaseSource` drops the reader's reference to it (msgpackr keeps the
 * last source, here a whole segment or snapshot).
 */
import { addExtension, Packr, Unpackr } from 'msgpackr';
import { ownStrings, Tagged, type TaggedPayload, type TaggedType } from '../values/index.js';

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
