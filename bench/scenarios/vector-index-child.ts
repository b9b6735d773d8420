/**
 * Child of the vector-index-startup scenario (vector-index.ts): 100k x 384
 * clustered vectors under a schema HNSW index, a snapshot (which persists the
 * graph), then two restarts of the engine in this process: with the
 * persisted graph, and with its files deleted (background rebuild). For each:
 * open time, first search latency, search latencies while the index is not
 * ready (exact scans), time until ready, the longest event-loop stall meanwhile,
 * and search latencies once ready. Prints one JSON line; progress to stderr.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Database, parseSearch, runSearch } from '../../lib/engine/index.js';
import { gaussian, mulberry32 } from '../lib/seeded-random.js';

const N = Number(process.env.BENCH_VECTORS ?? 100_000);
const DIMS = 384,
  CENTROIDS = 100,
  CHUNK = 10_000,
  QUERIES = 200,
  DURING = 20,
  K = 10;
const SCHEMA = {
  fields: { embedding: { field_type: 'Vector', index: { type: 'vector', algorithm: 'hnsw', metric: 'cosine' } } },
};
const log = (msg: string) => process.stderr.write(`  (vector-index-startup: ${msg})\n`);

function clustered(count: number, centroids: number[][], seed: number): number[][] {
  const u = mulberry32(seed),
    g = gaussian(u);
  return Array.from({ length: count }, () => centroids[Math.floor(u() * centroids.length)]!.map((x) => x + g()));
}

const g0 = gaussian(mulberry32(42));
const centroids = Array.from({ length: CENTROIDS }, () => Array.from({ length: DIMS }, g0));
const queries = clustered(QUERIES, centroids, 99);
const dir = mkdtempSync(path.join(tmpdir(), 'eddydb-bench-vector-index-'));
const open = () =>
  Database.open({ dataDir: dir, settings: { durability: 'none' }, snapshotBytes: Number.MAX_SAFE_INTEGER });

/**
 * Longest gap between 1 ms timer ticks beyond 1 ms: how long the background
 * work held the event loop at once. `skip` restarts the gap after the
 * bench's own searches, which are not background work.
 */
function lagMonitor() {
  let last = performance.now(),
    max = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    max = Math.max(max, now - last - 1);
    last = now;
  }, 1);
  return {
    skip: () => {
      last = performance.now();
    },
    stop: () => {
      clearInterval(timer);
      return max;
    },
  };
}

async function restart(label: string) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const db = await open();
  const openMs = performance.now() - t0;
  const lag = lagMonitor();
  const state = () => db.search.status().find((s) => s.field === 'embedding')?.state;
  const search = async (q: number[]) => {
    const r = await runSearch(db, 'vecs', parseSearch({ vector: q, vector_k: K }));
    lag.skip();
    return r;
  };
  const t1 = performance.now();
  await search(queries[0]!);
  const firstSearchMs = performance.now() - t1;
  const stateAtFirstSearch = state();
  const duringTimes: number[] = [];
  for (let i = 1; i <= DURING && state() !== 'ready'; i++) {
    const t = performance.now();
    await search(queries[i]!);
    duringTimes.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 50));
  }
  while (state() !== 'ready') await new Promise((r) => setTimeout(r, 20));
  const readyMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const cpuToReadyMs = (cpu.user + cpu.system) / 1000;
  const maxStallMs = lag.stop();
  const readyTimes: number[] = [];
  for (const q of queries) {
    const t = performance.now();
    await search(q);
    readyTimes.push(performance.now() - t);
  }
  const note = db.search.status().find((s) => s.field === 'embedding')?.note;
  await db.close();
  log(
    `${label}: open ${openMs.toFixed(0)} ms, first search ${firstSearchMs.toFixed(1)} ms (${stateAtFirstSearch}), ` +
      `ready after ${(readyMs / 1000).toFixed(1)} s (${(cpuToReadyMs / 1000).toFixed(1)} s CPU), longest stall ` +
      `${maxStallMs.toFixed(1)} ms`,
  );
  return {
    openMs,
    firstSearchMs,
    stateAtFirstSearch,
    duringTimes,
    readyMs,
    cpuToReadyMs,
    maxStallMs,
    readyTimes,
    note,
  };
}

try {
  let db = await open();
  await db.collections.create('vecs', SCHEMA);
  const vectors = clustered(N, centroids, 7);
  const t0 = performance.now();
  for (let i = 0; i < N; i += CHUNK) {
    await db.bulk.insertMany(
      'vecs',
      vectors.slice(i, i + CHUNK).map((embedding, k) => ({ n: i + k, embedding })),
    );
  }
  // applies what the inserts left pending, so the snapshot persists the whole graph
  await db.search.settledVector('vecs', 'embedding');
  const insertAndIndexMs = performance.now() - t0;
  log(`inserted and indexed ${N} in ${(insertAndIndexMs / 1000).toFixed(1)} s; snapshot`);
  const t1 = performance.now();
  await db.snapshot();
  const snapshotMs = performance.now() - t1;
  await db.close();
  const indexBytes = readdirSync(dir)
    .filter((f) => f.startsWith('search-'))
    .reduce((s, f) => s + statSync(path.join(dir, f)).size, 0);
  const persisted = await restart('with the persisted graph');
  for (const f of readdirSync(dir)) if (f.startsWith('search-')) rmSync(path.join(dir, f));
  const rebuilt = await restart('graph files deleted (background rebuild)');
  db = undefined as unknown as Database;
  console.log(JSON.stringify({ n: N, dims: DIMS, insertAndIndexMs, snapshotMs, indexBytes, persisted, rebuilt }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
