/**
 * testing: `eddydb/testing` as an application's test suite meets it, measured
 * in child processes that import the built fixture (bench/testing-child.ts,
 * transpiled to dist/bench/; the import's own time is reported apart):
 *
 * - start: startTestServer() until it resolves, against a bare node:http
 *   server listening on port 0 (both closed after each start, alternating).
 * - reset and restore at 10,000 and 1,000,000 seeded records of ~200 bytes,
 *   after a test-like change (100 inserts, 10 seeded records updated, with
 *   or without one seeded record deleted), against copying a Map of the same
 *   records: the naive reset of a fixture that keeps its seeded state as a
 *   copy. Seeding time is reported too.
 * - a test file of 100 tests, each 100 single inserts over HTTP (node's
 *   fetch, keep-alive) and then reset(), against the same inserts without
 *   resets on a fresh fixture: the ratio is the cost of isolation.
 *
 * Every ratio is a time, subject / reference (below 1: the subject takes less).
 * The aims: start under 50 ms, reset under 1 ms at 1,000,000 records.
 */
import { spawnSync } from 'node:child_process';
import { compiled } from '../lib/procs.js';
import { percentile, report, type Measurement } from '../lib/report.js';

const STARTS = Number(process.env.BENCH_TESTING_STARTS ?? 30);
const SIZES = (process.env.BENCH_TESTING_RECORDS ?? '10000,1000000').split(',').map(Number);
const RESET_RUNS = Number(process.env.BENCH_TESTING_RESETS ?? 20);
/** Runs of the reset that deletes a seeded record, and of the Map copy, at a million records: each takes ~1 s. */
const SLOW_RESET_RUNS = 5;
const TESTS = 100,
  INSERTS = 100,
  FILE_ROUNDS = Number(process.env.BENCH_TESTING_FILE_ROUNDS ?? 3);
const START_AIM_MS = 50,
  RESET_AIM_MS = 1,
  RESET_AIM_RECORDS = 1_000_000;

interface StartFigures {
  importMs: number;
  firstStartMs: number;
  firstCloseMs: number;
  firstBareMs: number;
  fixtureStart: number[];
  fixtureClose: number[];
  bare: number[];
  bareClose: number[];
}

interface ResetFigures {
  records: number;
  seedStartMs: number;
  resetChanges: number[];
  restoreChanges: number[];
  resetDelete: number[];
  restoreDelete: number[];
  checkpointMs: number[];
  mapCopy: number[];
}

interface FileRun {
  totalMs: number;
  perTest: number[];
  resets: number[];
}

interface FileFigures {
  tests: number;
  inserts: number;
  withReset: FileRun[];
  without: FileRun[];
}

/** Runs one part of bench/testing-child.ts in a fresh process; its JSON line. */
function child<T>(args: string[]): T {
  const r = spawnSync(process.execPath, ['--max-old-space-size=8192', compiled('bench/testing-child.ts'), ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
    timeout: 30 * 60_000,
  });
  try {
    return JSON.parse(r.stdout.trim().split('\n').pop()!) as T;
  } catch {
    throw new Error(`testing child '${args.join(' ')}' failed (status ${r.status}, signal ${r.signal})`);
  }
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const p50 = (xs: number[]) => percentile(sorted(xs), 50);
const p90 = (xs: number[]) => percentile(sorted(xs), 90);
const ms = (n: number) => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n >= 10 ? n.toFixed(1) : n.toFixed(3));
const count = (n: number) => n.toLocaleString('en-US');

/** A timed step's measurement; the label carries its figures, since the docs table shows the label. */
function timing(label: string, times: number[]): Measurement {
  return {
    label: `${label}: p50 ${ms(p50(times))} ms, p90 ${ms(p90(times))} ms`,
    p50_ms: p50(times),
    p90_ms: p90(times),
    max_ms: Math.max(...times),
    runs: times.length,
  };
}

function aim(met: boolean, what: string): string {
  return `${met ? 'met' : 'NOT met'} (${what})`;
}

interface Row {
  subject: Measurement;
  reference: Measurement;
  ratio: number;
  target?: string;
}

function row(subject: Measurement, reference: Measurement, target?: string): Row {
  return {
    subject,
    reference,
    ratio: (subject.p50_ms as number) / (reference.p50_ms as number),
    ...(target ? { target } : {}),
  };
}

function startRows(s: StartFigures): { rows: Row[]; extra: Record<string, unknown> } {
  const subject = timing('startTestServer() to resolved', s.fixtureStart);
  const reference = timing('bare node:http listen(0)', s.bare);
  const met = p50(s.fixtureStart) < START_AIM_MS;
  return {
    rows: [row(subject, reference, `start < ${START_AIM_MS} ms`)],
    extra: {
      start_p50_ms: p50(s.fixtureStart),
      start_p90_ms: p90(s.fixtureStart),
      start_first_in_process_ms: s.firstStartMs,
      start_aim: aim(met, `p50 ${ms(p50(s.fixtureStart))} ms; first start in a process ${ms(s.firstStartMs)} ms`),
      close_p50_ms: p50(s.fixtureClose),
      bare_start_p50_ms: p50(s.bare),
      import_ms: s.importMs,
    },
  };
}

