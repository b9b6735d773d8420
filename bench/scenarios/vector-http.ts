/**
 * vector-search-http: vector search over HTTP after a bulk load of 50,000 x
 * 384 into a collection whose schema declares an HNSW index (cosine, the
 * default m and ef_construction), on clustered data (100 centroids plus
 * N(0,1) noise, as vector-search) and on uniform data (components uniform in
 * [-1, 1]). For each: the time from the first batch until health says the
 * index is ready and holds every vector; the searches made while it is built
 * (one after every tenth batch of the load, then one at a time until ready)
 * against one exact scan over HTTP
 * (a search by another metric than the index's, which scans every vector);
 * search p50/p90 over HTTP once built and its ef calibrated (health shows
 * `ef_search`, and `vector_search`: whether the graph or a quantized scan
 * answers); recall@10 against brute force. The reference is raw
 * hnswlib-node in this process on the same data with the same parameters:
 * its build time, per-search time and recall@10. The build is measured a
 * second time with the server free to run on both cores, as the HNSW worker
 * is meant to (the graph built on the core the request thread leaves);
 * the other figures are of the server pinned to one. BENCH_VECTOR_HTTP_N and
 * BENCH_VECTOR_HTTP_KINDS (clustered,uniform) size it.
 */
import { DEFAULT_EF_SEARCH, EF_LADDER, HNSW_DEFAULTS, hnswlib, hnswlibBuild } from '../../lib/vector/index.js';
import { percentile, report, type Measurement } from '../lib/report.js';
import { gaussian, mulberry32 } from '../lib/seeded-random.js';
import { LOAD_CORE, SERVER_CORE } from '../lib/procs.js';
import { Connection } from '../lib/http-connection.js';
import { check, startServer, stopEddy, type Eddy } from '../lib/seeded-eddy.js';

const N = Number(process.env.BENCH_VECTOR_HTTP_N ?? 50_000);
const DIMS = 384,
  K = 10,
  QUERIES = 200,
  BATCH = 500,
  /** Batches of the load between two searches during it. */
  SEARCH_EVERY = 10,
  EXACT_RUNS = 5;
/** What the server asks of the graph for k = 10 (k plus the few extra it drops for expired records). */
const ASKED = K + 8;
const SCHEMA = {
  fields: {
    n: { field_type: 'Integer' },
    embedding: {
      field_type: 'Vector',
      index: { type: 'vector', algorithm: 'hnsw', metric: 'cosine', dimensions: DIMS },
    },
  },
};

type Kind = 'clustered' | 'uniform';

function vectors(kind: Kind, count: number, seed: number): number[][] {
  const u = mulberry32(seed);
  if (kind === 'uniform') return Array.from({ length: count }, () => Array.from({ length: DIMS }, () => u() * 2 - 1));
  const g0 = gaussian(mulberry32(42));
  const centroids = Array.from({ length: 100 }, () => Array.from({ length: DIMS }, g0));
  const g = gaussian(u);
  return Array.from({ length: count }, () => centroids[Math.floor(u() * 100)]!.map((x) => x + g()));
}

/** The exact top-k row numbers of each query by cosine. */
function bruteForce(data: number[][], queries: number[][]): number[][] {
  const norms = data.map((v) => Math.hypot(...v));
  return queries.map((q) => {
    const qn = Math.hypot(...q);
    const scored = data.map((v, i) => {
      let dot = 0;
      for (let j = 0; j < DIMS; j++) dot += v[j]! * q[j]!;
      return [dot / (norms[i]! * qn), i] as const;
    });
    scored.sort((a, b) => b[0] - a[0]);
    return scored.slice(0, K).map(([, i]) => i);
  });
}

const recallOf = (got: number[][], truth: number[][]) =>
  got.reduce((sum, hits, i) => sum + hits.filter((n) => truth[i]!.includes(n)).length, 0) / (truth.length * K);

/**
 * Each server's search connection: a lean keep-alive client, so that the client's own cost (fetch took about 0.8 ms
 * a request here) is not measured as the server's.
 */
const connections = new WeakMap<Eddy, Connection>();

async function search(e: Eddy, vector: number[], metric?: string): Promise<number[]> {
  const body = { vector, vector_k: K, select_fields: ['n'], ...(metric ? { vector_metric: metric } : {}) };
  let connection = connections.get(e);
  if (!connection) connections.set(e, (connection = new Connection(e.url, e.headers.authorization!)));
  const { status, body: text } = await connection.request('POST', '/api/search/vecs', JSON.stringify(body));
  if (status !== 200) throw new Error(`search answered ${status}: ${text.slice(0, 300)}`);
  const answer = JSON.parse(text) as { results: Array<{ record: { n: number | { value: number } } }> };
  // A field the schema types comes back typed ({type, value}).
  return answer.results.map(({ record: { n } }) => (typeof n === 'number' ? n : n.value));
}

