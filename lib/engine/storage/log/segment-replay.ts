/**
 * Replays log segments into a state, in order, a few MB of one file in
 * memory at a time (the whole file only when it is damaged or in salvage).
 *
 * - Zero fill from a frame boundary to the end of a segment is space the
 *   writer prepared and never used (log-writer.ts): the segment ends there.
 *   A batch lost in it would show as a seq gap in the next segment.
 * - A bad frame (torn, checksum, length, undecodable) in the last segment
 *   with no valid frame after it is a torn tail: replay stops there and the
 *   caller truncates it. Anywhere else, strict mode throws Corruption naming
 *   file and byte, and so does a gap in seq.
 * - Salvage mode skips each damaged region by resyncing to the next valid
 *   frame and applies every readable batch after it in seq order; seqs that
 *   never arrive are reported as lost, blamed on the damaged file they were
 *   in, or on a missing stretch of log.
 * Nothing here writes to disk: the caller applies truncations and moves.
 */
import path from 'node:path';
import { Corruption } from '../../../errors.js';
import { applyBatch } from '../../write/apply-batch.js';
import { CollectionState, type DbState } from '../../write/state.js';
import type { LoggedBatch } from '../../write/effects.js';
import { decodeBatch } from '../codec.js';
import {
  checkHeader,
  findNextFrame,
  FRAME_OVERHEAD,
  FrameStream,
  HEADER_SIZE,
  isZeroFill,
  readFrame,
  type ByteRange,
} from '../frame.js';
import type { StorageFs } from '../fs.js';
import type { SegmentFile } from '../generations.js';
import { LOG_MAGIC, LOG_VERSION } from './log-writer.js';

/** A seq range `[from, to]` whose batches were not applied; `to` undefined when the log ended inside it. */
export interface SeqRange {
  readonly from: number;
  readonly to?: number;
}

/** The unreadable end of the last segment, to truncate at `offset`. */
export interface TailDrop {
  readonly segment: string;
  readonly offset: number;
  readonly bytes: number;
  /**
   * Frames dropped: 0 for zero fill, 1 for the frame being appended, more for a last write torn by a crash
   * (only frames of that unacknowledged write follow its unwritten bytes).
   */
  readonly frames: number;
  readonly reason: string;
}

/** Salvage: what one damaged segment lost. */
export interface SegmentDamage {
  readonly file: string;
  readonly skipped: ByteRange[];
  readonly lostSeqs: SeqRange[];
}

export interface ReplayResult {
  replayed: number;
  /** The last segment and its valid size, to reopen for appending; undefined when it must be recreated. */
  lastSegment?: { name: string; size: number };
  tail?: TailDrop;
  /** Salvage only. */
  damaged: SegmentDamage[];
  /** Salvage only: seqs missing from the log with no damaged file to blame (a missing segment). */
  gaps: SeqRange[];
  /** Salvage only: collections recreated without their definition because their creating batch was lost. */
  recreated: string[];
}

export interface ReplayOptions {
  salvage: boolean;
  /** Called after each applied batch (progress reporting). */
  onBatch?: () => void;
}

/**
 * Replays `segments` (ascending, the last one being the log's end) into
 * `state`, skipping batches at or below its seq. Strict mode throws
 * Corruption (file, byte, reason) on a bad frame that is not the torn tail,
 * or on a seq gap; `state` is then half-replayed and must be discarded.
 */
export async function replaySegments(
  fs: StorageFs,
  dir: string,
  segments: readonly SegmentFile[],
  state: DbState,
  opts: ReplayOptions,
): Promise<ReplayResult> {
  const out: ReplayResult = { replayed: 0, damaged: [], gaps: [], recreated: [] };
  let blame: SegmentDamage | undefined;
  for (let i = 0; i < segments.length; i++) {
    const { name } = segments[i]!;
    const isLast = i === segments.length - 1;
    const seg = new SegmentReplay(name, isLast, state, opts, out);
    seg.blame = blame;
    const valid = await seg.run(fs, path.join(dir, name));
    blame = seg.blame;
    if (seg.damage) out.damaged.push(seg.damage);
    if (isLast && !seg.damage) out.lastSegment = { name, size: valid };
  }
  // Damage with no readable batch after it: whatever it held is lost, up to an unknown seq.
  if (blame) blame.lostSeqs.push({ from: state.seq + 1 });
  return out;
}

class SegmentReplay {
  damage: SegmentDamage | undefined;
  /** The damaged file that seqs missing from here on are blamed on (cleared by each applied batch). */
  blame: SegmentDamage | undefined;
  /** The whole segment, read once a frame is not a batch (or in salvage): what follows tells tail from damage. */
  private buf: Buffer = Buffer.alloc(0);

  constructor(
    private readonly name: string,
    private readonly isLast: boolean,
    private readonly state: DbState,
    private readonly opts: ReplayOptions,
    private readonly out: ReplayResult,
  ) {}

  /**
   * Replays the segment in `file`; returns its valid length. Its frames are
   * read through a FrameStream (a few MB at a time) while they are sound
   * batches; at the first that is not (or in salvage, from the start), the
   * whole file is read and the rest replayed from it.
   */
  async run(fs: StorageFs, file: string): Promise<number> {
    if (this.opts.salvage) return this.runFrom((this.buf = await fs.readFile(file)), HEADER_SIZE);
    const stream = await FrameStream.open(fs, file);
    if (checkHeader(await stream.head(HEADER_SIZE), LOG_MAGIC) !== LOG_VERSION)
      return this.runFrom((this.buf = await fs.readFile(file)), HEADER_SIZE);
    let offset = HEADER_SIZE;
    for (;;) {
      const read = await stream.frameAt(offset);
      if (read.kind === 'end') return offset;
      const batch = read.kind === 'frame' ? decodeBatchOrNothing(read.payload) : undefined;
      if (!batch) break;
      this.apply(batch, offset);
      offset = (read as { next: number }).next;
    }
    if (await stream.zeroFrom(offset)) return offset;
    this.buf = await fs.readFile(file);
    return this.runFrom(this.buf, offset, false);
  }

