/**
 * `eddydb verify` as text: one line per file (records, not frames: a
 * snapshot's records and collections, a segment's batches and record
 * writes), the generations, the records per collection a start would load
 * with their total, and the start verdict (with what --salvage would do
 * when a start would refuse). Exit 1 when a normal start would refuse.
 */
import {
  DirLock,
  nodeFs,
  verifyGenerations,
  type CollectionCount,
  type FileReport,
  type VerifyResult,
} from '../../engine/index.js';
import { requireDataDir } from './data-dir.js';
import { toolLog } from './tool-log.js';

/**
 * Verifies `dataDir` and prints the report; resolves with the exit code.
 * It holds the directory's lock (waiting up to `lockWaitMs`) while it reads:
 * a running server appends to the log and deletes old generations, which
 * would show up as damage that is not there.
 */
export async function runVerify(dataDir: string, lockWaitMs?: number): Promise<number> {
  requireDataDir(dataDir, { canCreate: false, create: false });
  const lock = await DirLock.acquire(nodeFs, dataDir, { waitMs: lockWaitMs, log: toolLog });
  let result: VerifyResult;
  try {
    result = await verifyGenerations(nodeFs, dataDir);
  } finally {
    await lock.release();
  }
  console.log(formatVerify(result).join('\n'));
  return result.start.ok ? 0 : 1;
}

/** The report's lines. Pure. */
export function formatVerify(r: VerifyResult): string[] {
  const out = r.files.map(
    (f) =>
      `${f.ok ? 'ok ' : 'BAD'} ${f.file}  ${fileContents(f)}, ${f.bytes} bytes${f.problem ? `  ${f.problem}` : ''}`,
  );
  out.push(`${r.files.length} files checked, ${r.files.filter((f) => !f.ok).length} with problems`);
  out.push('generations, newest first:');
  for (const g of r.generations) {
    const name = g.snapshot ? `${g.snapshot} (seq ${g.seq})` : 'the empty state (seq 0)';
    const state = !g.intact ? 'DAMAGED' : g.covered ? 'intact, the log covers it' : 'NOT COVERED';
    out.push(`  ${name}: ${state}${g.problem ? ` (${g.problem})` : ''}`);
  }
  const { start } = r;
  if (start.ok) {
    out.push(
      `a normal start would succeed: from ${start.report.snapshot ?? 'the empty state'}, replaying ` +
        `${start.report.replayedBatches} batches to seq ${start.seq}`,
    );
    out.push(...start.report.warnings.map((w) => `  warning: ${w}`));
    out.push(...recordCounts('records it would load', start.collections));
    return out;
  }
  out.push(`a normal start would REFUSE: ${start.message}`);
  if (!start.salvage) return out;
  if ('error' in start.salvage) return [...out, `--salvage would fail too: ${start.salvage.error}`];
  const s = start.salvage.report;
  out.push(
    `--salvage would start from ${s.snapshot ?? 'the empty state'} and reach seq ${start.salvage.seq}, dropping ` +
      `${s.droppedFrames} frames (${s.droppedBytes} bytes):`,
  );
  out.push(...s.warnings.map((w) => `  ${w}`));
  out.push(...recordCounts('records --salvage would keep', start.salvage.collections));
  return out;
}

function fileContents(f: FileReport): string {
  if (f.kind === 'snapshot') return `${plural(f.records, 'record')} in ${plural(f.collections, 'collection')}`;
  return `${plural(f.frames, 'batch', 'batches')}, ${plural(f.records, 'record write')}`;
}

function recordCounts(title: string, collections: readonly CollectionCount[]): string[] {
  const total = collections.reduce((n, c) => n + c.records, 0);
  const width = Math.max(0, ...collections.map((c) => c.name.length));
  return [
    `${title}, per collection:`,
    ...collections.map((c) => `  ${c.name.padEnd(width)}  ${c.records}`),
    `  total: ${plural(total, 'record')} in ${plural(collections.length, 'collection')}`,
  ];
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
