import { expect } from 'chai';
import { InvalidInput } from '../../lib/errors.js';
import { BruteForceIndex, HnswIndex, METRICS, type Metric, type VectorHit } from '../../lib/vector/index.js';
import { randomVectors } from '../helpers/seeded-random.js';
import { vectorIndexContract } from './vector-index.contract.js';

// initialCapacity 2 makes the contract cases resize the native index too.
vectorIndexContract('HnswIndex', (dimensions, metric) => new HnswIndex({ dimensions, metric, initialCapacity: 2 }));

const N = 5000;
const D = 64;
const K = 10;
const MIN_RECALL = 0.95;
const data = randomVectors(N, D, 1);
const queries = randomVectors(100, D, 2);
const extra = randomVectors(1000, D, 3);

/** recall@k: the share of exact top-k ids that the approximate answers contain. */
function recall(index: HnswIndex, exact: BruteForceIndex, filter?: (id: string) => boolean): number {
  let found = 0;
  let wanted = 0;
  for (const query of queries) {
    const truth = new Set(exact.search(query, K, filter).map((h) => h.id));
    wanted += truth.size;
    found += index.search(query, K, filter).filter((h) => truth.has(h.id)).length;
  }
  return found / wanted;
}

function build(metric: Metric, initialCapacity = 256): { hnsw: HnswIndex; exact: BruteForceIndex } {
  const hnsw = new HnswIndex({ dimensions: D, metric, initialCapacity });
  const exact = new BruteForceIndex({ dimensions: D, metric });
  data.forEach((v, i) => {
    hnsw.add(`r${i}`, v);
    exact.add(`r${i}`, v);
  });
  return { hnsw, exact };
}