interface IndexView {
  field: string;
  state: string;
  indexed: number;
  progress: number;
  ef_search?: number;
  vector_search?: string;
}

async function indexStatus(e: Eddy): Promise<IndexView | undefined> {
  const r = await fetch(`${e.url}/api/health`, { headers: e.headers });
  return ((await r.json()) as { indexes?: IndexView[] }).indexes?.find((i) => i.field === 'embedding');
}

const timedMs = async (fn: () => Promise<unknown>) => {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
};

interface KindResult {
  kind: Kind;
  loadS: number;
  buildS: number;
  /** The build of a server on both cores (bothCoresBuildS). */
  bothCoresS: number;
  calibratedS: number;
  efSearch: number;
  /** How the calibrated index answers searches: `graph` or `quantized_scan` (health's vector_search). */
  vectorSearch: string;
  duringBuild: number[];
  progressSeen: number[];
  exactScanMs: number;
  times: number[];
  /** The p50 of the warm-up pass over the same queries, just after the build. */
  firstPassP50: number;
  recall: number;
  raw: { buildS: number; searchMs: number[]; recall: number; needed: { ef: number; p50: number; recall: number } };
}

/** A server (on `cores`, procs.ts SERVER_CORE unless given) with the collection of SCHEMA made. */
async function vectorServer(cores?: string): Promise<Eddy> {
  const e = await startServer('none', [], cores);
  await check(
    `${e.url}/api/collections/vecs`,
    { method: 'POST', headers: e.headers, body: JSON.stringify(SCHEMA) },
    'application/json',
  );
  return e;
}

/**
 * The load's request bodies, batches of BATCH records: made before the clock starts, as wrk prepares its requests,
 * so that the load measures the server, not this process's JSON.stringify of 192,000 numbers a batch on the cores
 * the server's graph build needs. (The load is paced to the build, so it moved the build's time little.)
 */
function batchBodies(data: number[][]): string[] {
  const bodies: string[] = [];
  for (let i = 0; i < data.length; i += BATCH) {
    const inserts = data.slice(i, i + BATCH).map((embedding, k) => ({ data: { n: i + k, embedding } }));
    bodies.push(JSON.stringify({ inserts }));
  }
  return bodies;
}

/** Posts the batches one at a time; `afterBatch(b)` runs after batch b. */
async function load(e: Eddy, bodies: string[], afterBatch: (b: number) => Promise<void> = async () => undefined) {
  for (const [b, body] of bodies.entries()) {
    await check(`${e.url}/api/batch/insert/vecs`, { method: 'POST', headers: e.headers, body }, 'application/json');
    await afterBatch(b);
  }
}

