/**
 * Generations, worked out from file names alone (pure; no I/O).
 *
 * A generation is a base plus the log that follows it: a snapshot at seq S
 * (or the empty state at seq 0) and the segments holding every batch from
 * S+1 to the end of the log. Segment names carry the seq of their first
 * batch, so whether the log can cover a base is known before reading a byte:
 * the first segment needed must start at or before S+1. Recovery walks bases
 * newest first; retention keeps the newest generations and deletes only
 * files none of them (and no replication peer) needs.
 */

const SEGMENT = /^log-(\d{16})\.seg$/;
const SNAPSHOT = /^snapshot-(\d{16})\.snap$/;

export const isSegmentName = (f: string): boolean => SEGMENT.test(f);
export const isSnapshotName = (f: string): boolean => SNAPSHOT.test(f);

/** The seq a segment or snapshot name carries (first batch, or snapshot seq). */
export function seqOfName(file: string): number {
  const match = SEGMENT.exec(file) ?? SNAPSHOT.exec(file);
  if (!match) throw new Error(`not a segment or snapshot name: ${file}`);
  return Number(match[1]);
}

export interface SegmentFile {
  readonly name: string;
  readonly start: number;
}

/** A recovery base: a snapshot file, or the empty state (`snapshot` undefined, seq 0). */
export interface Base {
  readonly snapshot?: string;
  readonly seq: number;
}

export interface DataFiles {
  /** Ascending by start seq. */
  readonly segments: readonly SegmentFile[];
  /** Newest first, ending with the empty state. */
  readonly bases: readonly Base[];
  /** Seq of the newest snapshot file present, damaged or not (0 when none): recovery must reach it. */
  readonly floor: number;
}

/** Sorts a directory listing into segments and bases. */
export function dataFiles(names: readonly string[]): DataFiles {
  const segments = names
    .filter(isSegmentName)
    .map((name) => ({ name, start: seqOfName(name) }))
    .sort((a, b) => a.start - b.start);
  const snaps = names
    .filter(isSnapshotName)
    .map((name) => ({ snapshot: name, seq: seqOfName(name) }))
    .sort((a, b) => b.seq - a.seq);
  return { segments, bases: [...snaps, { seq: 0 }], floor: snaps[0]?.seq ?? 0 };
}

export type Coverage =
  | {
      readonly ok: true;
      /** Index of the first segment to replay (segments.length when none). */ readonly first: number;
    }
  | { readonly ok: false; readonly missingFrom: number; readonly missingTo: number; readonly reason: string };

/**
 * Whether the segments can replay every batch after `baseSeq`: the segment
 * holding `baseSeq + 1` must exist, i.e. the last segment starting at or
 * before it (a gap further on shows up as a seq gap while replaying). With no
 * segments at all there is nothing to replay and the base covers itself.
 */
export function coverage(baseSeq: number, segments: readonly SegmentFile[]): Coverage {
  if (segments.length === 0) return { ok: true, first: 0 };
  let first = -1;
  for (let i = 0; i < segments.length; i++) if (segments[i]!.start <= baseSeq + 1) first = i;
  if (first >= 0) return { ok: true, first };
  const start = segments[0]!.start;
  return {
    ok: false,
    missingFrom: baseSeq + 1,
    missingTo: start - 1,
    reason: `the log starts at seq ${start} (${segments[0]!.name}), so seqs ${baseSeq + 1}..${start - 1} are missing`,
  };
}

/**
 * Files made redundant once a new snapshot is verified: bases beyond the
 * newest `keepGenerations` (the empty state counts as the oldest base, so a
 * lone snapshot keeps the whole log from seq 1), and segments whose every
 * batch is at or below both the oldest kept base and `peerNeed` (the oldest
 * seq a replication peer has acknowledged). The last segment is never
 * returned: it is the one being appended to.
 */
export function redundantFiles(names: readonly string[], keepGenerations: number, peerNeed?: number): string[] {
  const { segments, bases } = dataFiles(names);
  const keep = Math.max(1, keepGenerations);
  const kept = bases.slice(0, keep);
  const oldestKept = kept[kept.length - 1]!.seq;
  const out = bases.slice(keep).flatMap((b) => (b.snapshot ? [b.snapshot] : []));
  const keepAfter = peerNeed === undefined ? oldestKept : Math.min(oldestKept, peerNeed);
  for (let i = 0; i < segments.length - 1; i++) {
    const lastSeqInSegment = segments[i + 1]!.start - 1;
    if (lastSeqInSegment <= keepAfter) out.push(segments[i]!.name);
  }
  return out;
}
