/**
 * The native quantized scan (searchQuantized in native/hnswlib-parallel.cc,
 * over quantized/rows.ts: a shortlist by sign bits, candidates by 4-bit
 * codes, an exact re-rank), in every build this CPU runs (AVX-512 and AVX2
 * have their own kernels) and at dimensions that fill their words and
 * nibbles and that do not: with every row a candidate it answers what an
 * exact scan answers, by hnswlib's own distances; its shortlist is the best
 * rows by the signs' estimate; with a few candidates per neighbour, from a
 * shortlist, it still finds nearly all of them; free rows and labels the
 * graph has deleted are never answered; and it refuses arguments it cannot
 * take.
 */
import { createRequire } from 'node:module';
import { expect } from 'chai';
import { builtAddonFile } from '../../../lib/vector/native/built-addon.js';
import {
  HNSWLIB_BUILDS,
  cpuFlags,
  type Hnswlib,
  type SearchQuantized,
} from '../../../lib/vector/native/hnswlib-build.js';
import { QuantizedRows, signBytes } from '../../../lib/vector/quantized/rows.js';
import { BruteForceIndex, METRICS, type Metric } from '../../../lib/vector/index.js';
import { randomVectors } from '../../helpers/seeded-random.js';

const N = 2000;
const K = 10;
const SPACE = { cosine: 'cosine', euclidean: 'l2', dotproduct: 'ip' } as const;

type Build = Hnswlib & { searchQuantized: SearchQuantized };
const require = createRequire(import.meta.url);
const flags = cpuFlags();
/** The builds made here whose CPU flags this machine has. */
const builds = HNSWLIB_BUILDS.flatMap(({ name, file, needs }) => {
  const found = needs.every((flag) => flags.has(flag)) ? builtAddonFile(file) : undefined;
  return found ? [{ name, build: require(found) as Build }] : [];
});

function graphOf(build: Build, metric: Metric, data: number[][]) {
  const dims = data[0]!.length;
  const native = new build.HierarchicalNSW(SPACE[metric], dims);
  native.initIndex({ maxElements: data.length, m: 16, efConstruction: 64, randomSeed: 1 });
  data.forEach((v, i) => native.addPoint(v, i));
  const rows = new QuantizedRows(dims, metric);
  data.forEach((_, i) => rows.set(i, native.getPoint(i)));
  return { build, native, rows };
}

/** A search of `graph`'s rows; `shortlist` 0 (every row) unless given. */
function scan(
  graph: ReturnType<typeof graphOf>,
  query: number[],
  k: number,
  candidates: number,
  allowed?: Uint8Array,
  shortlist = 0,
) {
  const labels = new Uint32Array(k);
  const distances = new Float32Array(k);
  const found = graph.build.searchQuantized(
    graph.native,
    graph.rows.view(),
    Float32Array.from(query),
    shortlist,
    candidates,
    labels,
    distances,
    allowed,
  );
  return { labels: [...labels.subarray(0, found)], distances: [...distances.subarray(0, found)] };
}

/**
 * The labels of the `size` best rows by the signs' estimate, computed here as the header of rows.ts says (the query
 * normalized for cosine and quantized to int8 as the native scan does).
 */
function signShortlist(graph: ReturnType<typeof graphOf>, metric: Metric, query: number[], size: number): number[] {
  const length = Math.hypot(...query);
  const q = metric === 'cosine' ? query.map((x) => x / length) : query;
  const scale = Math.max(...q.map(Math.abs)) / 127;
  const codes = q.map((x) => Math.round(Math.fround(x / scale)));
  const view = graph.rows.view();
  const bytes = signBytes(q.length);
  const estimates = [...view.labels].map((label, r) => {
    let dot = 0;
    codes.forEach((c, i) => (dot += view.signs[r * bytes + (i >> 3)]! & (1 << (i & 7)) ? c : -c));
    return { label, estimate: scale * view.signScales[r]! * dot + view.biases[r]! };
  });
  return estimates
    .sort((a, b) => b.estimate - a.estimate)
    .slice(0, size)
    .map((e) => e.label);
}

