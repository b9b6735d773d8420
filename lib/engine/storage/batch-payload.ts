/**
 * The log payload of one batch, `{seq, effects}` in MessagePack, made in
 * slices when the batch is large (a 10,000-record batch insert), so that
 * encoding it does not hold the event loop. The writer is held meanwhile
 * (log-writer.ts appends one group at a time), so nothing changes under it.
 *
 * The bytes decode to exactly what `encodePayload({seq, effects})` decodes
 * to: the map is packed with an empty effects array, whose one-byte header
 * (0x90) is replaced by an array32 header, and the effects follow, packed a
 * slice at a time with each slice's own array header cut off.
 */
import assert from 'node:assert';
import type { LoggedBatch } from '../effects.js';
import { Slicer } from '../slices.js';
import { encodePayload } from './codec.js';

/** Effects packed per call; batches this small are packed in one call, synchronously. */
const SLICE = 500;
const EMPTY_ARRAY = 0x90;
const ARRAY32 = 0xdd;

export function encodeBatchPayload(b: LoggedBatch): Buffer | Promise<Buffer> {
  if (b.effects.length <= SLICE) return encodePayload({ seq: b.seq, effects: b.effects });
  return encodeInSlices(b);
}

async function encodeInSlices(b: LoggedBatch): Promise<Buffer> {
  const head = encodePayload({ seq: b.seq, effects: [] });
  assert(head[head.length - 1] === EMPTY_ARRAY, 'the effects array ends the packed map');
  const count = Buffer.alloc(5);
  count[0] = ARRAY32;
  count.writeUInt32BE(b.effects.length, 1);
  // Copies: the packer may reuse its buffer for the next call.
  const parts: Buffer[] = [Buffer.from(head.subarray(0, head.length - 1)), count];
  const slicer = new Slicer();
  for (let i = 0; i < b.effects.length; i += SLICE) {
    const packed = encodePayload(b.effects.slice(i, i + SLICE));
    parts.push(Buffer.from(packed.subarray(arrayHeaderLength(packed[0]!))));
    await slicer.pause();
  }
  return Buffer.concat(parts);
}

/** Length of a MessagePack array header from its first byte (fixarray, array16, array32). */
function arrayHeaderLength(first: number): number {
  if ((first & 0xf0) === 0x90) return 1;
  if (first === 0xdc) return 3;
  assert(first === ARRAY32, `packed effects start with an array header, not 0x${first.toString(16)}`);
  return 5;
}