/** Polls health every 100 ms until the index is ready with `n` vectors; `whileBuilding(q)` runs between polls. */
async function untilReady(e: Eddy, n: number, whileBuilding: (q: number, status?: IndexView) => Promise<void>) {
  for (let q = 0; ; q++) {
    const status = await indexStatus(e);
    if (status?.state === 'ready' && status.indexed === n) return;
    await whileBuilding(q, status);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function serverRun(data: number[][], bodies: string[], queries: number[][], truth: number[][]) {
  const e = await vectorServer();
  try {
    const t0 = performance.now();
    // Searches while the index is built: one after every SEARCH_EVERY batches of the load, then one at a time after it.
    const duringBuild: number[] = [];
    await load(e, bodies, async (b) => {
      if (b % SEARCH_EVERY === SEARCH_EVERY - 1)
        duringBuild.push(await timedMs(() => search(e, queries[b % queries.length]!)));
    });
    const loadS = (performance.now() - t0) / 1000;
    const progressSeen: number[] = [];
    await untilReady(e, data.length, async (q, status) => {
      if (status) progressSeen.push(status.state === 'ready' ? 1 : status.progress);
      duringBuild.push(await timedMs(() => search(e, queries[q % queries.length]!)));
    });
    progressSeen.push(1);
    const buildS = (performance.now() - t0) / 1000;
    // Once built means once the worker has calibrated the graph's ef too (health shows it).
    let status: IndexView | undefined;
    while ((status = await indexStatus(e))?.ef_search === undefined) await new Promise((r) => setTimeout(r, 200));
    const efSearch = status!.ef_search!;
    const vectorSearch = status!.vector_search ?? 'graph';
    const calibratedS = (performance.now() - t0) / 1000;
    const exact: number[] = [];
    for (let i = 0; i < EXACT_RUNS; i++) exact.push(await timedMs(() => search(e, queries[i]!, 'dotproduct')));
    const got: number[][] = [];
    // One pass over the queries warms the server's search path (its compiler), as a server taking searches is;
    // that pass's own p50 is reported beside the measured pass's.
    const firstPass: number[] = [];
    for (const q of queries) firstPass.push(await timedMs(() => search(e, q)));
    const times: number[] = [];
    for (const q of queries) times.push(await timedMs(async () => got.push(await search(e, q))));
    return {
      loadS,
      buildS,
      calibratedS,
      efSearch,
      vectorSearch,
      duringBuild,
      progressSeen,
      exactScanMs: percentile(
        [...exact].sort((a, b) => a - b),
        50,
      ),
      times: times.sort((a, b) => a - b),
      firstPassP50: percentile(
        firstPass.sort((a, b) => a - b),
        50,
      ),
      recall: recallOf(got, truth),
    };
  } finally {
    connections.get(e)?.close();
    await stopEddy(e);
  }
}

/**
 * The build (first batch to ready) of a server free to run on both cores, as the HNSW worker is meant to run: on the
 * core the request thread leaves. No searches; the load generator (this process, not pinned) shares the cores.
 */
async function bothCoresBuildS(data: number[][], bodies: string[]): Promise<number> {
  const e = await vectorServer(`${SERVER_CORE},${LOAD_CORE}`);
  try {
    const t0 = performance.now();
    await load(e, bodies);
    await untilReady(e, data.length, async () => undefined);
    return (performance.now() - t0) / 1000;
  } finally {
    await stopEddy(e);
  }
}

/** hnswlib-node alone on the same data, parameters and ef as the server's defaults, the build the server runs. */
function rawRun(data: number[][], queries: number[][], truth: number[][], ef: number) {
  const index = new hnswlib.HierarchicalNSW('cosine', DIMS);
  index.initIndex({
    maxElements: data.length,
    m: HNSW_DEFAULTS.m,
    efConstruction: HNSW_DEFAULTS.efConstruction,
    randomSeed: HNSW_DEFAULTS.randomSeed,
  });
  const t0 = performance.now();
  data.forEach((v, i) => index.addPoint(v, i));
  const buildS = (performance.now() - t0) / 1000;
  const at = (efSearch: number) => {
    index.setEf(efSearch);
    const got: number[][] = [];
    const searchMs = queries.map((q) => {
      const t = performance.now();
      got.push(index.searchKnn(q, K).neighbors);
      return performance.now() - t;
    });
    return { searchMs: searchMs.sort((a, b) => a - b), recall: recallOf(got, truth) };
  };
  // The smallest ef of the server's calibration ladder at which hnswlib alone reaches recall@10 0.95.
  let needed: { ef: number; p50: number; recall: number } | undefined;
  for (const e of EF_LADDER) {
    const r = at(e);
    needed = { ef: e, p50: percentile(r.searchMs, 50), recall: r.recall };
    if (r.recall >= 0.95) break;
  }
  return { buildS, ...at(ef), needed: needed! };
}

async function runKind(kind: Kind, ef: number): Promise<KindResult> {
  console.log(`\n(vector-search-http: ${kind}, ${N} x ${DIMS}: generating, brute force, server, raw hnswlib...)`);
  const data = vectors(kind, N, 7);
  const queries = vectors(kind, QUERIES, 99);
  const truth = bruteForce(data, queries);
  const bodies = batchBodies(data);
  const server = await serverRun(data, bodies, queries, truth);
  const bothCoresS = await bothCoresBuildS(data, bodies);
  const raw = rawRun(data, queries, truth, ef);
  return { kind, ...server, bothCoresS, raw };
}

const row = (r: KindResult) => {
  const worst = Math.max(0, ...r.duringBuild);
  const subject: Measurement = {
    label: `eddydb HTTP search, ${r.kind}`,
    throughput: 1000 / percentile(r.times, 50),
    p50_ms: percentile(r.times, 50),
    p90_ms: percentile(r.times, 90),
    p99_ms: percentile(r.times, 99),
    first_pass_p50_ms: r.firstPassP50,
    recall_at_10: r.recall,
    build_s: r.buildS,
    build_s_both_cores: r.bothCoresS,
    calibrated_s: r.calibratedS,
    ef_search: r.efSearch,
    vector_search: r.vectorSearch,
    load_s: r.loadS,
    worst_search_during_build_ms: worst,
    // The process's first vector search runs cold code (its exact scoring is several times slower than later ones).
    first_search_during_build_ms: r.duringBuild[0] ?? 0,
    worst_later_search_during_build_ms: Math.max(0, ...r.duringBuild.slice(1)),
    searches_during_build: r.duringBuild.length,
    exact_scan_http_ms: r.exactScanMs,
    health_progress_values: new Set(r.progressSeen.map((p) => p.toFixed(2))).size,
  };
  const reference: Measurement = {
    label: `hnswlib-node in process, ${r.kind}`,
    throughput: 1000 / percentile(r.raw.searchMs, 50),
    p50_ms: percentile(r.raw.searchMs, 50),
    p99_ms: percentile(r.raw.searchMs, 99),
    recall_at_10: r.raw.recall,
    build_s: r.raw.buildS,
  };
  return {
    subject,
    reference,
    ratio: subject.throughput! / reference.throughput!,
    target:
      'p50 <= 2 ms, recall@10 >= 0.95, build >= 4x faster than 70 s, no search during the build over one exact scan',
  };
};

export async function vectorSearchHttp(): Promise<void> {
  // The server's query-time ef for k = 10 (HnswIndex: max(2 x asked, DEFAULT_EF_SEARCH)), given to raw hnswlib too.
  const ef = Math.max(2 * ASKED, DEFAULT_EF_SEARCH);
  const kinds = (process.env.BENCH_VECTOR_HTTP_KINDS ?? 'clustered,uniform').split(',') as Kind[];
  const results: KindResult[] = [];
  for (const kind of kinds) results.push(await runKind(kind, ef));
  const rows = results.map(row);
  const extra: Record<string, unknown> = { hnswlib_build: hnswlibBuild };
  for (const r of results) {
    const s = row(r).subject;
    for (const key of [
      'p50_ms',
      'p90_ms',
      'first_pass_p50_ms',
      'recall_at_10',
      'build_s',
      'build_s_both_cores',
      'calibrated_s',
      'ef_search',
      'vector_search',
      'worst_search_during_build_ms',
      'first_search_during_build_ms',
      'worst_later_search_during_build_ms',
      'exact_scan_http_ms',
    ] as const)
      extra[`${r.kind} ${key}`] = s[key];
    extra[`${r.kind} raw hnswlib recall_at_10 (ef ${ef})`] = r.raw.recall;
    extra[`${r.kind} raw hnswlib ef for recall 0.95 (or ef 1024)`] = r.raw.needed.ef;
    extra[`${r.kind} raw hnswlib recall_at_10 at that ef`] = r.raw.needed.recall;
    extra[`${r.kind} raw hnswlib p50_ms at that ef`] = r.raw.needed.p50;
    extra[`${r.kind} raw hnswlib build_s`] = r.raw.buildS;
  }
  report({
    scenario: 'vector-search-http',
    subject: rows[0]!.subject,
    reference: rows[0]!.reference,
    ratio: rows[0]!.ratio,
    ratio_of: 'searches/s over HTTP vs hnswlib-node in process (same data, same parameters)',
    target: rows[0]!.target,
    rows,
    extra,
    notes:
      `${N.toLocaleString('en')} x ${DIMS} loaded over HTTP in batches of ${BATCH} into a schema HNSW index ` +
      `(m ${HNSW_DEFAULTS.m}, ef_construction ${HNSW_DEFAULTS.efConstruction}), ${QUERIES} queries one at a time ` +
      `on one keep-alive connection (a lean HTTP/1.1 client, bench/lib/http-connection.ts), ` +
      `timed in a second pass over them (first_pass_p50_ms: the first, just after the build), ` +
      `k ${K}, select_fields [n]; hnswlib's ${hnswlibBuild} build (server and raw alike); the server calibrates its ef on the data, raw hnswlib runs at ef ${ef} (the ` +
      `uncalibrated default) and up the same ladder; build = first batch to health ready with every vector (the batches' bodies made before, the server ` +
      `pinned to one core; build_s_both_cores: a second server free on both cores, loaded without searches); exact scan = ` +
      `a search by another metric (every vector scored), median of ${EXACT_RUNS}`,
  });
}
