/**
 * HTTP load through autocannon (a well-kept load generator), run as its own
 * process pinned to LOAD_CORE, with keep-alive connections.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { LOAD_CORE, pinned } from './procs.js';
import type { Measurement } from './report.js';

export interface LoadSpec {
  url: string;
  method?: string;
  body?: string;
  headers?: Record<string, string>;
  connections?: number;
  seconds?: number;
}

export function load(label: string, spec: LoadSpec): Promise<Measurement> {
  const args = [path.resolve('node_modules/autocannon/autocannon.js'), '--json', '-c', String(spec.connections ?? 32), '-d', String(spec.seconds ?? 5), '-m', spec.method ?? 'GET'];
  for (const [k, v] of Object.entries(spec.headers ?? {})) args.push('-H', `${k}=${v}`);
  if (spec.body !== undefined) args.push('-b', spec.body);
  args.push(spec.url);
  const [cmd, argv] = pinned(LOAD_CORE, process.execPath, args);
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d) => { out += d; });
    p.on('exit', () => {
      try {
        const j = JSON.parse(out) as { requests: { average: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number };
        resolve({ label, throughput: j.requests.average, p50_ms: j.latency.p50, p99_ms: j.latency.p99, non2xx: j.non2xx, errors: j.errors });
      } catch (err) {
        reject(new Error(`autocannon output unreadable: ${out.slice(0, 500)}`));
      }
    });
  });
}
