/**
 * The quiet gate: measuring while other processes use the cores gives
 * figures that cannot be compared, so before measuring (and between
 * scenarios) the suite samples /proc/stat for about a second and refuses
 * (exit 3) when the machine's busy time, minus what this benchmark's own
 * processes used, exceeds QUIET_LIMIT of one core. BENCH_ALLOW_NOISY=1 runs
 * anyway and marks every result `"noisy": true`.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { setNoisy } from './machine.js';
import { processCpuMicros } from './proc-cpu.js';

/** Share of one core that other processes may use while we measure. */
export const QUIET_LIMIT = 0.10;
const SAMPLE_MS = 1500;
const TICKS_PER_SECOND = 100;

/** Busy and total jiffies summed over all cores (the `cpu` line of /proc/stat). */
function cpuTotals(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = (v[3] ?? 0) + (v[4] ?? 0); // idle + iowait
  const total = v.slice(0, 8).reduce((a, b) => a + b, 0); // user..steal (guest is already in user)
  return { busy: total - idle, total };
}

/** This process and its descendants (load generators, servers still stopping). */
function ownPids(): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      (children.get(ppid) ?? children.set(ppid, []).get(ppid)!).push(Number(name));
    } catch { /* the process ended meanwhile */ }
  }
  const out: number[] = [];
  const walk = (pid: number) => { out.push(pid); for (const c of children.get(pid) ?? []) walk(c); };
  walk(process.pid);
  return out;
}

/** Share of one core (1.0 = a full core) used by processes other than ours over the sample. */
export async function otherCpuLoad(sampleMs = SAMPLE_MS): Promise<number> {
  const pids = ownPids();
  const ownBefore = pids.reduce((s, p) => s + (processCpuMicros(p) || 0), 0);
  const before = cpuTotals();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, sampleMs));
  const after = cpuTotals();
  const elapsedS = (performance.now() - t0) / 1000;
  const ownAfter = pids.reduce((s, p) => s + (processCpuMicros(p) || 0), 0);
  const busyS = (after.busy - before.busy) / TICKS_PER_SECOND;
  const ownS = Math.max(0, ownAfter - ownBefore) / 1e6;
  return Math.max(0, busyS - ownS) / elapsedS;
}

export function allowNoisy(): boolean {
  return process.env.BENCH_ALLOW_NOISY === '1';
}

/** Exits with status 3 when the machine is busy, unless BENCH_ALLOW_NOISY=1 (then results are marked noisy). */
export async function requireQuiet(when: string): Promise<void> {
  const load = await otherCpuLoad();
  setNoisy(load > QUIET_LIMIT);
  if (load <= QUIET_LIMIT) return;
  const pct = (load * 100).toFixed(0);
  if (allowNoisy()) {
    console.warn(`bench: other processes use ${pct}% of a core ${when}; measuring anyway (BENCH_ALLOW_NOISY=1), results marked noisy`);
    return;
  }
  console.error(`bench: refusing to measure ${when}: other processes use ${pct}% of a core (limit ${QUIET_LIMIT * 100}%). ` +
    'Stop them, or set BENCH_ALLOW_NOISY=1 to measure anyway (results are then marked noisy and kept out of the README).');
  process.exit(3);
}
