/**
 * Measured in a fresh process (run with --expose-gc) for the vector-search
 * scenario: clustered vectors inserted through the engine, the HNSW index
 * built explicitly (time, and heap/external/rss deltas around the build),
 * then the same queries through runSearch and through a brute-force exact
 * index. Prints one JSON line; progress goes to stderr.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Database, parseSearch, runSearch } from '../lib/engine/index.js';
import { BruteForceIndex, HNSW_DEFAULTS } from '../lib/vector/index.js';
import { gaussian, mulberry32 } from './lib/seeded-random.js';
import { timeEach } from './lib/time-each.js';

const N = Number(process.env.BENCH_VECTORS ?? 100_000);
const DIMS = 384,
  CENTROIDS = 100,
  NOISE = 1,
  QUERIES = 200,
  WARMUP = 5,
  K = 10,
  CHUNK = 10_000;
const gc = (globalThis as { gc?: () => void }).gc;
const log = (msg: string) => process.stderr.write(`  (vector-search: ${msg})\n`);

/** `count` points around `centroids`: a random centroid plus gaussian noise of NOISE per component. */
function clustered(count: number, centroids: number[][], seed: number): number[][] {
  const u = mulberry32(seed),
    g = gaussian(u);
  return Array.from({ length: count }, () =>
    centroids[Math.floor(u() * centroids.length)]!.map((x) => x + NOISE * g()),
  );
}

/** Memory after a settled gc; `external` includes array buffers. */
async function memory() {
  for (let i = 0; i < 2; i++) {
    gc?.();
    await new Promise((r) => setTimeout(r, 100));
  }
  const m = process.memoryUsage();
  return { heap: m.heapUsed, heapTotal: m.heapTotal, external: m.external, rss: m.rss };
}

const g0 = gaussian(mulberry32(42));
const centroids = Array.from({ length: CENTROIDS }, () => Array.from({ length: DIMS }, g0));
const vectors = clustered(N, centroids, 7);
const queries = clustered(QUERIES, centroids, 99);

const dir = mkdtempSync(path.join(tmpdir(), 'eddydb-bench-vector-'));
try {
  const db = await Database.open({
    dataDir: dir,
    settings: { durability: 'none' },
    snapshotBytes: Number.MAX_SAFE_INTEGER,
  });
  await db.collections.create('vecs', {
    fields: { embedding: { field_type: 'Vector', index: { type: 'vector', algorithm: 'hnsw', metric: 'cosine' } } },
  });
  const ids: string[] = [];
  let t0 = performance.now();
  for (let i = 0; i < N; i += CHUNK) {
    const res = await db.bulk.insertMany(
      'vecs',
      vectors.slice(i, i + CHUNK).map((embedding, k) => ({ n: i + k, embedding })),
    );
    if (res.successful.length !== Math.min(CHUNK, N - i))
      throw new Error(`bulk insert failed: ${JSON.stringify(res.failed.slice(0, 3))}`);
    ids.push(...res.successful);
  }
  const insertMs = performance.now() - t0;
  log(`inserted ${N} in ${(insertMs / 1000).toFixed(1)} s; building HNSW`);

  const before = await memory();
  t0 = performance.now();
  const built = await db.search.settledVector('vecs', 'embedding');
  const buildMs = performance.now() - t0;
  const after = await memory();
  log(`built HNSW over ${built.size} vectors in ${(buildMs / 1000).toFixed(1)} s`);
  const graph = db.search.entry('vecs', 'vector', 'embedding')!.remote!;

  t0 = performance.now();
  const exact = new BruteForceIndex({ dimensions: DIMS, metric: 'cosine' });
  vectors.forEach((v, i) => exact.add(ids[i]!, v));
  const exactBuildMs = performance.now() - t0;

  const truth: string[][] = [];
  const refTimes = await timeEach(
    queries,
    (q) => {
      truth.push(exact.search(q, K).map((h) => h.id));
    },
    WARMUP,
  );
  const got: string[][] = [];
  const subjTimes = await timeEach(
    queries,
    async (q) => {
      got.push(
        (await runSearch(db, 'vecs', parseSearch({ query: '', vector: q, vector_k: K }))).results.map((h) =>
          String(h.record.id),
        ),
      );
    },
    WARMUP,
  );
  const rawTimes = await timeEach(
    queries,
    async (q) => {
      await graph.search(q, K);
    },
    WARMUP,
  );
  const last = (a: string[][]) => a.slice(-QUERIES);
  const [t, s] = [last(truth), last(got)];
  const recall = s.reduce((sum, hits, i) => sum + hits.filter((id) => t[i]!.includes(id)).length / K, 0) / QUERIES;
  await db.close();
  console.log(
    JSON.stringify({
      n: N,
      dims: DIMS,
      queries: QUERIES,
      insertMs,
      buildMs,
      exactBuildMs,
      recall,
      heapDelta: after.heap - before.heap,
      externalDelta: after.external - before.external,
      rssDelta: after.rss - before.rss,
      // Native memory: rss growth not explained by V8's committed heap or external buffers.
      nativeEstimate:
        after.rss - before.rss - (after.heapTotal - before.heapTotal) - (after.external - before.external),
      // hnswlib's level-0 bytes per slot: the vector as float32, 2m links, a link count and the label; upper levels add
      // ~1/m of the links.
      slotBytes: 4 * DIMS + 8 * HNSW_DEFAULTS.m + 4 + 8,
      // The build allocates the collection's size and a tenth up front.
      capacity: Math.ceil(N * 1.1),
      gcExposed: gc !== undefined,
      subjTimes,
      refTimes,
      rawTimes,
    }),
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