for (const { name, build } of builds) {
  describe(`vector/quantized search (native scan of signs and 4-bit codes, ${name} build)`, () => {
    for (const [metric, D] of METRICS.flatMap(
      (m) =>
        [
          [m, 64],
          [m, 33],
        ] as const,
    )) {
      const data = randomVectors(N, D, 21);
      const queries = randomVectors(30, D, 22);
      it(`answers what an exact scan answers with every row a candidate, by hnswlib's ${metric} distance (${D} dimensions)`, () => {
        const graph = graphOf(build, metric, data);
        const exact = new BruteForceIndex({ dimensions: D, metric });
        data.forEach((v, i) => exact.add(String(i), v));
        for (const query of queries) {
          const got = scan(graph, query, K, N);
          expect(got.labels.map(String)).to.deep.equal(exact.search(query, K).map((h) => h.id));
          graph.native.setEf(N);
          const graphAnswer = graph.native.searchKnn(query, K);
          expect(got.labels).to.deep.equal(graphAnswer.neighbors);
          got.distances.forEach((d, i) => expect(d).to.be.closeTo(graphAnswer.distances[i]!, 1e-5));
          expect(got.distances, 'nearest first').to.deep.equal([...got.distances].sort((a, b) => a - b));
        }
      });

      it(`finds nearly every ${metric} neighbour re-ranking 4 candidates per neighbour (${D} dimensions)`, () => {
        const graph = graphOf(build, metric, data);
        const exact = new BruteForceIndex({ dimensions: D, metric });
        data.forEach((v, i) => exact.add(String(i), v));
        let found = 0,
          fromShortlist = 0;
        for (const query of queries) {
          const truth = new Set(exact.search(query, K).map((h) => Number(h.id)));
          found += scan(graph, query, K, 4 * K).labels.filter((l) => truth.has(l)).length;
          fromShortlist += scan(graph, query, K, 4 * K, undefined, N / 4).labels.filter((l) => truth.has(l)).length;
        }
        expect(found / (queries.length * K)).to.be.at.least(0.95);
        expect(fromShortlist / (queries.length * K), 'from a shortlist of a quarter').to.be.at.least(0.9);
      });

      it(`shortlists the best rows by their signs (${metric}, ${D} dimensions)`, () => {
        const graph = graphOf(build, metric, data);
        const exact = new BruteForceIndex({ dimensions: D, metric });
        data.forEach((v, i) => exact.add(String(i), v));
        const SHORT = 50;
        for (const query of queries.slice(0, 10)) {
          // Every shortlisted row a candidate: the answer is the exact nearest of the shortlist, which holds at least
          // the best SHORT by the signs (and the rest of the last histogram bin it reaches into).
          const scores = new Map(exact.search(query, N).map((h) => [Number(h.id), h.score]));
          const best = new Set(signShortlist(graph, metric, query, SHORT));
          const nearestOfBest = [...best].sort((a, b) => scores.get(b)! - scores.get(a)!).slice(0, K);
          const near = new Set(signShortlist(graph, metric, query, 2 * SHORT));
          const got = scan(graph, query, K, N, undefined, SHORT).labels;
          expect(got.length).to.equal(K);
          got.forEach((label, i) => {
            expect(near.has(label), `${label} among the best by the signs`).to.equal(true);
            expect(scores.get(label)!, 'at least as near').to.be.at.least(scores.get(nearestOfBest[i]!)! - 1e-6);
          });
        }
      });
    }

    const D = 32;
    const data = randomVectors(N, D, 21);

    it('never answers a free row or a label the graph has deleted, and answers fewer when fewer are live', () => {
      const graph = graphOf(build, 'cosine', data);
      const query = data[5]!;
      expect(scan(graph, query, 1, 20).labels).to.deep.equal([5]);
      graph.rows.delete(5);
      expect(scan(graph, query, 3, N).labels).to.not.include(5);
      graph.native.markDelete(6);
      const [nearest] = scan(graph, data[6]!, 1, N).labels;
      expect(nearest).to.not.equal(6);
      const few = new QuantizedRows(D, 'cosine');
      few.set(1, graph.native.getPoint(1));
      few.set(2, graph.native.getPoint(2));
      few.delete(2);
      expect(scan({ build, native: graph.native, rows: few }, query, K, 100).labels).to.deep.equal([1]);
    });

    it('shortlists every row tied with the last one kept, and every row when all estimates are equal', () => {
      const same = Array.from({ length: 50 }, () => data[0]!);
      const graph = graphOf(build, 'cosine', same);
      expect(scan(graph, data[0]!, K, 50, undefined, 5).labels, 'all tied: all listed').to.have.length(K);
      const mixed = graphOf(build, 'cosine', [...same, data[1]!]);
      expect(scan(mixed, data[1]!, 1, 51, undefined, 1).labels, 'the best alone').to.deep.equal([50]);
      expect(scan(mixed, data[0]!, K, 51, undefined, 0.5).labels, 'a shortlist under 1: every row').to.have.length(K);
    });

    it('answers among the rows a filter allows, what an exact scan of them answers', () => {
      const graph = graphOf(build, 'dotproduct', data);
      const even = (id: string) => Number(id) % 2 === 0;
      const allowed = graph.rows.allowing(data.flatMap((_, i) => (i % 2 === 0 ? [i] : [])));
      const exact = new BruteForceIndex({ dimensions: D, metric: 'dotproduct' });
      data.forEach((v, i) => exact.add(String(i), v));
      for (const query of randomVectors(10, D, 23)) {
        const got = scan(graph, query, K, N, allowed).labels;
        expect(got.map(String)).to.deep.equal(exact.search(query, K, even).map((h) => h.id));
      }
      expect(scan(graph, data[1]!, 1, N, allowed).labels[0]! % 2, 'a row the filter leaves out').to.equal(0);
      expect(scan(graph, data[1]!, 1, N, undefined).labels, 'undefined: every row').to.deep.equal([1]);
    });

    it('refuses arguments it cannot take', () => {
      const graph = graphOf(build, 'euclidean', data);
      const view = graph.rows.view();
      const out = () => [new Uint32Array(K), new Float32Array(K)] as const;
      const call =
        (...args: unknown[]) =>
        () =>
          (build.searchQuantized as (...a: unknown[]) => number)(...args);
      const q = Float32Array.from(data[0]!);
      expect(call(graph.native, view, q, 0, 10, ...out())).to.not.throw();
      expect(call({}, view, q, 0, 10, ...out())).to.throw(/HierarchicalNSW/);
      expect(call(graph.native, 1, q, 0, 10, ...out())).to.throw(/rows must be an object/);
      expect(call(graph.native, { ...view, codes: view.codes.subarray(1) }, q, 0, 10, ...out())).to.throw(
        /rows.codes must hold 16 per row/,
      );
      expect(call(graph.native, { ...view, signs: view.signs.subarray(8) }, q, 0, 10, ...out())).to.throw(
        /rows.signs must hold 8 per row/,
      );
      expect(call(graph.native, { ...view, signScales: [1] }, q, 0, 10, ...out())).to.throw(
        /rows.signScales must be a Float32Array/,
      );
      expect(call(graph.native, { ...view, labels: undefined }, q, 0, 10, ...out())).to.throw(/Uint32Array/);
      expect(call(graph.native, view, q.subarray(1), 0, 10, ...out())).to.throw(/32 numbers/);
      expect(call(graph.native, view, q, 0, 0, ...out())).to.throw(/at least 1/);
      expect(call(graph.native, view, q, -1, 10, ...out())).to.throw(/shortlist must be 0 or more/);
      expect(call(graph.native, view, q, '5', 10, ...out())).to.throw(/must be numbers/);
      expect(call(graph.native, view, q, 0, 10, new Uint32Array(2), new Float32Array(3))).to.throw(
        /as long as each other/,
      );
      const args = [graph.native, view, q, 0, 10] as const;
      expect(call(...args, ...out(), new Uint8Array(view.labels.length - 1))).to.throw(/a byte per row/);
      expect(call(...args, ...out(), [1])).to.throw(/allowed must be a Uint8Array/);
      expect(call(graph.native, view, q, 0)).to.throw(/takes \(index, rows, query, shortlist/);
    });
  });
}
