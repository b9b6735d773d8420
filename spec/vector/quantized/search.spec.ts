/**
 * The native quantized scan of 4-bit codes (searchQuantized in
 * native/hnswlib-parallel.cc, over quantized/rows.ts), in every build this
 * CPU runs (AVX-512 and AVX2 have their own kernels) and at an odd
 * dimension as well as an even one: with every row a candidate it answers
 * what an exact scan answers, by hnswlib's own distances; with a few
 * candidates per neighbour it still finds nearly all of them; free rows and
 * labels the graph has deleted are never answered; and it refuses arguments
 * it cannot take.
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
import { QuantizedRows } from '../../../lib/vector/quantized/rows.js';
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

function scan(graph: ReturnType<typeof graphOf>, query: number[], k: number, candidates: number, allowed?: Uint8Array) {
  const view = graph.rows.view();
  const labels = new Uint32Array(k);
  const distances = new Float32Array(k);
  const found = graph.build.searchQuantized(
    graph.native,
    view.codes,
    view.scales,
    view.biases,
    view.labels,
    Float32Array.from(query),
    candidates,
    labels,
    distances,
    allowed,
  );
  return { labels: [...labels.subarray(0, found)], distances: [...distances.subarray(0, found)] };
}

for (const { name, build } of builds) {
  describe(`vector/quantized search (native scan of 4-bit codes, ${name} build)`, () => {
    for (const [metric, D] of METRICS.flatMap(
      (m) =>
        [
          [m, 32],
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
        let found = 0;
        for (const query of queries) {
          const truth = new Set(exact.search(query, K).map((h) => Number(h.id)));
          found += scan(graph, query, K, 4 * K).labels.filter((l) => truth.has(l)).length;
        }
        expect(found / (queries.length * K)).to.be.at.least(0.95);
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
      expect(call(graph.native, view.codes, view.scales, view.biases, view.labels, q, 10, ...out())).to.not.throw();
      expect(call({}, view.codes, view.scales, view.biases, view.labels, q, 10, ...out())).to.throw(/HierarchicalNSW/);
      expect(
        call(graph.native, view.codes.subarray(1), view.scales, view.biases, view.labels, q, 10, ...out()),
      ).to.throw(/rows of 16 bytes of codes/);
      expect(
        call(graph.native, view.codes, view.scales, view.biases, view.labels, q.subarray(1), 10, ...out()),
      ).to.throw(/32 numbers/);
      expect(call(graph.native, view.codes, view.scales, view.biases, view.labels, q, 0, ...out())).to.throw(
        /at least 1/,
      );
      expect(
        call(
          graph.native,
          view.codes,
          view.scales,
          view.biases,
          view.labels,
          q,
          10,
          new Uint32Array(2),
          new Float32Array(3),
        ),
      ).to.throw(/as long as each other/);
      expect(call(graph.native, [1, 2], view.scales, view.biases, view.labels, q, 10, ...out())).to.throw(/Uint8Array/);
      const args = [graph.native, view.codes, view.scales, view.biases, view.labels, q, 10] as const;
      expect(call(...args, ...out(), new Uint8Array(view.labels.length - 1))).to.throw(/a byte per row/);
      expect(call(...args, ...out(), [1])).to.throw(/allowed must be a Uint8Array/);
    });
  });
}
