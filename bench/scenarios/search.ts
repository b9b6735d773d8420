/**
 * Search and index scenarios, in process through the engine:
 * - vector-search: 100,000 clustered 384-d vectors, HNSW through runSearch
 *   against an exact brute-force scan (recall@10, build time, memory; run in
 *   a child with --expose-gc, see bench/vector-search-child.ts);
 * - text-search: 100,000 Zipf-worded documents, BM25 through runSearch
 *   against a naive String.includes scan;
 * - indexed-find: 1,000,000 small records, selective equality and range
 *   filters through db.records.find with a btree index against none,
 *   checking that both give identical results.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { type Database, parseQuery, parseSearch, runSearch } from '../../lib/engine/index.js';
import { percentile, report, type Measurement } from '../lib/report.js';
import { mulberry32, zipf, vocabulary } from '../lib/seeded-random.js';
import { withTempDatabase } from '../lib/temp-database.js';
import { timeEach } from '../lib/time-each.js';

const CHUNK = 10_000;

/** p50/p99 of per-query times (ms), with queries/s from the mean. */
function summarize(label: string, times: number[]): Measurement {
  const sorted = [...times].sort((a, b) => a - b);
  const mean = times.reduce((s, t) => s + t, 0) / times.length;
  return { label, throughput: 1000 / mean, p50_ms: percentile(sorted, 50), p99_ms: percentile(sorted, 99) };
}

async function insertAll(db: Database, c: string, bodies: readonly unknown[]): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < bodies.length; i += CHUNK) {
    const res = await db.bulk.insertMany(c, bodies.slice(i, i + CHUNK));
    if (res.failed.length) throw new Error(`bulk insert into '${c}' failed: ${JSON.stringify(res.failed.slice(0, 3))}`);
  }
  return performance.now() - t0;
}

interface VectorChild {
  n: number;
  dims: number;
  queries: number;
  insertMs: number;
  buildMs: number;
  exactBuildMs: number;
  recall: number;
  heapDelta: number;
  externalDelta: number;
  rssDelta: number;
  nativeEstimate: number;
  slotBytes: number;
  capacity: number;
  gcExposed: boolean;
  subjTimes: number[];
  refTimes: number[];
  rawTimes: number[];
}

export async function vectorSearch(): Promise<void> {
  console.log('\n(vector-search: generating, inserting and indexing vectors in a child process...)');
  const r = spawnSync(
    process.execPath,
    ['--expose-gc', '--max-old-space-size=8192', '--import', 'tsx', path.resolve('bench/vector-search-child.ts')],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024, timeout: 8 * 60_000 },
  );
  let m: VectorChild;
  try {
    m = JSON.parse(r.stdout.trim().split('\n').pop()!) as VectorChild;
  } catch {
    throw new Error(`vector-search child failed (status ${r.status}, signal ${r.signal}): ${r.stdout.slice(-1000)}`);
  }
  const subject = summarize(`eddydb runSearch HNSW (${m.n / 1000}k x ${m.dims})`, m.subjTimes);
  const reference = summarize('BruteForceIndex exact scan', m.refTimes);
  const raw = summarize('', m.rawTimes);
  const mb = (b: number) => b / (1024 * 1024);
  report({
    scenario: 'vector-search',
    subject,
    reference,
    ratio: subject.throughput! / reference.throughput!,
    ratio_of: 'queries/s vs exact brute force (k=10)',
    extra: {
      recall_at_10: m.recall,
      index_build_s: m.buildMs / 1000,
      build_vectors_per_s: m.n / (m.buildMs / 1000),
      hnsw_index_only_p50_ms: raw.p50_ms,
      hnsw_index_only_p99_ms: raw.p99_ms,
      hnsw_index_only_qps: raw.throughput,
      index_heap_mb: mb(m.heapDelta),
      index_rss_mb: mb(m.rssDelta),
      index_native_mb_estimate: mb(m.nativeEstimate),
      hnswlib_level0_mb_touched: mb(m.slotBytes * m.n),
      hnswlib_level0_mb_reserved: mb(m.slotBytes * m.capacity),
      hnsw_capacity_slots: m.capacity,
      bulk_insert_s: m.insertMs / 1000,
      brute_force_load_s: m.exactBuildMs / 1000,
    },
    notes:
      `${m.queries} queries, clustered data (100 centroids + N(0,1) noise), ef_search default; recall@10 ` +
      `${m.recall.toFixed(4)}. ` +
      `Memory: deltas around the build (${m.gcExposed ? 'after gc' : 'gc not exposed'}); hnswlib's graph is native, ` +
      `so heap shows only the id maps; ` +
      `native estimate = rss delta - heapTotal delta - external delta (best effort; untouched slots cost no rss)`,
  });
}

