/**
 * One profiled run: the server is started with `node --cpu-prof`, driven
 * once (a load run, or any sequence of requests), then stopped with SIGTERM
 * (a clean exit is what makes V8 write the profile; a missing profile is an
 * error, not a silent skip), and the profile inside the driven window is
 * summarised as a µs table. BENCH_KEEP_PROFILE=file keeps the profile (keepProfile).
 */
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { usTable, type UsTable } from './cpu-profile.js';
import { load, type LoadSpec } from './load.js';
import { processCpuMicros } from './proc-cpu.js';
import { stop, type Proc } from './procs.js';

let kept = 0;

/**
 * Keeps a copy of a run's profile when BENCH_KEEP_PROFILE names a file: the first run's goes there, later runs'
 * beside it with `.2`, `.3`, ... appended (a scenario may profile several servers).
 */
export function keepProfile(file: string): void {
  const keep = process.env.BENCH_KEEP_PROFILE;
  if (!keep) return;
  kept++;
  copyFileSync(file, kept === 1 ? keep : `${keep}.${kept}`);
}

const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/** The µs table of a load run of `seconds` against the server `prepare` readies. */
export function profiledRun(
  start: (nodeArgs: string[]) => Promise<Proc>,
  prepare: (server: Proc) => Promise<LoadSpec>,
  seconds: number,
): Promise<UsTable> {
  return profiledDrive(start, async (server) => {
    const spec = await prepare(server);
    return async () => (await load('profiled', { ...spec, seconds })).requests;
  });
}

/**
 * The µs table of `drive`: `prepare` readies the server (not profiled) and answers the driven part, which
 * answers how many requests it made.
 */
export async function profiledDrive(
  start: (nodeArgs: string[]) => Promise<Proc>,
  prepare: (server: Proc) => Promise<() => Promise<number>>,
): Promise<UsTable> {
  const dir = mkdtempSync(path.join(tmpdir(), 'eddydb-prof-'));
  try {
    const server = await start(['--cpu-prof', '--cpu-prof-dir', dir]);
    let from = 0,
      to = 0,
      requests = 0,
      cpuUs = NaN;
    try {
      const drive = await prepare(server);
      const cpu0 = processCpuMicros(server.pid);
      from = monotonicUs();
      requests = await drive();
      to = monotonicUs();
      cpuUs = processCpuMicros(server.pid) - cpu0;
    } finally {
      await stop(server);
    }
    if (server.proc.exitCode !== 0)
      throw new Error(`profiled server exited with ${server.proc.exitCode ?? server.proc.signalCode}; no profile`);
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error('the server exited without writing its --cpu-prof profile');
    keepProfile(path.join(dir, file));
    return {
      ...usTable(path.join(dir, file), from, to, requests),
      proc_cpu_us_per_request: cpuUs / Math.max(1, requests),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
