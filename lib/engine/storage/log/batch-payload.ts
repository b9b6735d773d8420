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
 *
 * A large group's buffer is written in the memory of the last large group
 * the log was done with (SpareFrames), when it is large enough: a fresh
 * buffer of a few MB is memory the process has not touched, and on the VMs
 * measured each of its pages cost 12.7 µs to fault in, about 7 ms for the
 * frame of a 10,000-record batch.
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

/** A spare buffer is kept up to this size; a larger one is left to the collector. */
const SPARE_MAX_BYTES = 16 * 1024 * 1024;

/**
 * One buffer a large group's frames were written in, given back once nothing
 * reads them any more (the log has written and no longer keeps them, and the
 * caller said it keeps no view of them), for the next large group to write
 * into. Only buffers `framesInSlices` made are taken back: a small group's
 * buffer may be a slice of node's shared pool.
 */
export class SpareFrames {
  private spare: Buffer | undefined;
  private readonly issued = new WeakSet<ArrayBufferLike>();

  /** The spare buffer, now the caller's, or undefined. */
  take(): Buffer | undefined {
    const spare = this.spare;
    this.spare = undefined;
    return spare;
  }

  /** Marks `frames` (written here) as a buffer that may come back. */
  issue(frames: Buffer): Buffer {
    this.issued.add(frames.buffer);
    return frames;
  }

  /** Takes back the buffer under `frames` when it was issued here and is not too large; nothing else may read it. */
  giveBack(frames: Buffer): void {
    const memory = frames.buffer;
    if (!this.issued.has(memory) || memory.byteLength > SPARE_MAX_BYTES) return;
    this.issued.delete(memory);
    if (memory.byteLength > (this.spare?.length ?? 0)) this.spare = Buffer.from(memory);
  }
}

/**
 * The frames of `batches`, in order, in one buffer; a promise when one of them is large (written in slices, into
 * `spare`'s buffer when it has one).
 */
export function encodeBatchFrames(batches: readonly LoggedBatch[], spare?: SpareFrames): Buffer | Promise<Buffer> {
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
  return framesInSlices(batches, spare);
}

async function framesInSlices(batches: readonly LoggedBatch[], spare: SpareFrames | undefined): Promise<Buffer> {
  const writer = new PayloadWriter(undefined, spare?.take());
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
  const frames = writer.bytes();
  return spare ? spare.issue(frames) : frames;
}
