/**
 * Finding frames in damaged bytes. Recovery uses it to tell a torn tail (no
 * valid frame follows the bad one) from corruption in the middle (one does),
 * and salvage uses it to resync past a damaged region to the next valid frame.
 *
 * A candidate position is accepted only when its length fits in the file,
 * its payload starts like a MessagePack map (every batch and snapshot frame is
 * one) and its CRC-32 matches: a false positive needs a 32-bit collision.
 */
import { crc32 } from 'node:zlib';
import { FRAME_OVERHEAD, MAX_FRAME } from './frame.js';

/** A byte range `[from, to)` of a file that was not read, and why. */
export interface ByteRange {
  readonly from: number;
  readonly to: number;
  readonly reason: string;
}

/** True when `buf[at]` starts a MessagePack map (fixmap, map16 or map32). */
function startsLikeMap(buf: Buffer, at: number): boolean {
  const b = buf[at]!;
  return (b >= 0x81 && b <= 0x8f) || b === 0xde || b === 0xdf;
}

/**
 * Offset of the first complete, checksummed frame that starts at or after
 * `from`, or undefined when there is none. O(bytes scanned); the CRC is only
 * computed for positions that already look like a frame.
 */
export function findNextFrame(buf: Buffer, from: number): number | undefined {
  for (let pos = from; pos + FRAME_OVERHEAD < buf.length; pos++) {
    const length = buf.readUInt32LE(pos);
    if (length === 0 || length > MAX_FRAME || pos + FRAME_OVERHEAD + length > buf.length) continue;
    if (!startsLikeMap(buf, pos + FRAME_OVERHEAD)) continue;
    if (crc32(buf.subarray(pos + FRAME_OVERHEAD, pos + FRAME_OVERHEAD + length)) === buf.readUInt32LE(pos + 4)) return pos;
  }
  return undefined;
}

/** True when every byte of `buf[from..]` is zero (a file extended but never written: no frame was lost). */
export function isZeroFill(buf: Buffer, from: number): boolean {
  for (let i = from; i < buf.length; i++) if (buf[i] !== 0) return false;
  return true;
}