function resetRows(r: ResetFigures): { rows: Row[]; extra: Record<string, unknown> } {
  const n = count(r.records);
  const reference = timing(`copying a Map of the ${n} records`, r.mapCopy);
  const atAim = r.records >= RESET_AIM_RECORDS;
  const target = atAim ? `reset < ${RESET_AIM_MS} ms at ${count(RESET_AIM_RECORDS)} records` : undefined;
  const key = r.records >= 1_000_000 ? `${r.records / 1_000_000}m` : `${r.records / 1000}k`;
  const extra: Record<string, unknown> = {
    [`seed_${key}_s`]: r.seedStartMs / 1000,
    [`seed_${key}_records_per_s`]: r.records / (r.seedStartMs / 1000),
    [`reset_${key}_changes_p50_ms`]: p50(r.resetChanges),
    [`restore_${key}_changes_p50_ms`]: p50(r.restoreChanges),
    [`reset_${key}_delete_p50_ms`]: p50(r.resetDelete),
    [`restore_${key}_delete_p50_ms`]: p50(r.restoreDelete),
    [`checkpoint_${key}_p50_ms`]: p50(r.checkpointMs),
    [`map_copy_${key}_p50_ms`]: p50(r.mapCopy),
  };
  if (atAim) {
    extra[`reset_aim_${key}_changes`] = aim(p50(r.resetChanges) < RESET_AIM_MS, `p50 ${ms(p50(r.resetChanges))} ms`);
    extra[`reset_aim_${key}_delete`] = aim(p50(r.resetDelete) < RESET_AIM_MS, `p50 ${ms(p50(r.resetDelete))} ms`);
  }
  return {
    rows: [
      row(timing(`reset() after 100 inserts and 10 updates, ${n} records`, r.resetChanges), reference, target),
      row(
        timing(`reset() after 100 inserts, 10 updates and 1 seeded record deleted, ${n} records`, r.resetDelete),
        reference,
        target,
      ),
      row(
        timing(`checkpoint() + restore() after the same change with the delete, ${n} records`, r.restoreDelete),
        reference,
      ),
    ],
    extra,
  };
}

function fileRows(f: FileFigures): { rows: Row[]; extra: Record<string, unknown> } {
  // The cheaper round of each: the slower one is the machine, not the fixture.
  const cheaper = (runs: FileRun[]) => runs.reduce((a, b) => (b.totalMs < a.totalMs ? b : a));
  const withReset = cheaper(f.withReset),
    without = cheaper(f.without);
  const what = `${f.tests} tests x ${f.inserts} single inserts over HTTP`;
  const measure = (label: string, run: FileRun, rounds: FileRun[]): Measurement => ({
    label: `${label}: ${ms(run.totalMs)} ms, per test p50 ${ms(p50(run.perTest))} ms`,
    p50_ms: run.totalMs,
    per_test_p50_ms: p50(run.perTest),
    per_test_p90_ms: p90(run.perTest),
    rounds_total_ms: rounds.map((r) => r.totalMs),
  });
  const subject = measure(`${what}, reset() after each`, withReset, f.withReset);
  const reference = measure(`${what}, no resets (fresh fixture)`, without, f.without);
  return {
    rows: [{ subject, reference, ratio: withReset.totalMs / without.totalMs }],
    extra: {
      file_total_ms: withReset.totalMs,
      file_per_test_p50_ms: p50(withReset.perTest),
      file_reset_p50_ms: p50(withReset.resets),
      file_without_resets_total_ms: without.totalMs,
    },
  };
}

export async function testing(): Promise<void> {
  compiled('bench/lib/records.ts');
  console.log(`\n(testing: ${STARTS} starts...)`);
  const start = startRows(child<StartFigures>(['start', String(STARTS)]));
  const resets = SIZES.map((records) => {
    console.log(`(testing: resets at ${count(records)} records...)`);
    const slow = records >= RESET_AIM_RECORDS ? Math.min(RESET_RUNS, SLOW_RESET_RUNS) : RESET_RUNS;
    return resetRows(child<ResetFigures>(['reset', String(records), String(RESET_RUNS), String(slow)]));
  });
  console.log(`(testing: a test file of ${TESTS} tests, ${FILE_ROUNDS} rounds...)`);
  const file = fileRows(child<FileFigures>(['file', String(TESTS), String(INSERTS), String(FILE_ROUNDS)]));
  const parts = [start, ...resets, file];
  const rows = parts.flatMap((p) => p.rows);
  for (const r of rows) console.log(`  ${r.subject.label}\n    vs ${r.reference.label}: ratio ${r.ratio.toFixed(4)}`);
  // The headline: the reset the aim names, at the most records measured, after a change that deletes nothing.
  const headline = resets.at(-1)?.rows[0] ?? start.rows[0]!;
  report({
    scenario: 'testing',
    subject: headline.subject,
    reference: headline.reference,
    ratio: headline.ratio,
    ratio_of: 'time, subject / reference (below 1: the subject takes less)',
    load_tool: 'in process; HTTP by node fetch (keep-alive)',
    target: `start < ${START_AIM_MS} ms; reset < ${RESET_AIM_MS} ms at ${count(RESET_AIM_RECORDS)} records`,
    rows,
    extra: Object.assign({}, ...parts.map((p) => p.extra)) as Record<string, unknown>,
    notes:
      'in process, memory only; times are p50 over the runs (starts: alternating with the bare server; the ' +
      'test file: the cheaper of its rounds); the reference for resets is new Map(copy) of plain records',
  });
}