describe('vector/hnsw', () => {
  for (const metric of METRICS) {
    describe(`with the ${metric} metric on 5,000 random 64-d vectors`, () => {
      let hnsw: HnswIndex;
      let exact: BruteForceIndex;
      before(() => ({ hnsw, exact } = build(metric)));

      it('grows from 256 slots by doubling and reaches recall@10 of at least 0.95 against brute force', () => {
        expect(hnsw.size()).to.equal(N);
        expect(hnsw.capacity).to.equal(8192);
        expect(recall(hnsw, exact)).to.be.at.least(MIN_RECALL);
      });

      it('reports the same scores as exact search for the neighbours it finds', () => {
        for (const query of queries.slice(0, 20)) {
          const truth = new Map(exact.search(query, K).map((h) => [h.id, h.score]));
          for (const hit of hnsw.search(query, K)) {
            if (truth.has(hit.id))
              expect(hit.score).to.be.closeTo(truth.get(hit.id)!, 1e-4 * Math.max(1, Math.abs(hit.score)));
          }
        }
      });

      it('keeps recall@10 through deletes, inserts and replacements, never returning a deleted id', () => {
        const deleted = new Set<string>();
        for (let i = 0; i < N; i += 5) {
          hnsw.remove(`r${i}`);
          exact.remove(`r${i}`);
          deleted.add(`r${i}`);
        }
        expect(hnsw.size()).to.equal(N - deleted.size);
        expect(recall(hnsw, exact)).to.be.at.least(MIN_RECALL);
        for (const query of queries) {
          for (const hit of hnsw.search(query, K)) expect(deleted.has(hit.id)).to.equal(false);
        }
        extra.forEach((v, i) => {
          hnsw.add(`n${i}`, v);
          exact.add(`n${i}`, v);
        });
        expect(hnsw.stats()).to.deep.include({ usedSlots: N + 1000, freedSlots: 1000, capacity: 8192 });
        expect(recall(hnsw, exact)).to.be.at.least(MIN_RECALL);
        for (let i = 1; i < 1000; i += 2) {
          hnsw.add(
            `n${i}`,
            extra[i]!.map((x) => -x),
          );
          exact.add(
            `n${i}`,
            extra[i]!.map((x) => -x),
          );
        }
        expect(hnsw.size()).to.equal(N);
        expect(recall(hnsw, exact)).to.be.at.least(MIN_RECALL);
      });
    });
  }

  it('takes over freed slots under churn, so memory stays bounded and recall holds', () => {
    const live = 1000;
    const hnsw = new HnswIndex({ dimensions: D, metric: 'euclidean', initialCapacity: 1024 });
    const exact = new BruteForceIndex({ dimensions: D, metric: 'euclidean' });
    const vectors = randomVectors(live * 4, D, 4);
    const ids: string[] = [];
    const insert = (i: number): void => {
      hnsw.add(`c${i}`, vectors[i]!);
      exact.add(`c${i}`, vectors[i]!);
      ids.push(`c${i}`);
    };
    for (let i = 0; i < live; i++) insert(i);
    for (let cycle = 1; cycle <= 3; cycle++) {
      for (const id of ids.splice(0, live / 2)) {
        hnsw.remove(id);
        exact.remove(id);
      }
      for (let i = 0; i < live / 2; i++) insert(cycle * live + i);
    }
    const stats = hnsw.stats();
    expect(stats.size).to.equal(live);
    expect(stats.usedSlots).to.be.at.most(1.5 * live);
    expect(stats.capacity).to.equal(2048);
    expect(recall(hnsw, exact)).to.be.at.least(MIN_RECALL);
  });

  describe('filtered search', () => {
    let hnsw: HnswIndex;
    let exact: BruteForceIndex;
    before(() => ({ hnsw, exact } = build('cosine', 8192)));

    it('serves a selective filter (1% of ids) exactly, as brute force does', () => {
      const filter = (id: string): boolean => Number(id.slice(1)) % 100 === 0;
      for (const query of queries.slice(0, 30)) {
        const expected = exact.search(query, K, filter);
        const hits = hnsw.search(query, K, filter);
        expect(hits.map((h) => h.id)).to.deep.equal(expected.map((h) => h.id));
        hits.forEach((h, i) => expect(h.score).to.be.closeTo(expected[i]!.score, 1e-5));
      }
    });

    it('runs a broad filter (half the ids) through the graph with recall@10 of at least 0.95', () => {
      const filter = (id: string): boolean => Number(id.slice(1)) % 2 === 0;
      expect(recall(hnsw, exact, filter)).to.be.at.least(MIN_RECALL);
      for (const query of queries) {
        const hits = hnsw.search(query, K, filter);
        expect(hits).to.have.length(K);
        for (const hit of hits) expect(filter(hit.id)).to.equal(true);
      }
    });

    it('returns every allowed vector when fewer than k pass the filter', () => {
      const allowed = new Set(['r7', 'r700', 'r4999']);
      const hits = hnsw.search(queries[0]!, K, (id) => allowed.has(id));
      expect(hits.map((h) => h.id).sort()).to.deep.equal([...allowed].sort());
    });
  });

  it('builds the same graph, and so gives the same answers, for the same seed and insert order', () => {
    const answers = (): VectorHit[][] => {
      const index = new HnswIndex({ dimensions: D, metric: 'euclidean', randomSeed: 7, efSearch: 12 });
      data.slice(0, 1500).forEach((v, i) => index.add(`r${i}`, v));
      return queries.slice(0, 20).map((q) => index.search(q, K));
    };
    expect(answers()).to.deep.equal(answers());
  });

  it('rejects parameters outside their ranges', () => {
    expect(() => new HnswIndex({ dimensions: 4, metric: 'cosine', m: 1 })).to.throw(InvalidInput, 'HNSW m');
    expect(() => new HnswIndex({ dimensions: 4, metric: 'cosine', efConstruction: 0 })).to.throw(InvalidInput);
    expect(() => new HnswIndex({ dimensions: 4, metric: 'cosine', efSearch: 2.5 })).to.throw(InvalidInput);
    expect(() => new HnswIndex({ dimensions: 4, metric: 'cosine', randomSeed: -1 })).to.throw(InvalidInput);
    expect(() => new HnswIndex({ dimensions: 4, metric: 'cosine', initialCapacity: 0 })).to.throw(InvalidInput);
  });

  it('keeps m 16 and efConstruction 100 (as Lucene and Qdrant) unless told otherwise', () => {
    const index = new HnswIndex({ dimensions: 4, metric: 'dotproduct' });
    expect([index.m, index.efConstruction, index.efSearch]).to.deep.equal([16, 100, undefined]);
  });
});
