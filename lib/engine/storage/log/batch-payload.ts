/**
 * The log frames of a group of batches, in one buffer: one frame per batch,
 * whose payload is `{seq, effects}` in MessagePack with the effects in their
 * stored form (codec.ts), written straight into the buffer by
 * PayloadWriter (payload-writer.ts) with no payload copied or joined.
 *
 * A large batch (a 10,000-record batch insert) is written in slices, so
 * that encoding it does not hold the event loop. The writer is held
 * meanwhile (log-writer.ts appends one group at a time), so nothing changes
 * under it. Its buffer is sized from its first slice: most batches'
 * records are alike.
 */
import type { LoggedBatch } from '../../write/effects.js';
import { Slicer } from '../../time/slices.js';
import { PayloadWriter } from './payload-writer.js';

/** Effects written per slice; groups whose batches are all this small are written in one go, synchronously. */
const SLICE = 500;
/** The bytes a small group's buffer starts with per effect (it grows when they are more). */
const EFFECT_BYTES = 320;
/** A group's buffer starts no larger than this (it doubles as needed): small effects (deletes) are many per MiB. */
const MAX_START_BYTES = 1024 * 1024;

/** The frames of `batches`, in order, in one buffer; a promise when one of them is large (written in slices). */
export function encodeBatchFrames(batches: readonly LoggedBatch[]): Buffer | Promise<Buffer> {
  let effects = 0;
  for (const batch of batches) effects += batch.effects.length;
  if (batches.every((b) => b.effects.length <= SLICE)) {
    // Sized for records of a few hundred bytes: a small group's buffer then comes from node's pool.
    const writer = new PayloadWriter(Math.min(MAX_START_BYTES, EFFECT_BYTES * effects + 32 * batches.length));
    for (const batch of batches) {
      writer.beginBatch(batch.seq, batch.effects.length);
      for (const effect of batch.effects) writer.effect(effect);
      writer.endFrame();
    }
    return writer.bytes();
  }
  return framesInSlices(batches);
}

async function framesInSlices(batches: readonly LoggedBatch[]): Promise<Buffer> {
  const writer = new PayloadWriter();
  const slicer = new Slicer();
  for (const batch of batches) {
    const effects = batch.effects;
    const start = writer.length;
    writer.beginBatch(batch.seq, effects.length);
    for (let i = 0; i < effects.length; i++) {
      writer.effect(effects[i]!);
      if ((i + 1) % SLICE !== 0) continue;
      // With a little room: most batches' records are alike.
      if (i + 1 === SLICE) writer.reserve(start + Math.ceil(((writer.length - start) * 1.05 * effects.length) / SLICE));
      await slicer.pause();
    }
    writer.endFrame();
  }
  return writer.bytes();
}
