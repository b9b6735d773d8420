/**
 * The read probe (bench/read-probe-client.ts) as scenarios start it: a
 * process pinned to the load core keeping PROBE_CONCURRENCY point reads of
 * `bench` records in flight until stopped. A read's latency includes any
 * time the server's event loop was held by other work, so the probe
 * measures holds from outside.
 */
import { spawn } from 'node:child_process';
import { compiled, LOAD_CORE, pinned } from './procs.js';

export const PROBE_CONCURRENCY = 4;

export interface ProbeResult {
  requests: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  errors: number;
}

/** Starts the read probe over the ids in `idsFile`; the returned function stops it and yields its figures. */
export function startProbe(url: string, idsFile: string, token: string): () => Promise<ProbeResult> {
  const [cmd, argv] = pinned(LOAD_CORE, process.execPath, [
    compiled('bench/read-probe-client.ts'),
    url,
    String(PROBE_CONCURRENCY),
    idsFile,
  ]);
  const p = spawn(cmd, argv, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, BENCH_TOKEN: token } });
  let out = '';
  p.stdout.on('data', (d) => {
    out += d;
  });
  p.stderr.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<void>((resolve) => p.on('exit', () => resolve()));
  return async () => {
    p.stdin.end();
    await exited;
    try {
      return JSON.parse(out.trim().split('\n').pop()!) as ProbeResult;
    } catch {
      throw new Error(`read probe output unreadable: ${out.slice(0, 500)}`);
    }
  };
}
