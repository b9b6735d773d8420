/**
 * One 10,000-record batch insert over HTTP (`always`), with a JSON body and
 * with a MessagePack body, against the bare node:http server receiving the
 * same JSON body; and the point reads answered meanwhile: their p99 during
 * batches against their p99 with the server otherwise idle (issue 15: a
 * batch must not hold the event loop, so reads keep their p99).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pack } from 'msgpackr';
import { startBare, startEddy, stop, token } from '../lib/procs.js';
import { percentile, report, timed } from '../lib/report.js';

const N = 10_000;
const RUNS = 8;
const READERS = 2;

let seq = 0;
function batchBody() {
  const inserts = Array.from({ length: N }, () => {
    const i = seq++;
    return { data: { name: `user ${i}`, email: `user${i}@example.com`, age: 18 + (i % 60), city: ['Oslo', 'Lima', 'Pune', 'Kyiv'][i % 4], score: i * 1.5, active: i % 3 === 0, bio: 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor' } };
  });
  return { inserts };
}

async function post(url: string, headers: Record<string, string>, body: string | Buffer): Promise<void> {
  const r = await fetch(url, { method: 'POST', headers, body });
  await r.arrayBuffer();
  if (r.status >= 300) throw new Error(`batch answered ${r.status}`);
}

/** Point reads from READERS loops until `stop()`; their latencies in ms, sorted. */
function reading(url: string, headers: Record<string, string>): { stop: () => Promise<number[]> } {
  let running = true;
  const lat: number[] = [];
  const loop = async () => {
    while (running) {
      const t0 = performance.now();
      await (await fetch(url, { headers })).arrayBuffer();
      lat.push(performance.now() - t0);
    }
  };
  const loops = Array.from({ length: READERS }, loop);
  return { stop: async () => { running = false; await Promise.all(loops); return lat.sort((a, b) => a - b); } };
}

export async function batchHttp(): Promise<void> {
  const json = JSON.stringify(batchBody());
  const bare = await startBare();
  const ref = await timed(RUNS, () => post(bare.url + '/api/batch/insert/bench', { 'content-type': 'application/json' }, json));
  await stop(bare);

  const dir = mkdtempSync(path.join(tmpdir(), 'eddydb-bench-'));
  const eddy = await startEddy(dir, ['--durability', 'always']);
  try {
    const auth = { authorization: `Bearer ${await token(eddy.url)}` };
    const seed = await fetch(eddy.url + '/api/insert/bench', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"seed":true}' });
    const readUrl = `${eddy.url}/api/find/bench/${((await seed.json()) as { id: string }).id}`;
    const idle = reading(readUrl, auth);
    await new Promise((r) => setTimeout(r, 2000));
    const idleLat = await idle.stop();
    const bodies = Array.from({ length: RUNS }, () => JSON.stringify(batchBody()));
    const during = reading(readUrl, auth);
    let k = 0;
    const jsonTimes = await timed(RUNS, () => post(eddy.url + '/api/batch/insert/bench', { ...auth, 'content-type': 'application/json' }, bodies[k++]!));
    const duringLat = await during.stop();
    const packed = Array.from({ length: RUNS }, () => pack(batchBody()));
    k = 0;
    const mpTimes = await timed(RUNS, () => post(eddy.url + '/api/batch/insert/bench', { ...auth, 'content-type': 'application/msgpack' }, packed[k++]!));
    const rate = (times: number[]) => N / (percentile(times, 50) / 1000);
    const subject = { label: 'eddydb batch insert 10k JSON (always)', throughput: rate(jsonTimes), p50_ms: percentile(jsonTimes, 50), p99_ms: percentile(jsonTimes, 99) };
    const reference = { label: 'bare node:http, same 2 MB body', throughput: rate(ref), p50_ms: percentile(ref, 50), p99_ms: percentile(ref, 99) };
    report({
      scenario: 'batch-http', subject, reference, ratio: subject.throughput / reference.throughput, ratio_of: 'records/s vs bare node:http receiving the body',
      target: '>= 150,000 records/s; read p99 during batches near idle',
      notes: `throughput over p50 of ${RUNS} batches; reads: ${READERS} loops of GET /api/find (idle ${idleLat.length}, during JSON batches ${duringLat.length})`,
      extra: {
        msgpack_records_per_s: rate(mpTimes), msgpack_p50_ms: percentile(mpTimes, 50),
        read_p99_idle_ms: percentile(idleLat, 99), read_p99_during_batch_ms: percentile(duringLat, 99), read_max_during_batch_ms: percentile(duringLat, 100),
      },
    });
  } finally {
    await stop(eddy);
    rmSync(dir, { recursive: true, force: true });
  }
}
