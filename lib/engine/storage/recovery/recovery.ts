/**
 * Recovery: the newest generation that is intact and that the log covers.
 *
 * Bases are tried newest first (snapshots, then the empty state). A base is
 * usable only when its snapshot reads completely and the segments replay
 * from its seq + 1 to the end of the log with no gap; the result must reach
 * the seq of the newest snapshot file present, damaged or not, so a damaged
 * newest snapshot is never replaced by an older, shorter history. When no
 * generation qualifies, startup is refused with one Corruption naming the
 * file, the byte and the way out (`eddydb verify`, `--salvage`), and nothing
 * on disk is changed. A torn tail of the last segment is truncated and
 * reported as a warning.
 *
 * Salvage (opt-in, only when a normal start would refuse): the newest intact
 * covered generation that reaches the floor, replaying past damaged frames;
 * failing that, the newest snapshot read as far as it is readable, then every
 * readable batch after it in seq order. Everything skipped is reported.
 */
import path from 'node:path';
import { Corruption } from '../../../errors.js';
import { DbState } from '../../write/state.js';
import { coverage, dataFiles, type Base, type DataFiles } from '../generations.js';
import type { StorageFs } from '../fs.js';
import { readSnapshot } from '../snapshot/snapshot-reader.js';
import { releaseSource } from '../codec.js';
import { replaySegments, type ReplayResult } from '../log/segment-replay.js';
import {
  countSeqs,
  describeDamage,
  describeGaps,
  describeTail,
  type DamagedFile,
  type RecoveryReport,
} from './recovery-report.js';
import { preserveDamaged } from './damaged-files.js';

/**
 * What was loaded and replayed goes at debug (the server's startup summary says it once); long replays report progress
 * at info.
 */
export type RecoveryLog = (msg: string, level: 'debug' | 'info' | 'warn') => void;

export interface RecoveryOptions {
  log?: RecoveryLog;
  /** When a normal start would refuse, start from what is readable instead (salvage.ts). */
  salvage?: boolean;
  /** Change nothing on disk; only report what a start would do (`eddydb verify`). */
  dryRun?: boolean;
  /** Epoch ms: names the directory damaged files are moved to. */
  now?: number;
}

export interface RecoveryResult {
  state: DbState;
  /** The last segment and its valid size, to reopen for appending. */
  lastSegment?: { name: string; size: number };
  report: RecoveryReport;
}

/** What a strategy (normal or salvage) recovered, before any file is touched. */
interface Outcome {
  state: DbState;
  base: Base;
  replay: ReplayResult;
  /** Snapshots that could not be used (and, in salvage, one read partially). */
  snapshots: DamagedFile[];
  salvaged: boolean;
}

/** Batch-replay progress for long recoveries, at most once a second. */
type OnBatch = () => void;

/**
 * Recovers the state in `dir`. Throws Corruption (message names file, byte
 * and the way out) when no generation covers the data and salvage is off;
 * nothing on disk has changed then. Otherwise removes leftover `.tmp` files,
 * truncates a torn tail and moves damaged files into `damaged-<time>/`
 * (salvage copies them; Database removes the originals after its fresh
 * snapshot), unless `dryRun`.
 */
