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
 *
 * `findNextFrame` resyncs in damaged bytes: a candidate position counts only
 * when its length fits, its payload starts like a MessagePack map (every
 * batch and snapshot frame is one) and its CRC-32 matches, so a false
 * positive needs a 32-bit collision.
 */
import { crc32 } from 'node:zlib';
import type { StorageFs } from './fs.js';

export const HEADER_SIZE = 12;
export const FRAME_OVERHEAD = 8;
/** No single frame may exceed this; a larger length field is corruption. */
export const MAX_FRAME = 256 * 1024 * 1024;

export function encodeHeader(magic: string, version: number): Buffer {
  const header = Buffer.alloc(HEADER_SIZE);
  header.write(magic.padEnd(8, '\0').slice(0, 8), 0, 'latin1');
  header.writeUInt32LE(version, 8);
  return header;
}

export function checkHeader(buf: Buffer, magic: string): number | undefined {
  if (buf.length < HEADER_SIZE) return undefined;
  if (buf.toString('latin1', 0, 8) !== magic.padEnd(8, '\0').slice(0, 8)) return undefined;
  return buf.readUInt32LE(8);
}

export function encodeFrame(payload: Buffer): Buffer {
  const out = Buffer.allocUnsafe(FRAME_OVERHEAD + payload.length);
  writeFrameHeader(out, 0, payload);
  payload.copy(out, FRAME_OVERHEAD);
  return out;
}

/**
 * Writes the header of the frame whose payload is `payload` at `out[at]` (the payload itself goes at `at +
 * FRAME_OVERHEAD`).
 */
export function writeFrameHeader(out: Buffer, at: number, payload: Uint8Array): void {
  out.writeUInt32LE(payload.length, at);
  out.writeUInt32LE(crc32(payload), at + 4);
}

/** Several frames in one buffer: each payload is copied once, with no second copy to join them. */
export function encodeFrames(payloads: readonly Buffer[]): Buffer {
  if (payloads.length === 1) return encodeFrame(payloads[0]!);
  let total = 0;
  for (const payload of payloads) total += FRAME_OVERHEAD + payload.length;
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (const payload of payloads) {
    writeFrameHeader(out, at, payload);
    payload.copy(out, at + FRAME_OVERHEAD);
    at += FRAME_OVERHEAD + payload.length;
  }
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

/** A byte range `[from, to)` of a file that was not read, and why. */
export interface ByteRange {
  readonly from: number;
  readonly to: number;
  readonly reason: string;
}

/** True when `buf[at]` starts a MessagePack map (fixmap, map16 or map32). */
function startsLikeMap(buf: Buffer, at: number): boolean {
  const byte = buf[at]!;
  return (byte >= 0x81 && byte <= 0x8f) || byte === 0xde || byte === 0xdf;
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
    if (crc32(buf.subarray(pos + FRAME_OVERHEAD, pos + FRAME_OVERHEAD + length)) === buf.readUInt32LE(pos + 4))
      return pos;
  }
  return undefined;
}

/** True when every byte of `buf[from..]` is zero (a file extended but never written: no frame was lost). */
export function isZeroFill(buf: Buffer, from: number): boolean {
  for (let i = from; i < buf.length; i++) if (buf[i] !== 0) return false;
  return true;
}

/** The payloads of `buf`, a run of whole frames just encoded (a group handed to the log); checksums are not read. */
export function framePayloads(buf: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at + FRAME_OVERHEAD <= buf.length;) {
    const end = at + FRAME_OVERHEAD + buf.readUInt32LE(at);
    out.push(buf.subarray(at + FRAME_OVERHEAD, end));
    at = end;
  }
  return out;
}

/** Bytes a FrameStream reads at a time (more for a frame longer than this). */
const STREAM_CHUNK = 8 * 1024 * 1024;

/**
 * A file's frames read in order through one reused window of a few MB,
 * instead of the whole file in one buffer: a snapshot of millions of records
 * is hundreds of MB, held beside the records it decodes into, and a buffer
 * that large (as each segment's) makes V8 collect for external memory
 * while recovery fills the heap. `frameAt` answers what readFrame answers on
 * the whole file. A payload it gives lives until the next call: decode it
 * (storage/codec.ts copies what it keeps) before asking for the next frame.
 */
export class FrameStream {
  private window: Buffer = Buffer.alloc(0);
  /** The file offsets the window holds: [start, end). */
  private start = 0;
  private end = 0;

  private constructor(
    private readonly fs: StorageFs,
    private readonly file: string,
    /** The file's size when opened. */
    readonly size: number,
    private readonly chunk: number,
  ) {}

  /** `chunk`: the bytes read at a time (specs take small ones). */
  static async open(fs: StorageFs, file: string, chunk = STREAM_CHUNK): Promise<FrameStream> {
    return new FrameStream(fs, file, await fs.size(file), chunk);
  }

  /** The file's first `length` bytes (fewer when it is shorter), valid until the next call. */
  async head(length: number): Promise<Buffer> {
    await this.hold(0, length);
    return this.window.subarray(0, Math.min(length, this.end));
  }

  /** The frame at `offset`, as readFrame reads it in the whole file (`next` is a file offset). */
  async frameAt(offset: number): Promise<FrameResult> {
    if (offset >= this.size) return readFrame(this.window.subarray(0, 0), 0);
    await this.hold(offset, FRAME_OVERHEAD);
    if (this.end - offset >= FRAME_OVERHEAD) {
      const length = this.window.readUInt32LE(offset - this.start);
      if (length <= MAX_FRAME) await this.hold(offset, FRAME_OVERHEAD + length);
    }
    // The window ends at the frame's end or beyond, or at the file's end: readFrame tells a torn tail as in the file.
    const read = readFrame(this.window.subarray(0, this.end - this.start), offset - this.start);
    return read.kind === 'frame' ? { ...read, next: read.next + this.start } : read;
  }

  /** True when every byte from `offset` to the file's end is zero (isZeroFill), read a window at a time. */
  async zeroFrom(offset: number): Promise<boolean> {
    for (let at = offset; at < this.size; at = this.end) {
      await this.hold(at, this.chunk);
      if (this.end <= at) return false;
      if (!isZeroFill(this.window.subarray(at - this.start, this.end - this.start), 0)) return false;
    }
    return true;
  }

  /** Makes the window hold [offset, offset + length) of the file, or up to its end. */
  private async hold(offset: number, length: number): Promise<void> {
    const want = Math.min(offset + length, this.size);
    if (offset >= this.start && want <= this.end) return;
    const bytes = Math.min(Math.max(this.chunk, length), this.size - offset);
    if (this.window.length < bytes) this.window = Buffer.allocUnsafe(Math.max(bytes, this.chunk));
    let got = 0;
    while (got < bytes) {
      const n = await this.fs.readAt(this.file, this.window.subarray(got, bytes), offset + got);
      if (n === 0) break;
      got += n;
    }
    this.start = offset;
    this.end = offset + got;
  }
}