export async function textSearch(): Promise<void> {
  const N = 100_000,
    VOCAB = 5_000,
    QUERIES = 200,
    STOPWORDS = 20;
  const u = mulberry32(1234);
  const words = vocabulary(VOCAB, u);
  const rank = zipf(VOCAB, 1, u);
  const sentence = (min: number, max: number) =>
    Array.from({ length: min + Math.floor(u() * (max - min + 1)) }, () => words[rank()]!).join(' ');
  const docs = Array.from({ length: N }, (_, n) => ({ n, title: sentence(3, 8), body: sentence(30, 80) }));
  // Query words follow the same Zipf law, without the most common ranks (stop words).
  const queryWord = () => {
    let r;
    do r = rank();
    while (r < STOPWORDS);
    return words[r]!;
  };
  const queries = Array.from({ length: QUERIES }, () =>
    Array.from({ length: 1 + Math.floor(u() * 3) }, queryWord).join(' '),
  );
  const lowered = docs.map((d) => `${d.title} ${d.body}`.toLowerCase());

  await withTempDatabase(async (db) => {
    const insertMs = await insertAll(db, 'docs', docs);
    const t0 = performance.now();
    const built = (await db.search.textReady('docs')).size();
    const buildMs = performance.now() - t0;
    const hits: number[] = [];
    const subj = await timeEach(queries, async (q) => {
      hits.push((await runSearch(db, 'docs', parseSearch({ query: q, limit: 10 }))).results.length);
    });
    // Naive reference: every document, lowercase text, String.includes per query word, top 10 by words matched.
    const refHits: number[] = [];
    const ref = await timeEach(queries, (q) => {
      const terms = q.toLowerCase().split(' ');
      const top: Array<[number, number]> = [];
      for (let i = 0; i < lowered.length; i++) {
        let score = 0;
        for (const t of terms) if (lowered[i]!.includes(t)) score++;
        if (score > 0 && (top.length < 10 || score > top[top.length - 1]![0])) {
          top.push([score, i]);
          top.sort((a, b) => b[0] - a[0]);
          if (top.length > 10) top.pop();
        }
      }
      refHits.push(top.length);
    });
    const withHits = (a: number[]) => a.slice(-QUERIES).filter((n) => n > 0).length;
    // The TextIndex alone, with the options runSearch passes (no limit: runSearch slices after), minus its record
    // filter.
    const index = await db.search.textReady('docs');
    const raw = summarize(
      '',
      await timeEach(queries, (q) => {
        index.search(q, { fuzzy: false, caseSensitive: false, stemming: true, boostExact: true });
      }),
    );
    const subject = summarize(`eddydb runSearch BM25 (${N / 1000}k docs)`, subj);
    const reference = summarize('naive String.includes scan', ref);
    report({
      scenario: 'text-search',
      subject,
      reference,
      ratio: subject.throughput! / reference.throughput!,
      ratio_of: 'queries/s vs naive scan',
      extra: {
        text_index_only_p50_ms: raw.p50_ms,
        text_index_only_p99_ms: raw.p99_ms,
        text_index_only_qps: raw.throughput,
        index_build_s: buildMs / 1000,
        indexed_docs: built,
        bulk_insert_s: insertMs / 1000,
        queries_with_hits: withHits(hits),
        reference_queries_with_hits: withHits(refHits),
      },
      notes:
        `${QUERIES} queries of 1-3 words (limit 10, stemming on, fuzzy off) over titles of 3-8 and bodies of 30-80 ` +
        `words ` +
        `from ${VOCAB} words (Zipf s=1); query words skip the ${STOPWORDS} most common`,
    });
  });
}

type Row = Record<string, unknown>;

