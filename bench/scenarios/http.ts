/**
 * HTTP scenarios: single insert and point read with keep-alive and 32
 * connections against a bare node:http reference; the insert throughput of
 * each durability mode, as a ratio to `none`; and what the access log adds
 * to a point read (in a child process, see bench/access-log-child.ts).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { load } from '../lib/load.js';
import { startBare, startEddy, stop, token } from '../lib/procs.js';
import { report, type Measurement } from '../lib/report.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const RECORD = JSON.stringify({ name: 'Ann', age: 31, email: 'ann@example.com', active: true });

async function withEddy<T>(mode: string, fn: (url: string, auth: Record<string, string>) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(path.join(tmpdir(), 'eddydb-bench-'));
  const eddy = await startEddy(dir, ['--durability', mode]);
  try {
    const t = await token(eddy.url);
    return await fn(eddy.url, { authorization: `Bearer ${t}`, 'content-type': 'application/json' });
  } finally {
    await stop(eddy);
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function httpInsert(): Promise<void> {
  const bare = await startBare();
  const reference = await load('bare node:http', { url: bare.url + '/api/insert/bench', method: 'POST', body: RECORD, headers: { 'content-type': 'application/json' }, seconds: SECONDS });
  await stop(bare);
  const subject = await withEddy('always', (url, headers) =>
    load('eddydb insert (always)', { url: url + '/api/insert/bench', method: 'POST', body: RECORD, headers, seconds: SECONDS }));
  report({ scenario: 'http-insert', subject, reference, ratio: subject.throughput! / reference.throughput!, ratio_of: 'requests/s vs bare node:http', target: '>= 0.50' });
}

export async function httpRead(): Promise<void> {
  const bare = await startBare();
  const reference = await load('bare node:http', { url: bare.url + '/api/find/bench/x', seconds: SECONDS });
  await stop(bare);
  const subject = await withEddy('always', async (url, headers) => {
    const r = await fetch(url + '/api/insert/bench', { method: 'POST', headers, body: RECORD });
    const { id } = (await r.json()) as { id: string };
    return load('eddydb point read', { url: `${url}/api/find/bench/${id}`, headers, seconds: SECONDS });
  });
  report({ scenario: 'http-read', subject, reference, ratio: subject.throughput! / reference.throughput!, ratio_of: 'requests/s vs bare node:http', target: '>= 0.70' });
}

export async function durabilityModes(): Promise<void> {
  const results: Record<string, Measurement> = {};
  for (const mode of ['none', 'batch', 'always']) {
    results[mode] = await withEddy(mode, (url, headers) =>
      load(`eddydb insert (${mode})`, { url: url + '/api/insert/bench', method: 'POST', body: RECORD, headers, seconds: SECONDS }));
  }
  report({
    scenario: 'durability-modes', subject: results.always!, reference: results.none!,
    ratio: results.always!.throughput! / results.none!.throughput!, ratio_of: 'always vs none inserts/s (32 clients)', target: '>= 0.60',
    extra: { batch_ops_per_s: results.batch!.throughput, batch_vs_none: results.batch!.throughput! / results.none!.throughput! },
  });
}

export async function accessLog(): Promise<void> {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.resolve('bench/access-log-child.ts')],
    { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'], timeout: 5 * 60_000 });
  let m: { requests: number; rounds: number; offUs: number; onUs: number };
  try { m = JSON.parse(r.stderr.trim().split('\n').pop()!); } catch { throw new Error(`access-log child failed (status ${r.status}): ${r.stderr.slice(-1000)}`); }
  const subject: Measurement = { label: 'point read, access log on', throughput: 1e6 / m.onUs };
  const reference: Measurement = { label: 'point read, access log off', throughput: 1e6 / m.offUs };
  report({
    scenario: 'access-log', subject, reference, ratio: m.offUs / m.onUs, ratio_of: 'Dispatcher.handle calls/s, access log on vs off (in process)',
    extra: { added_us_per_request: m.onUs - m.offUs, off_us_per_request: m.offUs, on_us_per_request: m.onUs },
    notes: `${m.requests} authenticated point reads per round, best of ${m.rounds} alternating rounds; access lines written to stdout (discarded).`,
  });
}