export async function recover(fs: StorageFs, dir: string, opts: RecoveryOptions = {}): Promise<RecoveryResult> {
  const log = opts.log ?? (() => undefined);
  const names = await fs.readdir(dir);
  const files = dataFiles(names);
  const onBatch = progressLogger(log);
  let outcome: Outcome;
  try {
    outcome = await recoverGeneration(fs, dir, files, onBatch);
  } catch (err) {
    if (!(err instanceof Corruption)) throw err;
    if (!opts.salvage) throw withWayOut(err, dir);
    log(`normal recovery would refuse (${err.message}); salvaging what is readable`, 'warn');
    outcome = await recoverSalvage(fs, dir, files, onBatch);
  }
  releaseSource();
  const report = buildReport(outcome);
  if (!opts.dryRun) {
    for (const name of names.filter((n) => n.endsWith('.tmp'))) {
      await fs.unlink(path.join(dir, name));
      log(`removed leftover ${name} (an interrupted snapshot)`, 'info');
    }
    if (report.tail && outcome.replay.lastSegment)
      await truncate(fs, path.join(dir, report.tail.segment), report.tail.offset);
    if (report.damaged.length > 0 || report.salvaged) {
      report.movedTo = await preserveDamaged(
        fs,
        dir,
        report,
        opts.now ?? Date.now(),
        outcome.salvaged ? 'copy' : 'move',
      );
      report.warnings.push(
        `damaged files ${outcome.salvaged ? 'copied' : 'moved'} to ${report.movedTo}/ (with recovery-report.json)`,
      );
    }
  }
  if (report.snapshot) log(`loaded ${report.snapshot} (seq ${outcome.base.seq})`, 'debug');
  log(
    `recovered from ${label(outcome.base)}: ` +
      `replayed ${report.replayedBatches} batches, now at seq ${outcome.state.seq}`,
    'debug',
  );
  for (const warning of report.warnings) log(warning, 'warn');
  return { state: outcome.state, lastSegment: outcome.replay.lastSegment, report };
}

/** Normal recovery: the newest intact, covered generation that reaches the floor. */
async function recoverGeneration(fs: StorageFs, dir: string, files: DataFiles, onBatch: OnBatch): Promise<Outcome> {
  const damaged: DamagedFile[] = [];
  const uncovered: string[] = [];
  for (const base of files.bases) {
    const cov = coverage(base.seq, files.segments);
    if (!cov.ok) {
      uncovered.push(`${label(base)}: ${cov.reason}`);
      continue;
    }
    const state = await loadBase(fs, dir, base, damaged);
    if (!state) continue;
    const replay = await replaySegments(fs, dir, files.segments.slice(cov.first), state, { salvage: false, onBatch });
    if (state.seq < files.floor) {
      uncovered.push(`${label(base)} and the log reach only seq ${state.seq}, short of ${files.floor}`);
      break;
    }
    return { state, base, replay, snapshots: damaged, salvaged: false };
  }
  throw noGeneration(damaged, uncovered, files);
}

/**
 * Salvage: the newest intact covered generation if it reaches the floor
 * (replaying past damaged frames); otherwise the newest snapshot read as far
 * as it is readable, then every readable batch after its seq.
 */
async function recoverSalvage(fs: StorageFs, dir: string, files: DataFiles, onBatch: OnBatch): Promise<Outcome> {
  const damaged: DamagedFile[] = [];
  for (const base of files.bases) {
    const cov = coverage(base.seq, files.segments);
    if (!cov.ok) continue;
    const state = await loadBase(fs, dir, base, damaged);
    if (!state) continue;
    const replay = await replaySegments(fs, dir, files.segments.slice(cov.first), state, { salvage: true, onBatch });
    if (state.seq >= files.floor) return { state, base, replay, snapshots: damaged, salvaged: true };
    break; // every base shares the same log end: none reaches the floor
  }
  const base = files.bases[0]!;
  let state = new DbState();
  const snapshots = damaged.filter((d) => d.file !== base.snapshot);
  if (base.snapshot) {
    const read = await readSnapshot(fs, path.join(dir, base.snapshot), base.seq, { salvage: true });
    state = read.state;
    if (read.damage) snapshots.unshift({ kind: 'snapshot', file: base.snapshot, lost: true, damage: read.damage });
  }
  const { segments } = files;
  const after = segments.filter((s, i) => i === segments.length - 1 || segments[i + 1]!.start - 1 > base.seq);
  const replay = await replaySegments(fs, dir, after, state, { salvage: true, onBatch });
  return { state, base, replay, snapshots, salvaged: true };
}

