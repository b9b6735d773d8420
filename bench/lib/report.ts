/**
 * Benchmark reporting: every scenario prints throughput, p50/p99 latency
 * and a ratio against a reference measured in the same run, and writes
 * bench/results/<scenario>.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { machine, type Machine } from './machine.js';

export interface Measurement {
  label: string;
  /** Operations (requests, records, queries) per second. */
  throughput?: number;
  /** Server CPU time (user + system) per operation, in microseconds. */
  cpu_us_per_op?: number;
  p50_ms?: number;
  p99_ms?: number;
  [extra: string]: unknown;
}

export interface ScenarioResult {
  scenario: string;
  subject: Measurement;
  reference: Measurement;
  /** subject / reference on the scenario's headline metric. */
  ratio: number;
  ratio_of: string;
  target?: string;
  notes?: string;
  extra?: Record<string, unknown>;
  /** Several subjects against one reference (e.g. durability modes): one row each in docs/benchmarks.md. */
  /** The load tool, when not the HTTP one `load` uses (e.g. a WebSocket client). */
  load_tool?: string;
  rows?: Array<{ subject: Measurement; reference: Measurement; ratio: number; target?: string }>;
}

const fmt = (n: unknown) =>
  typeof n === 'number' ? (Math.abs(n) >= 100 ? n.toFixed(0) : n.toFixed(2)) : String(n ?? '-');

export function report(r: ScenarioResult): ScenarioResult {
  const line = (m: Measurement) =>
    `  ${m.label.padEnd(34)} ${fmt(m.throughput).padStart(10)} ops/s   p50 ${fmt(m.p50_ms).padStart(7)} ms   p99 ` +
    `${fmt(m.p99_ms).padStart(7)} ms` +
    (m.cpu_us_per_op === undefined ? '' : `   CPU ${fmt(m.cpu_us_per_op).padStart(6)} µs/op`);
  const m = { ...machine(), ...(r.load_tool ? { load_tool: r.load_tool } : {}) };
  console.log(`\n== ${r.scenario}${m.noisy ? '   (NOISY: measured while other processes used the cores)' : ''}`);
  console.log(line(r.subject));
  console.log(line(r.reference));
  console.log(`  ratio (${r.ratio_of}): ${r.ratio.toFixed(3)}${r.target ? `   target: ${r.target}` : ''}`);
  if (r.extra)
    for (const [k, v] of Object.entries(r.extra))
      if (v !== undefined && typeof v !== 'object') console.log(`  ${k}: ${fmt(v)}`);
  if (r.notes) console.log(`  ${r.notes}`);
  console.log(`  machine: ${machineLine(m)}`);
  const dir = path.resolve('bench/results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, `${r.scenario}.json`),
    JSON.stringify({ ...r, measured_at: m.date, machine: m, noisy: m.noisy }, null, 2) + '\n',
  );
  return r;
}

export function machineLine(m: Machine): string {
  return (
    `${m.cores} cores, ${m.cpu_model}, Node ${m.node}, ${m.load_tool}, ` +
    `${m.date.slice(0, 16).replace('T', ' ')} UTC, commit ${m.commit}`
  );
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Runs `fn` `runs` times in a row; the durations in ms, sorted ascending (for percentiles). */
export async function timed(runs: number, fn: () => Promise<void> | void): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b);
}
