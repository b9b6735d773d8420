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

/** Share of one core that other processes may use while we measure. */
export const QUIET_LIMIT = 0.1;
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

interface ProcInfo {
  ppid: number;
  name: string;
  cpuUs: number;
}

/** Every process's parent, command name and CPU time so far (µs). */
function processTable(): Map<number, ProcInfo> {
  const table = new Map<number, ProcInfo>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      table.set(Number(name), {
        ppid: Number(fields[1]),
        name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
        cpuUs: ((Number(fields[11]) + Number(fields[12])) * 1e6) / TICKS_PER_SECOND,
      });
    } catch {
      /* the process ended meanwhile */
    }
  }
  return table;
}

/** This process and its descendants (load generators, servers still stopping). */
function ownPids(table: Map<number, ProcInfo>): Set<number> {
  const children = new Map<number, number[]>();
  for (const [pid, p] of table) (children.get(p.ppid) ?? children.set(p.ppid, []).get(p.ppid)!).push(pid);
  const out = new Set<number>();
  const walk = (pid: number) => {
    out.add(pid);
    for (const c of children.get(pid) ?? []) walk(c);
  };
  walk(process.pid);
  return out;
}

export interface OtherLoad {
  /** Share of one core (1.0 = a full core) used by processes other than ours over the sample. */
  cores: number;
  /** The busiest of those processes, for the message. */
  busiest: Array<{ pid: number; name: string; cores: number }>;
}

export async function otherCpuLoad(sampleMs = SAMPLE_MS): Promise<OtherLoad> {
  const procsBefore = processTable();
  const before = cpuTotals();
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, sampleMs));
  const after = cpuTotals();
  const procsAfter = processTable();
  const elapsedS = (performance.now() - t0) / 1000;
  const own = ownPids(procsAfter);
  for (const pid of ownPids(procsBefore)) own.add(pid);
  let ownUs = 0;
  const others: OtherLoad['busiest'] = [];
  for (const [pid, p] of procsAfter) {
    const used = p.cpuUs - (procsBefore.get(pid)?.cpuUs ?? p.cpuUs);
    if (own.has(pid)) ownUs += used;
    else if (used > 0) others.push({ pid, name: p.name, cores: used / 1e6 / elapsedS });
  }
  const busyS = (after.busy - before.busy) / TICKS_PER_SECOND;
  return {
    cores: Math.max(0, busyS - ownUs / 1e6) / elapsedS,
    busiest: others.sort((a, b) => b.cores - a.cores).slice(0, 3),
  };
}

export function allowNoisy(): boolean {
  return process.env.BENCH_ALLOW_NOISY === '1';
}

/** Exits with status 3 when the machine is busy, unless BENCH_ALLOW_NOISY=1 (then results are marked noisy). */
export async function requireQuiet(when: string): Promise<void> {
  const { cores: load, busiest } = await otherCpuLoad();
  setNoisy(load > QUIET_LIMIT);
  if (load <= QUIET_LIMIT) return;
  const pct =
    `${(load * 100).toFixed(0)}% of a core` +
    (busiest.length
      ? ` (busiest: ${busiest.map((b) => `${b.name} pid ${b.pid} ${(b.cores * 100).toFixed(0)}%`).join(', ')})`
      : '');
  if (allowNoisy()) {
    console.warn(
      `bench: other processes use ${pct} ${when}; measuring anyway (BENCH_ALLOW_NOISY=1), results marked noisy`,
    );
    return;
  }
  console.error(
    `bench: refusing to measure ${when}: other processes use ${pct} (limit ${QUIET_LIMIT * 100}%). ` +
      'Stop them, or set BENCH_ALLOW_NOISY=1 to measure anyway ' +
      '(results are then marked noisy and kept out of docs/benchmarks.md).',
  );
  process.exit(3);
}
