/**
 * Held inserts applied from several threads at once (HnswIndex.buildThreads,
 * native/insert-run.ts, hnswlib-parallel.cc): the graph answers as one
 * built an insert at a time does (recall against an exact scan), its ids
 * and slots are accounted the same, and the native call refuses what it
 * cannot take before inserting anything.
 */
import { expect } from 'chai';
import { addPointsParallel, hnswlib } from '../../lib/vector/native/hnswlib-build.js';
import { InsertRun, RUN_PER_THREAD } from '../../lib/vector/native/insert-run.js';
import { BruteForceIndex, HnswIndex, METRICS, type Metric } from '../../lib/vector/index.js';
import { randomVectors } from '../helpers/seeded-random.js';

const D = 32;
const K = 10;
const data = randomVectors(3000, D, 11);
const queries = randomVectors(50, D, 12);

function recall(index: HnswIndex, exact: BruteForceIndex): number {
  let found = 0;
  for (const query of queries) {
    const truth = new Set(exact.search(query, K).map((h) => h.id));
    found += index.search(query, K).filter((h) => truth.has(h.id)).length;
  }
  return found / (queries.length * K);
}

/** Every vector held first, then applied by drainHeld with `threads` threads (rows as the worker holds them). */
function heldBuild(metric: Metric, threads: number): HnswIndex {
  const index = new HnswIndex({ dimensions: D, metric, initialCapacity: 16 });
  index.buildThreads = threads;
  index.hold();
  data.forEach((v, i) => index.add(`r${i}`, Float32Array.from(v)));
  expect(index.drainHeld(Infinity)).to.equal(0);
  return index;
}

(addPointsParallel ? describe : describe.skip)('vector/insert-run: held inserts from several threads', () => {
  for (const metric of METRICS) {
    it(`builds a ${metric} graph that finds what one built an insert at a time finds`, () => {
      const exact = new BruteForceIndex({ dimensions: D, metric });
      data.forEach((v, i) => exact.add(`r${i}`, v));
      const one = heldBuild(metric, 1);
      const two = heldBuild(metric, 2);
      expect(two.size()).to.equal(data.length);
      expect(new Set(two.ids())).to.deep.equal(new Set(one.ids()));
      const atOnce = recall(one, exact);
      expect(recall(two, exact)).to.be.at.least(Math.min(0.95, atOnce - 0.02));
      // A stored vector finds itself first, as normalized (cosine) and scored as its single-thread twin.
      for (const i of [0, 1234, 2999]) {
        const [hit] = two.search(data[i]!, 1);
        expect(hit!.id).to.equal(`r${i}`);
        expect(hit!.score).to.be.closeTo(one.search(data[i]!, 1)[0]!.score, 1e-6);
      }
    });
  }

  it('applies replacements, removals and inserts into freed slots held among the runs, in their order', () => {
    const index = new HnswIndex({ dimensions: D, metric: 'euclidean', initialCapacity: 16 });
    index.buildThreads = 2;
    const exact = new BruteForceIndex({ dimensions: D, metric: 'euclidean' });
    index.hold();
    for (let i = 0; i < 1000; i++) index.add(`r${i}`, data[i]!);
    expect(index.drainHeld(Infinity)).to.equal(0);
    index.hold();
    // Removals free a third of the slots: the inserts after them take freed slots (one at a time) between runs.
    for (let i = 0; i < 400; i++) index.remove(`r${i}`);
    for (let i = 400; i < 450; i++) index.add(`r${i}`, data[2000 + i]!);
    for (let i = 1000; i < 1600; i++) index.add(`r${i}`, data[i]!);
    expect(index.drainHeld(Infinity)).to.equal(0);
    for (let i = 400; i < 1600; i++) exact.add(`r${i}`, i < 450 ? data[2000 + i]! : data[i]!);
    expect(index.size()).to.equal(1200);
    expect(new Set(index.ids())).to.deep.equal(new Set(exact.ids()));
    expect(index.search(data[2420]!, 1)[0]!.id).to.equal('r420');
    expect(recall(index, exact)).to.be.at.least(0.95);
  });

  it('applies no more than drainHeld is asked to, and the rest later', () => {
    const index = new HnswIndex({ dimensions: D, metric: 'cosine', initialCapacity: 16 });
    index.buildThreads = 2;
    index.hold();
    for (let i = 0; i < 100; i++) index.add(`r${i}`, data[i]!);
    expect(index.drainHeld(RUN_PER_THREAD * 2 + 3)).to.equal(100 - (RUN_PER_THREAD * 2 + 3));
    expect(index.size()).to.equal(RUN_PER_THREAD * 2 + 3);
    expect(index.drainHeld(Infinity)).to.equal(0);
    expect(index.size()).to.equal(100);
  });

  describe('addPointsParallel', () => {
    const graph = () => {
      const native = new hnswlib.HierarchicalNSW('l2', D);
      native.initIndex({ maxElements: 64, m: 16, efConstruction: 100, randomSeed: 100 });
      return native;
    };
    const rows = (count: number) => Float32Array.from(data.slice(0, count).flat());
    const labels = (count: number) => Uint32Array.from({ length: count }, (_, i) => i);

    it('inserts every row under its label, from as many threads as asked', () => {
      const native = graph();
      const failed = new Uint8Array(40).fill(1);
      expect(addPointsParallel!(native, rows(40), labels(40), 4, failed)).to.equal(null);
      expect(native.getCurrentCount()).to.equal(40);
      expect([...failed].every((f) => f === 0)).to.equal(true);
      expect(native.searchKnn(data[7]!, 1).neighbors).to.deep.equal([7]);
    });

    it('refuses, inserting nothing, what it cannot take', () => {
      const native = graph();
      const f = (count: number) => new Uint8Array(count);
      const refused: Array<[() => unknown, RegExp]> = [
        [() => addPointsParallel!(native, rows(65), labels(65), 2, f(65)), /no room for 65/],
        [() => addPointsParallel!(native, rows(3), labels(4), 2, f(4)), /labels.length x 32/],
        [() => addPointsParallel!(native, rows(2), labels(2), 2, f(3)), /as long as labels/],
        [() => addPointsParallel!({} as never, rows(2), labels(2), 2, f(2)), /must be a HierarchicalNSW/],
        [() => addPointsParallel!(native, [] as never, labels(2), 2, f(2)), /must be a Float32Array/],
        [() => addPointsParallel!(native, rows(2), [0, 1] as never, 2, f(2)), /must be a Uint32Array/],
      ];
      for (const [call, message] of refused) expect(call).to.throw(message);
      expect(native.getCurrentCount()).to.equal(0);
      const unready = new hnswlib.HierarchicalNSW('l2', D);
      expect(() => addPointsParallel!(unready, rows(1), labels(1), 2, f(1))).to.throw(/not initialized/);
    });

    it('is what an InsertRun flushes, reporting each insert made in the order pushed', () => {
      const native = graph();
      const run = new InsertRun(addPointsParallel!, D, 2);
      for (let i = 0; i < 5; i++) run.push(`r${i}`, 10 + i, data[i]!);
      const made: Array<[string, number]> = [];
      expect(run.flush(native, (id, label) => made.push([id, label]))).to.equal(null);
      expect(made).to.deep.equal([0, 1, 2, 3, 4].map((i) => [`r${i}`, 10 + i]));
      expect(run.flush(native, () => expect.fail('an empty run inserts nothing'))).to.equal(null);
      expect(native.getCurrentCount()).to.equal(5);
    });
  });
});