/** The state a base starts from, or undefined (recorded in `damaged`) when its snapshot is damaged. */
async function loadBase(fs: StorageFs, dir: string, base: Base, damaged: DamagedFile[]): Promise<DbState | undefined> {
  if (!base.snapshot) return new DbState();
  try {
    return (await readSnapshot(fs, path.join(dir, base.snapshot), base.seq)).state;
  } catch (err) {
    if (!(err instanceof Corruption)) throw err;
    damaged.push({ kind: 'snapshot', file: base.snapshot, lost: false, offset: err.offset, reason: reasonOf(err) });
    return undefined;
  }
}

function label(base: Base): string {
  return base.snapshot ? `${base.snapshot} (seq ${base.seq})` : 'the empty state (seq 0)';
}

function noGeneration(damaged: DamagedFile[], uncovered: string[], files: DataFiles): Corruption {
  const why = `no generation covers the data (${uncovered.join('; ') || 'nothing to fall back to'})`;
  const first = damaged[0];
  if (first?.kind === 'snapshot') return new Corruption(first.file, first.offset ?? 0, `${first.reason}; ${why}`);
  return new Corruption(files.segments[0]?.name ?? '(log)', 0, why);
}

function reasonOf(err: Corruption): string {
  return err.message.replace(/^corruption in .* at byte \d+: /, '');
}

/** The refusal: what is wrong, where, and how out. */
function withWayOut(err: Corruption, dir: string): Corruption {
  return new Corruption(
    err.file,
    err.offset,
    `${reasonOf(err)}. The server did not start and changed nothing. ` +
      `Run \`eddydb verify --data-dir ${dir}\` to see every damaged file and what a start would use, or start with ` +
      `--salvage ` +
      `(or EDDYDB_SALVAGE=1) to start from what is readable: damaged files are moved to ` +
      `${path.join(dir, 'damaged-<time>')}/ ` +
      'and everything dropped is reported',
  );
}

function buildReport(outcome: Outcome): RecoveryReport {
  const { replay } = outcome;
  const damaged: DamagedFile[] = [
    ...outcome.snapshots,
    ...replay.damaged.map((d) => ({ kind: 'segment' as const, lost: true as const, ...d })),
  ];
  let droppedFrames = replay.tail?.frames ?? 0,
    droppedBytes = replay.tail?.bytes ?? 0;
  for (const damage of damaged) {
    if (damage.kind === 'segment') {
      droppedFrames += countSeqs(damage.lostSeqs).n;
      for (const range of damage.skipped) droppedBytes += range.to - range.from;
    } else if (damage.damage) {
      droppedFrames += damage.damage.droppedFrames;
      for (const range of damage.damage.skipped) droppedBytes += range.to - range.from;
    }
  }
  const warnings = damaged.map(describeDamage);
  if (outcome.salvaged)
    warnings.push(`salvage started from ${label(outcome.base)} and applied every readable batch after it`);
  else if (outcome.snapshots.length > 0) warnings.push(`recovered from ${label(outcome.base)} and the log instead`);
  if (replay.tail) warnings.push(describeTail(replay.tail));
  if (replay.gaps.length) warnings.push(describeGaps(replay.gaps));
  for (const collection of replay.recreated)
    warnings.push(`collection '${collection}' recreated without its schema: the batch that created it was lost`);
  return {
    snapshot: outcome.base.snapshot ?? null,
    replayedBatches: replay.replayed,
    droppedFrames,
    droppedBytes,
    warnings,
    salvaged: outcome.salvaged,
    damaged,
    tail: replay.tail,
    gaps: replay.gaps,
    recreated: replay.recreated,
  };
}

function progressLogger(log: RecoveryLog): OnBatch {
  const started = Date.now();
  let replayed = 0,
    last = started;
  return () => {
    replayed += 1;
    if (replayed % 100_000 === 0 && Date.now() - last > 1000) {
      last = Date.now();
      log(`recovery: replayed ${replayed} batches, ${((last - started) / 1000).toFixed(1)} s`, 'info');
    }
  };
}

async function truncate(fs: StorageFs, file: string, length: number): Promise<void> {
  const handle = await fs.openAppend(file);
  try {
    await handle.truncate(length);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
