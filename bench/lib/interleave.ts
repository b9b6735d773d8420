/**
 * Interleaved measurement: a subject and its reference run alternately in
 * the same benchmark run (reference, subject, reference, subject... for N
 * rounds), both servers up the whole time on the same pinned core, so slow
 * drifts of a shared machine hit both. Each run also yields the server's
 * CPU per operation (its /proc CPU time delta divided by operations done).
 * Reported: medians over rounds, and the median of the per-round ratios.
 */
import { load, type LoadResult, type LoadSpec } from './load.js';
import { processCpuMicros } from './proc-cpu.js';
import type { Measurement } from './report.js';

export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

/** Above this share of its core, the load generator may be the bottleneck. */
const LOAD_SATURATED = 0.9;

export interface Contender {
  label: string;
  /** The server process whose CPU is charged to this contender. */
  pid: number;
  /** One load run against the server; `seconds` is how long to load it. */
  run(seconds: number): Promise<LoadResult>;
}

/** A contender that loads `server` (its CPU charged) with `spec`, for as long as each run asks. */
export const loadContender = (label: string, server: { pid: number }, spec: LoadSpec): Contender => ({
  label,
  pid: server.pid,
  run: (seconds) => load(label, { ...spec, seconds }),
});

export interface Summary extends Measurement {
  label: string;
  throughput: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  cpu_us_per_op: number;
  errors: number;
  non2xx: number;
  /** Median CPU of the load generator, in cores. */
  load_cpu?: number;
  rounds: Array<{ throughput: number; p99_ms: number; cpu_us_per_op: number }>;
}

export interface Interleaved {
  reference: Summary;
  subjects: Summary[];
  /** Per subject: the median over rounds of subject / reference throughput. */
  ratios: number[];
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

async function measured(c: Contender, seconds: number): Promise<LoadResult & { cpu_us_per_op: number }> {
  const before = processCpuMicros(c.pid);
  const r = await c.run(seconds);
  const cpu = processCpuMicros(c.pid) - before;
  return { ...r, cpu_us_per_op: r.requests > 0 ? cpu / r.requests : NaN };
}

function summarise(label: string, runs: Array<LoadResult & { cpu_us_per_op: number }>): Summary {
  return {
    label,
    throughput: median(runs.map((r) => r.throughput)),
    p50_ms: median(runs.map((r) => r.p50_ms)),
    p99_ms: median(runs.map((r) => r.p99_ms)),
    max_ms: Math.max(...runs.map((r) => r.max_ms)),
    cpu_us_per_op: median(runs.map((r) => r.cpu_us_per_op)),
    errors: runs.reduce((s, r) => s + r.errors, 0),
    non2xx: runs.reduce((s, r) => s + r.non2xx, 0),
    load_cpu: median(runs.map((r) => r.load_cpu ?? NaN)),
    rounds: runs.map((r) => ({ throughput: r.throughput, p99_ms: r.p99_ms, cpu_us_per_op: r.cpu_us_per_op })),
  };
}

/** Warms every contender up (1 s, not counted), then runs `rounds` interleaved rounds of `seconds` each. */
export async function interleave(
  reference: Contender,
  subjects: Contender[],
  rounds = ROUNDS,
  seconds = SECONDS,
): Promise<Interleaved> {
  for (const c of [reference, ...subjects]) await c.run(1);
  const refRuns: Array<LoadResult & { cpu_us_per_op: number }> = [];
  const subjRuns = subjects.map(() => [] as Array<LoadResult & { cpu_us_per_op: number }>);
  for (let round = 0; round < rounds; round++) {
    refRuns.push(await measured(reference, seconds));
    for (const [i, s] of subjects.entries()) subjRuns[i]!.push(await measured(s, seconds));
  }
  for (const r of [...refRuns, ...subjRuns.flat()]) {
    if (r.non2xx || r.errors)
      console.warn(
        `  warning: ${r.label}: ${r.non2xx} error answers (4xx/5xx) and ${r.errors} socket errors or timeouts in ` +
          `${r.requests} requests`,
      );
  }
  const saturated = [...refRuns, ...subjRuns.flat()].filter((r) => (r.load_cpu ?? 0) > LOAD_SATURATED);
  if (saturated.length)
    console.warn(
      `  warning: the load generator used over ${LOAD_SATURATED * 100}% of its core in ${saturated.length} runs ` +
        `(${saturated.map((r) => r.label).join(', ')}): it may have set the pace, not the server`,
    );
  return {
    reference: summarise(reference.label, refRuns),
    subjects: subjects.map((s, i) => summarise(s.label, subjRuns[i]!)),
    ratios: subjRuns.map((runs) => median(runs.map((r, round) => r.throughput / refRuns[round]!.throughput))),
  };
}
