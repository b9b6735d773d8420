/**
 * What recovery did and dropped, as data (GET /api/health, `eddydb verify`,
 * the salvage report file) and as one sentence per damaged file (the log).
 * Sentences say exact byte ranges, frames, seq ranges and record counts, and
 * say "at least" only where the damaged bytes hide the number.
 */
import type { ByteRange } from '../frame.js';
import type { SnapshotDamage } from '../snapshot/snapshot-reader.js';
import type { SeqRange, TailDrop } from '../log/segment-replay.js';

/** One damaged file and what recovery could not read from it. */
export type DamagedFile =
  | {
      readonly kind: 'snapshot';
      readonly file: string;
      /** false: recovery fell back past it to an older generation that covers its data, so nothing was lost. */
      readonly lost: boolean;
      /** The first problem, for a snapshot recovery did not read further. */
      readonly offset?: number;
      readonly reason?: string;
      readonly damage?: SnapshotDamage;
    }
  | {
      readonly kind: 'segment';
      readonly file: string;
      readonly lost: true;
      readonly skipped: readonly ByteRange[];
      readonly lostSeqs: readonly SeqRange[];
    };

export interface RecoveryReport {
  /** The snapshot recovery started from (null: the empty state). */
  snapshot: string | null;
  replayedBatches: number;
  /** Frames (or batches) not read: a dropped tail plus everything salvage skipped. */
  droppedFrames: number;
  droppedBytes: number;
  warnings: string[];
  /** True when the start used `--salvage` and dropped something. */
  salvaged: boolean;
  damaged: DamagedFile[];
  tail?: TailDrop;
  /** Seqs missing from the log with no damaged file to blame (salvage). */
  gaps: SeqRange[];
  /** Collections recreated bare because their definition was lost (salvage). */
  recreated: string[];
  /** Where damaged files were moved, relative to the data directory. */
  movedTo?: string;
}

/** The report of a start that recovered nothing: a memory-only database starts empty. */
export function emptyRecoveryReport(): RecoveryReport {
  return {
    snapshot: null,
    replayedBatches: 0,
    droppedFrames: 0,
    droppedBytes: 0,
    warnings: [],
    salvaged: false,
    damaged: [],
    gaps: [],
    recreated: [],
  };
}

const ranges = (rs: readonly ByteRange[]) => rs.map((r) => `bytes ${r.from}-${r.to} (${r.reason})`).join(', ');
const seqs = (rs: readonly SeqRange[]) =>
  rs
    .map((r) =>
      r.to === undefined ? `seq ${r.from} and after` : r.from === r.to ? `seq ${r.from}` : `seqs ${r.from}..${r.to}`,
    )
    .join(', ');

/** Batches lost in `rs`: exact unless a range runs to an unknown end. */
export function countSeqs(rs: readonly SeqRange[]): { n: number; exact: boolean } {
  let count = 0,
    exact = true;
  for (const range of rs) {
    if (range.to === undefined) {
      count += 1;
      exact = false;
    } else count += range.to - range.from + 1;
  }
  return { n: count, exact };
}

/** One sentence saying what a damaged file lost. */
export function describeDamage(damaged: DamagedFile): string {
  if (damaged.kind === 'segment') {
    const { n: count, exact } = countSeqs(damaged.lostSeqs);
    const lost = damaged.lostSeqs.length
      ? `; ${exact ? '' : 'at least '}${count} batch(es) lost: ${seqs(damaged.lostSeqs)}`
      : '; no batch lost';
    return `${damaged.file}: skipped ${ranges(damaged.skipped)}${lost}`;
  }
  if (!damaged.damage) {
    const where = damaged.offset === undefined ? '' : ` at byte ${damaged.offset}`;
    return `${damaged.file}: unusable, damaged${where} (${damaged.reason})`;
  }
  const dm = damaged.damage;
  const parts = [
    `${damaged.file}: skipped ${ranges(dm.skipped)}`,
    `${dm.droppedFramesExact ? '' : 'at least '}${dm.droppedFrames} frame(s) not read`,
  ];
  for (const lost of dm.lostRecords)
    parts.push(
      lost.lost === null
        ? `collection '${lost.collection}': ${lost.read} records read, how many were lost is unknown`
        : `collection '${lost.collection}': ${lost.lost} of ${lost.read + lost.lost} records lost`,
    );
  if (dm.missingSections.length) parts.push(`sections not read: ${dm.missingSections.join(', ')}`);
  return parts.join('; ');
}

/** One sentence for a dropped tail. */
export function describeTail(tail: TailDrop): string {
  const what = tail.frames === 0 ? 'zero fill' : 'an incomplete or damaged final frame';
  return (
    `${tail.segment}: torn final record, ${tail.bytes} bytes dropped from byte ${tail.offset} (${tail.reason}: ` +
    `${what}); truncated`
  );
}

/** One sentence for seqs missing between files. */
export function describeGaps(gaps: readonly SeqRange[]): string {
  return `log: ${seqs(gaps)} missing (no segment holds them)`;
}
