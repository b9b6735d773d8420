/**
 * The log frames of a group of batches: one frame per batch, whose payload
 * is `{seq, effects}` in MessagePack, the effects in their stored form
 * (codec.ts). A large batch (a 10,000-record batch
 * insert) is packed in slices, so that encoding it does not hold the event
 * loop. The writer is held meanwhile (log-writer.ts appends one group at a
 * time), so nothing changes under it.
 *
 * A sliced payload decodes to exactly what `encodeBatch(batch)` decodes
 * to: the map is packed with an empty effects array, whose one-byte
 * header (0x90) is replaced by an array32 header, and the effects follow,
 * packed a slice at a time with each slice's own array header cut off.
 * Each slice is copied from the packer's buffer straight into the frame,
 * which is built in place: of a 2 MB batch, no second and third copy (a
 * join of the slices, then the frame around them) and 4 MB less memory
 * outside the heap for the collector to account for.
 */
import assert from 'node:assert';
import type { LoggedBatch } from '../../write/effects.js';
import { Slicer } from '../../time/slices.js';
import { encodeBatch, encodePayload, storedEffects } from '../codec.js';
import { encodeFrames, FRAME_OVERHEAD, writeFrameHeader } from '../frame.js';

/** Effects packed per call; batches this small are packed in one call, synchronously. */
const SLICE = 500;
const EMPTY_ARRAY = 0x90;
const ARRAY32 = 0xdd;

/** The frames of `batches`, in order, in one buffer; a promise when one of them is large (packed in slices). */
export function encodeBatchFrames(batches: readonly LoggedBatch[]): Buffer | Promise<Buffer> {
  if (batches.every((b) => b.effects.length <= SLICE)) return encodeFrames(batches.map(encodeBatch));
  return Promise.all(
    batches.map((b) => (b.effects.length <= SLICE ? encodeFrames([encodeBatch(b)]) : frameInSlices(b))),
  ).then((frames) => (frames.length === 1 ? frames[0]! : Buffer.concat(frames)));
}

/** The frame of a large batch, its payload packed a slice at a time into the frame itself. */
async function frameInSlices(batch: LoggedBatch): Promise<Buffer> {
  // Copied: the packer reuses its buffer for the next call.
  const head = Buffer.from(encodePayload({ seq: batch.seq, effects: [] }));
  assert(head[head.length - 1] === EMPTY_ARRAY, 'the effects array ends the packed map');
  let frame: GrowingBuffer | undefined;
  const slicer = new Slicer();
  for (let i = 0; i < batch.effects.length; i += SLICE) {
    const packed = encodePayload(storedEffects(batch.effects, i, Math.min(i + SLICE, batch.effects.length)));
    const effects = packed.subarray(arrayHeaderLength(packed[0]!));
    if (!frame) {
      // Sized from the first slice, with a little room: most batches' records are alike.
      frame = new GrowingBuffer(
        FRAME_OVERHEAD + head.length + 4 + Math.ceil((effects.length * 1.05 * batch.effects.length) / SLICE),
      );
      frame.skip(FRAME_OVERHEAD);
      frame.append(head.subarray(0, head.length - 1));
      frame.appendArray32Header(batch.effects.length);
    }
    // The packer's buffer is copied into the frame now, before the next call reuses it.
    frame.append(effects);
    await slicer.pause();
  }
  const out = frame!.bytes();
  writeFrameHeader(out, 0, out.subarray(FRAME_OVERHEAD));
  return out;
}

/** Bytes appended to one buffer that doubles when full. */
class GrowingBuffer {
  private buf: Buffer;
  private at = 0;
  constructor(capacity: number) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  skip(length: number): void {
    this.room(length);
    this.at += length;
  }

  append(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.buf.set(bytes, this.at);
    this.at += bytes.length;
  }

  appendArray32Header(count: number): void {
    this.room(5);
    this.buf[this.at] = ARRAY32;
    this.buf.writeUInt32BE(count, this.at + 1);
    this.at += 5;
  }

  /** What was appended (a view of the buffer). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.at);
  }

  private room(length: number): void {
    if (this.at + length <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + length));
    this.buf.copy(bigger, 0, 0, this.at);
    this.buf = bigger;
  }
}

/** Length of a MessagePack array header from its first byte (fixarray, array16, array32). */
function arrayHeaderLength(first: number): number {
  if ((first & 0xf0) === 0x90) return 1;
  if (first === 0xdc) return 3;
  assert(first === ARRAY32, `packed effects start with an array header, not 0x${first.toString(16)}`);
  return 5;
}