export async function indexedFind(): Promise<void> {
  const N = 1_000_000,
    CITIES = 1_000,
    RUNS = 20;
  const u = mulberry32(99);
  const city = (k: number) => `city-${String(k).padStart(4, '0')}`;
  const bodies = Array.from({ length: N }, (_, n) => ({
    n,
    city: city(Math.floor(u() * CITIES)),
    score: Math.round(u() * 1_000_000) / 1000,
  }));
  const cond = (field: string, operator: string, value: unknown) => ({
    type: 'Condition',
    content: { field, operator, value },
  });
  // Each matches ~0.1% of the records: one city of 1,000; a score window of 1 in [0, 1000).
  const eqQueries = Array.from({ length: RUNS }, (_, i) =>
    parseQuery({ filter: cond('city', 'Eq', city((i * 37) % CITIES)) }),
  );
  const rangeQueries = Array.from({ length: RUNS }, (_, i) => {
    const lo = (i * 47) % 999;
    return parseQuery({
      filter: {
        type: 'Logical',
        content: { operator: 'And', expressions: [cond('score', 'Gte', lo), cond('score', 'Lt', lo + 1)] },
      },
    });
  });
  const topQueries = Array.from({ length: RUNS }, (_, i) =>
    parseQuery({ filter: cond('score', 'Gte', 999 - i * 0.01) }),
  );

  await withTempDatabase(async (db) => {
    console.log(`\n(indexed-find: inserting ${N} records...)`);
    const insertMs = await insertAll(db, 'rows', bodies);
    const run = async (qs: typeof eqQueries) => {
      const results: Row[][] = [];
      const times = await timeEach(
        qs,
        async (q) => {
          results.push((await db.records.find('rows', q)) as Row[]);
        },
        2,
      );
      return { times, results: results.slice(-qs.length) };
    };
    const plain = { eq: await run(eqQueries), range: await run(rangeQueries), top: await run(topQueries) };
    let t0 = performance.now();
    await db.collections.createIndex('rows', { field: 'city', type: 'btree' });
    const cityBuildMs = performance.now() - t0;
    t0 = performance.now();
    await db.collections.createIndex('rows', { field: 'score', type: 'btree' });
    const scoreBuildMs = performance.now() - t0;
    const indexed = { eq: await run(eqQueries), range: await run(rangeQueries), top: await run(topQueries) };
    const plans = {
      eq: (await db.records.explain('rows', eqQueries[0]!)).plan as Row,
      range: (await db.records.explain('rows', rangeQueries[RUNS / 2]!)).plan as Row,
      top: (await db.records.explain('rows', topQueries[0]!)).plan as Row,
    };
    for (const k of ['eq', 'range', 'top'] as const) {
      plain[k].results.forEach((rows, i) => {
        const a = JSON.stringify(rows),
          b = JSON.stringify(indexed[k].results[i]);
        if (a !== b)
          throw new Error(
            `indexed-find: ${k} query ${i} differs with the index (${rows.length} rows without, ` +
              `${indexed[k].results[i]!.length} with)`,
          );
      });
    }
    const matched = (k: 'eq' | 'range' | 'top') => indexed[k].results.reduce((s, r) => s + r.length, 0) / RUNS;
    const common = {
      bulk_insert_s: insertMs / 1000,
      city_index_build_s: cityBuildMs / 1000,
      score_index_build_s: scoreBuildMs / 1000,
    };
    const eqSubject = summarize(`btree on city (Eq, ~${matched('eq').toFixed(0)} rows)`, indexed.eq.times);
    const eqRef = summarize('full scan, no index', plain.eq.times);
    report({
      scenario: 'indexed-find',
      subject: eqSubject,
      reference: eqRef,
      ratio: eqSubject.throughput! / eqRef.throughput!,
      ratio_of: 'queries/s indexed / unindexed (speedup)',
      extra: { ...common, plan: `${plans.eq.type} (${String(plans.eq.candidates)} candidates)` },
      notes:
        `${N} records {n, city, score}; ${RUNS} different cities; results identical with and without the index ` +
        `(checked)`,
    });
    const rSubject = summarize(`btree on score (Gte+Lt, ~${matched('range').toFixed(0)} rows)`, indexed.range.times);
    const rRef = summarize('full scan, no index', plain.range.times);
    const top = summarize('', indexed.top.times),
      topRef = summarize('', plain.top.times);
    report({
      scenario: 'indexed-find-range',
      subject: rSubject,
      reference: rRef,
      ratio: rSubject.throughput! / rRef.throughput!,
      ratio_of: 'queries/s indexed / unindexed (speedup)',
      extra: {
        ...common,
        plan_of_a_middle_window: `${plans.range.type} (${String(plans.range.candidates)} candidates)`,
        one_sided_rows: matched('top'),
        one_sided_plan: `${plans.top.type} (${String(plans.top.candidates)} candidates)`,
        one_sided_indexed_p50_ms: top.p50_ms,
        one_sided_indexed_p99_ms: top.p99_ms,
        one_sided_unindexed_p50_ms: topRef.p50_ms,
        one_sided_speedup: top.throughput! / topRef.throughput!,
      },
      notes:
        `range = score >= lo AND score < lo+1 over scores in [0, 1000); one-sided = score >= 999-ε; results ` +
        `identical with and without the index (checked)`,
    });
  });
}