  /** Replays `buf` from `offset` (checking its header first when `header`); returns the valid length. */
  private runFrom(buf: Buffer, offset: number, header = true): number {
    if (header && buf.length < HEADER_SIZE && this.isLast) return this.dropTail(0, 'torn segment header');
    if (header && checkHeader(buf, LOG_MAGIC) !== LOG_VERSION)
      offset = this.bad(0, 'bad segment header or version', HEADER_SIZE);
    while (offset < buf.length) {
      const read = readFrame(buf, offset);
      if (read.kind === 'end') break;
      const batch = read.kind === 'frame' ? decodeBatchOrNothing(read.payload) : undefined;
      if (!batch) {
        if (isZeroFill(buf, offset)) break;
        const reason = read.kind === 'frame' ? 'record is not a decodable batch' : read.reason;
        const next = findNextFrame(buf, offset + 1);
        // A crash mid-append leaves garbage only at the very end: if a valid frame follows, this is data loss.
        if (this.isLast && next === undefined) return this.dropTail(offset, reason);
        // Unless, in the last segment, the bad frame holds bytes never written (zero fill where its header or a
        // whole sector of it should be): a crash during the last write's fsync may keep some of its sectors and not
        // others, and nothing of that write was acknowledged, so it is dropped whole and reported as such.
        if (this.isLast && holdsUnwrittenBytes(buf, offset, next!))
          return this.dropTail(
            offset,
            'a write torn by a crash before its fsync (unwritten bytes, then frames)',
            1 + framesFrom(buf, next!),
          );
        offset = this.bad(offset, reason, next ?? buf.length);
        continue;
      }
      this.apply(batch, offset);
      offset = (read as { next: number }).next;
    }
    return offset;
  }

  private apply(batch: LoggedBatch, offset: number): void {
    const { state } = this;
    if (batch.seq <= state.seq) return;
    if (batch.seq !== state.seq + 1) {
      if (!this.opts.salvage)
        throw new Corruption(this.name, offset, `seq gap: expected ${state.seq + 1}, found ${batch.seq}`);
      const lost = { from: state.seq + 1, to: batch.seq - 1 };
      if (this.blame) this.blame.lostSeqs.push(lost);
      else this.out.gaps.push(lost);
    }
    if (this.opts.salvage) this.out.recreated.push(...ensureCollections(state, batch));
    applyBatch(state, batch);
    this.blame = undefined;
    this.out.replayed += 1;
    this.opts.onBatch?.();
  }

  /** Strict: Corruption. Salvage: records `[at, next)` as skipped and resumes at `next`. */
  private bad(at: number, reason: string, next: number): number {
    if (!this.opts.salvage) throw new Corruption(this.name, at, reason);
    this.damage ??= { file: this.name, skipped: [], lostSeqs: [] };
    this.damage.skipped.push({ from: at, to: next, reason });
    this.blame = this.damage;
    return next;
  }

  private dropTail(offset: number, reason: string, frames = isZeroFill(this.buf, offset) ? 0 : 1): number {
    const bytes = this.buf.length - offset;
    this.out.tail = { segment: this.name, offset, bytes, frames, reason };
    return offset;
  }
}

/** A disk sector: a write torn by a crash keeps or loses whole sectors of it. */
const SECTOR = 512;

/** True when the frame header at `from`, or a whole sector in `[from, to)`, is all zero bytes. */
function holdsUnwrittenBytes(buf: Buffer, from: number, to: number): boolean {
  if (isZeroFill(buf.subarray(from, from + FRAME_OVERHEAD), 0)) return true;
  for (let sector = Math.ceil(from / SECTOR) * SECTOR; sector + SECTOR <= to; sector += SECTOR)
    if (isZeroFill(buf.subarray(sector, sector + SECTOR), 0)) return true;
  return false;
}

/** How many frames can be found from `from` (a frame's offset) to the end of `buf`, skipping what is not one. */
function framesFrom(buf: Buffer, from: number): number {
  let count = 0;
  for (let at: number | undefined = from; at !== undefined;) {
    count += 1;
    const read = readFrame(buf, at);
    at = findNextFrame(buf, read.kind === 'frame' ? read.next : at + 1);
  }
  return count;
}

function decodeBatchOrNothing(payload: Buffer): LoggedBatch | undefined {
  try {
    return decodeBatch(payload);
  } catch {
    return undefined;
  }
}

/**
 * Salvage: a batch may write into a collection whose creating batch was lost.
 * Recreate it bare (no schema) so the batch applies whole, never half.
 */
function ensureCollections(state: DbState, batch: LoggedBatch): string[] {
  const created: string[] = [];
  const createdByBatch = new Set<string>();
  for (const effect of batch.effects) {
    if (effect.kind === 'createCollection') createdByBatch.add(effect.meta.name);
    else if (
      effect.kind === 'put' &&
      !state.collections.has(effect.collection) &&
      !createdByBatch.has(effect.collection)
    ) {
      state.collections.set(
        effect.collection,
        new CollectionState({ name: effect.collection, createdAt: new Date(0).toISOString() }),
      );
      created.push(effect.collection);
    }
  }
  return created;
}
