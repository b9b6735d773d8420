/**
 * Framing shared by log segments and snapshots (see ../FORMAT.md):
 *
 *   file   := header frame*
 *   header := magic[8] version:u32le
 *   frame  := length:u32le crc32:u32le payload[length]
 *
 * crc32 covers the payload only. A reader reports a torn tail (the file ends
 * inside a frame) separately from corruption (a complete frame whose
 * checksum or length is wrong), because the first is a normal crash
 * artifact and the second is data loss.
 */
import { crc32 } from 'node:zlib';

export const HEADER_SIZE = 12;
export const FRAME_OVERHEAD = 8;
/** No single frame may exceed this; a larger length field is corruption. */
export const MAX_FRAME = 256 * 1024 * 1024;

export function encodeHeader(magic: string, version: number): Buffer {
  const b = Buffer.alloc(HEADER_SIZE);
  b.write(magic.padEnd(8, '\0').slice(0, 8), 0, 'latin1');
  b.writeUInt32LE(version, 8);
  return b;
}

export function checkHeader(buf: Buffer, magic: string): number | undefined {
  if (buf.length < HEADER_SIZE) return undefined;
  if (buf.toString('latin1', 0, 8) !== magic.padEnd(8, '\0').slice(0, 8)) return undefined;
  return buf.readUInt32LE(8);
}

export function encodeFrame(payload: Buffer): Buffer {
  const out = Buffer.allocUnsafe(FRAME_OVERHEAD + payload.length);
  out.writeUInt32LE(payload.length, 0);
  out.writeUInt32LE(crc32(payload), 4);
  payload.copy(out, FRAME_OVERHEAD);
  return out;
}

export type FrameResult =
  | { kind: 'frame'; payload: Buffer; next: number }
  | { kind: 'end' }
  | { kind: 'torn'; reason: string }
  | { kind: 'corrupt'; reason: string };

/** Reads the frame starting at `offset`. */
export function readFrame(buf: Buffer, offset: number): FrameResult {
  if (offset === buf.length) return { kind: 'end' };
  if (buf.length - offset < FRAME_OVERHEAD) return { kind: 'torn', reason: 'file ends inside a frame header' };
  const length = buf.readUInt32LE(offset);
  const crc = buf.readUInt32LE(offset + 4);
  if (length > MAX_FRAME) return { kind: 'corrupt', reason: `frame length ${length} exceeds the maximum` };
  const end = offset + FRAME_OVERHEAD + length;
  if (end > buf.length) return { kind: 'torn', reason: 'file ends inside a frame payload' };
  const payload = buf.subarray(offset + FRAME_OVERHEAD, end);
  if (crc32(payload) !== crc) return { kind: 'corrupt', reason: 'checksum mismatch' };
  return { kind: 'frame', payload, next: end };
}
