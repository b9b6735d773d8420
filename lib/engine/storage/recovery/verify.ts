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
 *   build the state in memory, as a start does; the verdict counts the
 *   records per collection that start would load.
 * - A file that cannot be read, or a dry run that fails for any reason, is a
 *   finding in the result, never a throw: verify is what people run when
 *   things are broken.
 */
import path from 'node:path';
import { Corruption } from '../../../errors.js';
import { checkHeader, HEADER_SIZE, isZeroFill, readFrame } from '../frame.js';
import { decodePayload, storedKind } from '../codec.js';
import type { StorageFs } from '../fs.js';
import { coverage, dataFiles, isSegmentName, isSnapshotName } from '../generations.js';
import { LOG_MAGIC, LOG_VERSION } from '../log/log-writer.js';
import { SNAP_MAGIC, SNAP_VERSION } from '../snapshot/snapshot.js';
import { recover } from './recovery.js';
import type { RecoveryReport } from './recovery-report.js';
import type { DbState } from '../../write/state.js';

export interface FileReport {
  file: string;
  kind: 'segment' | 'snapshot';
  /** Frames read: batches in a segment, sections and record chunks in a snapshot. */
  frames: number;
  /** Segment: record writes (put, delete, restore, purge effects). Snapshot: live records held. */
  records: number;
  /** Snapshot: collections held (0 for a segment). */
  collections: number;
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

/** Records a start would load into one collection (expired ones not yet swept included). */
export interface CollectionCount {
  name: string;
  records: number;
}

export type StartVerdict =
  | { ok: true; seq: number; report: RecoveryReport; collections: CollectionCount[] }
  | {
      ok: false;
      message: string;
      salvage?: { seq: number; report: RecoveryReport; collections: CollectionCount[] } | { error: string };
    };

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
    let buf: Buffer;
    try {
      buf = await fs.readFile(path.join(dir, file));
    } catch (err) {
      reports.push({
        file,
        kind,
        frames: 0,
        records: 0,
        collections: 0,
        bytes: 0,
        ok: false,
        problem: `cannot be read: ${describeError(err)}`,
      });
      continue;
    }
    reports.push(verifyFile(file, kind, buf));
  }
  return reports;
}

/**
 * Full verification: file reports, generations and the start verdict.
 * Changes nothing on disk. Throws only when `dir` itself cannot be listed;
 * unreadable files and failed dry runs are findings in the result.
 */
export async function verifyGenerations(fs: StorageFs, dir: string): Promise<VerifyResult> {
  const files = await verifyDataDir(fs, dir);
  const byName = new Map(files.map((f) => [f.file, f]));
  const { bases, segments } = dataFiles(await fs.readdir(dir));
  const generations = bases.map((base): GenerationReport => {
    const cov = coverage(base.seq, segments);
    const file = base.snapshot ? byName.get(base.snapshot) : undefined;
    const intact = file?.ok ?? true;
    const problem = !intact ? file!.problem : cov.ok ? undefined : cov.reason;
    return { snapshot: base.snapshot, seq: base.seq, intact, covered: cov.ok, ...(problem ? { problem } : {}) };
  });
  return { files, generations, start: await startVerdict(fs, dir) };
}

async function startVerdict(fs: StorageFs, dir: string): Promise<StartVerdict> {
  try {
    const normal = await recover(fs, dir, { dryRun: true });
    return { ok: true, seq: normal.state.seq, report: normal.report, collections: countRecords(normal.state) };
  } catch (err) {
    const message = describeError(err);
    try {
      const salvaged = await recover(fs, dir, { dryRun: true, salvage: true });
      return {
        ok: false,
        message,
        salvage: { seq: salvaged.state.seq, report: salvaged.report, collections: countRecords(salvaged.state) },
      };
    } catch (salvageErr) {
      return { ok: false, message, salvage: { error: describeError(salvageErr) } };
    }
  }
}

function countRecords(state: DbState): CollectionCount[] {
  return [...state.collections]
    .map(([name, c]) => ({ name, records: c.records.size }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Corruption says file and byte already; an fs error is its errno code and message; anything else keeps its class name.
 */
function describeError(err: unknown): string {
  if (err instanceof Corruption) return err.message;
  if (!(err instanceof Error)) return String(err);
  const code = (err as NodeJS.ErrnoException).code;
  return code && err.message.startsWith(code) ? err.message : `${code ?? err.name}: ${err.message}`;
}

function verifyFile(file: string, kind: FileReport['kind'], buf: Buffer): FileReport {
  const report: FileReport = { file, kind, frames: 0, records: 0, collections: 0, bytes: buf.length, ok: true };
  const [magic, version] = kind === 'segment' ? [LOG_MAGIC, LOG_VERSION] : [SNAP_MAGIC, SNAP_VERSION];
  if (checkHeader(buf, magic) !== version)
    return { ...report, ok: false, problem: 'bad header (magic or format version) at byte 0' };
  let offset = HEADER_SIZE;
  let last: unknown;
  for (;;) {
    const read = readFrame(buf, offset);
    if (read.kind === 'end') break;
    // A segment may end in zero fill, space its writer prepared and never used.
    if (kind === 'segment' && isZeroFill(buf, offset)) break;
    if (read.kind !== 'frame') return { ...report, ok: false, problem: `${read.reason} at byte ${offset}` };
    try {
      last = decodePayload(read.payload);
    } catch (err) {
      return { ...report, ok: false, problem: `undecodable payload at byte ${offset}: ${(err as Error).message}` };
    }
    report.frames += 1;
    countFrame(report, last);
    offset = read.next;
    if (kind === 'snapshot' && (last as { k?: string } | undefined)?.k === 'end') break;
  }
  if (kind === 'snapshot' && (last as { k?: string } | undefined)?.k !== 'end') {
    return { ...report, ok: false, problem: `snapshot has no end frame (incomplete) at byte ${offset}` };
  }
  return report;
}

const RECORD_EFFECTS = new Set(['put', 'delete', 'restore', 'purge']);

/** Adds what one decoded frame holds to the file's record and collection counts. */
function countFrame(report: FileReport, payload: unknown): void {
  const frame = payload as { k?: string; rows?: unknown[]; effects?: unknown[] } | undefined;
  if (report.kind === 'segment') {
    for (const effect of frame?.effects ?? [])
      if (RECORD_EFFECTS.has(storedKind(effect) as string)) report.records += 1;
    return;
  }
  if (frame?.k === 'coll') report.collections += 1;
  if (frame?.k === 'recs') report.records += frame.rows?.length ?? 0;
}
