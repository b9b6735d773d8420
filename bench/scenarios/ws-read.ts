/**
 * ws-read: the WebSocket FindById message (protocol.md §3) against a bare
 * `ws` server answering the same Success frame (bench/bare-ws-server.ts),
 * interleaved in the same run. Load comes from a node client process pinned
 * to the load core (bench/ws-read-client.ts) keeping 50 requests in flight
 * (one per connection) on random ids over 10,000 records. Reports server CPU
 * µs per request for both and the difference. The same server's HTTP
 * point read (wrk, same ids) runs in the same rounds, so WebSocket and HTTP
 * can be compared on server CPU per request (the load tools differ, so
 * their throughputs compare less well).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { interleave, type Contender } from '../lib/interleave.js';
import { load, type LoadResult } from '../lib/load.js';
import { compiled, LOAD_CORE, pinned, startListening, stop, type Proc } from '../lib/procs.js';
import { report } from '../lib/report.js';
import { check, seed, startServer, stopEddy } from '../lib/seeded-eddy.js';

const CONNECTIONS = 50;

function wsLoad(label: string, url: string, idsFile: string, seconds: number, token?: string): Promise<LoadResult> {
  const [cmd, argv] = pinned(LOAD_CORE, process.execPath, [
    compiled('bench/ws-read-client.ts'),
    url,
    String(CONNECTIONS),
    String(seconds),
    idsFile,
  ]);
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, argv, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, BENCH_TOKEN: token ?? '' },
    });
    let out = '';
    p.stdout.on('data', (d) => {
      out += d;
    });
    p.stderr.on('data', (d) => {
      out += d;
    });
    p.on('exit', () => {
      try {
        const j = JSON.parse(out.trim().split('\n').pop()!) as {
          requests: number;
          duration_us: number;
          p50_us: number;
          p99_us: number;
          max_us: number;
          errors: number;
          first_error: string;
          load_cpu: number;
        };
        if (j.errors)
          return reject(new Error(`${label}: ${j.errors} failed FindById answers, first: ${j.first_error}`));
        const duration_s = j.duration_us / 1e6;
        resolve({
          label,
          requests: j.requests,
          duration_s,
          throughput: j.requests / duration_s,
          p50_ms: j.p50_us / 1000,
          p99_ms: j.p99_us / 1000,
          max_ms: j.max_us / 1000,
          errors: j.errors,
          non2xx: 0,
          tool: 'node ws client',
          load_cpu: j.load_cpu,
        });
      } catch {
        reject(new Error(`ws-read client output unreadable: ${out.slice(0, 800)}`));
      }
    });
  });
}

export async function wsRead(): Promise<void> {
  const eddy = await startServer('always');
  const tmp = mkdtempSync(path.join(tmpdir(), 'eddydb-ws-'));
  let bare: Proc | undefined;
  try {
    const ids = await seed(eddy);
    const idsFile = path.join(tmp, 'ids.txt');
    writeFileSync(idsFile, ids.join('\n'));
    const record = await check(`${eddy.url}/api/find/bench/${ids[0]}`, { headers: eddy.headers }, 'application/json');
    bare = await startListening([compiled('bench/bare-ws-server.ts')], { BARE_RECORD: JSON.stringify(record) });
    const token = eddy.headers.authorization!.slice('Bearer '.length);
    const contender = (label: string, p: Proc, tok?: string): Contender => ({
      label,
      pid: p.pid,
      run: (s) => wsLoad(label, p.url, idsFile, s, tok),
    });
    const http: Contender = {
      label: 'eddydb HTTP GET (wrk)',
      pid: eddy.pid,
      run: (seconds) =>
        load('eddydb HTTP GET (wrk)', {
          url: eddy.url,
          paths: ids.map((id) => `/api/find/bench/${id}`),
          headers: eddy.headers,
          seconds,
        }),
    };
    const r = await interleave(contender('bare ws server', bare), [contender('eddydb WS FindById', eddy, token), http]);
    const [s, h] = r.subjects as [typeof r.reference, typeof r.reference];
    report({
      scenario: 'ws-read',
      subject: { ...s },
      reference: { ...r.reference },
      ratio: r.ratios[0]!,
      load_tool: `node ws client (bench/ws-read-client.ts), ${CONNECTIONS} connections`,
      ratio_of: `FindById answers/s vs bare ws (median of ${s.rounds.length} interleaved rounds)`,
      target: '>= 0.70 and above http-read',
      extra: {
        bare_cpu_us_per_request: r.reference.cpu_us_per_op,
        'ours_us (eddydb - bare)': s.cpu_us_per_op - r.reference.cpu_us_per_op,
        http_cpu_us_per_request: h.cpu_us_per_op,
        http_throughput: h.throughput,
        ws_vs_http_cpu: s.cpu_us_per_op / h.cpu_us_per_op,
        ws_client_load_cpu: s.load_cpu,
        http: h,
      },
      notes:
        `${CONNECTIONS} WebSocket connections, one FindById in flight on each, random ids over ${ids.length} ` +
        `records of ~200 B, JSON text frames`,
    });
  } finally {
    if (bare) await stop(bare);
    await stopEddy(eddy);
    rmSync(tmp, { recursive: true, force: true });
  }
}
