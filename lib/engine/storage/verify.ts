/**
 * `eddydb verify`: what is damaged, and what a start would do about it.
 *
 * - Every segment and snapshot is walked frame by frame (checksum, length,
 *   decodability, a snapshot's end frame), one file in memory at a time.
 * - Generations are listed newest first with whether each snapshot is intact
 *   and whether the log covers it (from file names, generations.ts).
 * - A dry run of recovery says which generation a normal start would use, or
 *   the exact refusal it would print; when it would refuse, a dry run of
 *   salvage says what `--salvage` would drop. Dry runs change no file, but
 *   build the state in memory, as a start does.
 */
import path from 'node:path';
import { Corruption } from '../../errors.js';
import { checkHeader, HEADER_SIZE, readFrame } from './frame.js';
import { decodePayload } from './codec.js';
import type { StorageFs } from './fs.js';
import { coverage, dataFiles, isSegmentName, isSnapshotName } from './generations.js';
import { LOG_MAGIC, LOG_VERSION } from './log-writer.js';
import { SNAP_MAGIC, SNAP_VERSION } from './snapshot.js';
import { recover } from './recovery.js';
import type { RecoveryReport } from './recovery-report.js';

export interface FileReport {
  file: string;
  kind: 'segment' | 'snapshot';
  frames: number;
  bytes: number;
  ok: boolean;
  /** What is wrong and where, when not ok. */
  problem?: string;
}

export interface GenerationReport {
  /** Snapshot file name, or undefined for the empty state. */
  snapshot?: string;
  seq: number;
  /** Whether the snapshot reads completely (always true for the empty state). */
  intact: boolean;
  /** Whether the segments can replay every batch after `seq`, judged by their names. */
  covered: boolean;
  /** The snapshot's problem or the coverage gap. */
  problem?: string;
}

export type StartVerdict =
  | { ok: true; seq: number; report: RecoveryReport }
  | { ok: false; message: string; salvage?: { seq: number; report: RecoveryReport } | { error: string } };

export interface VerifyResult {
  files: FileReport[];
  /** Newest first, ending with the empty state. */
  generations: GenerationReport[];
  /** What `eddydb start` would do; `ok: false` means it would refuse. */
  start: StartVerdict;
}

/** Checks every frame of every segment and snapshot in `dir`. */
export async function verifyDataDir(fs: StorageFs, dir: string): Promise<FileReport[]> {
  const files = (await fs.readdir(dir)).filter((f) => isSegmentName(f) || isSnapshotName(f)).sort();
  const reports: FileReport[] = [];
  for (const file of files) {
    const kind = isSegmentName(file) ? 'segment' : 'snapshot';
    reports.push(verifyFile(file, kind, await fs.readFile(path.join(dir, file))));
  }
  return reports;
}

/**
 * Full verification: file reports, generations and the start verdict.
 * Changes nothing on disk. Throws only on I/O errors.
 */
export async function verifyGenerations(fs: StorageFs, dir: string): Promise<VerifyResult> {
  const files = await verifyDataDir(fs, dir);
  const byName = new Map(files.map((f) => [f.file, f]));
  const { bases, segments } = dataFiles(await fs.readdir(dir));
  const generations = bases.map((b): GenerationReport => {
    const cov = coverage(b.seq, segments);
    const file = b.snapshot ? byName.get(b.snapshot) : undefined;
    const intact = file?.ok ?? true;
    const problem = !intact ? file!.problem : cov.ok ? undefined : cov.reason;
    return { snapshot: b.snapshot, seq: b.seq, intact, covered: cov.ok, ...(problem ? { problem } : {}) };
  });
  return { files, generations, start: await startVerdict(fs, dir) };
}

async function startVerdict(fs: StorageFs, dir: string): Promise<StartVerdict> {
  try {
    const r = await recover(fs, dir, { dryRun: true });
    return { ok: true, seq: r.state.seq, report: r.report };
  } catch (err) {
    if (!(err instanceof Corruption)) throw err;
    try {
      const s = await recover(fs, dir, { dryRun: true, salvage: true });
      return { ok: false, message: err.message, salvage: { seq: s.state.seq, report: s.report } };
    } catch (salvageErr) {
      return { ok: false, message: err.message, salvage: { error: (salvageErr as Error).message } };
    }
  }
}

function verifyFile(file: string, kind: FileReport['kind'], buf: Buffer): FileReport {
  const report: FileReport = { file, kind, frames: 0, bytes: buf.length, ok: true };
  const [magic, version] = kind === 'segment' ? [LOG_MAGIC, LOG_VERSION] : [SNAP_MAGIC, SNAP_VERSION];
  if (checkHeader(buf, magic) !== version) return { ...report, ok: false, problem: 'bad header (magic or format version) at byte 0' };
  let offset = HEADER_SIZE;
  let last: unknown;
  for (;;) {
    const r = readFrame(buf, offset);
    if (r.kind === 'end') break;
    if (r.kind !== 'frame') return { ...report, ok: false, problem: `${r.reason} at byte ${offset}` };
    try {
      last = decodePayload(r.payload);
    } catch (err) {
      return { ...report, ok: false, problem: `undecodable payload at byte ${offset}: ${(err as Error).message}` };
    }
    report.frames += 1;
    offset = r.next;
    if (kind === 'snapshot' && (last as { k?: string } | undefined)?.k === 'end') break;
  }
  if (kind === 'snapshot' && (last as { k?: string } | undefined)?.k !== 'end') {
    return { ...report, ok: false, problem: `snapshot has no end frame (incomplete) at byte ${offset}` };
  }
  return report;
}
