import { expect } from 'chai';
import { BruteForceIndex, METRICS, NearestScan, similarity } from '../../lib/vector/index.js';
import { randomVectors } from '../helpers/seeded-random.js';
import { vectorIndexContract } from './vector-index.contract.js';

vectorIndexContract('BruteForceIndex', (dimensions, metric) => new BruteForceIndex({ dimensions, metric }));

describe('vector/brute-force', () => {
  const data = randomVectors(500, 16, 11);
  const queries = randomVectors(20, 16, 12);

  for (const metric of METRICS) {
    it(`returns exactly the top k by ${metric} similarity`, () => {
      const index = new BruteForceIndex({ dimensions: 16, metric });
      data.forEach((v, i) => index.add(`r${i}`, v));
      for (const query of queries) {
        const expected = data
          .map((v, i) => ({ id: `r${i}`, score: similarity(metric, query, v) }))
          .sort((a, b) => b.score - a.score)
          .slice(0, 10);
        const hits = index.search(query, 10);
        expect(hits.map((h) => h.id)).to.deep.equal(expected.map((h) => h.id));
        hits.forEach((h, i) => expect(h.score).to.be.closeTo(expected[i]!.score, 1e-9));
      }
    });
  }

  it('breaks score ties by id', () => {
    const index = new BruteForceIndex({ dimensions: 2, metric: 'cosine' });
    for (const id of ['c', 'a', 'b']) index.add(id, [1, 1]);
    expect(index.search([1, 1], 3).map((h) => h.id)).to.deep.equal(['a', 'b', 'c']);
  });

  it('copies vectors on add, so the caller may reuse its array', () => {
    const index = new BruteForceIndex({ dimensions: 2, metric: 'euclidean' });
    const v = [1, 2];
    index.add('a', v);
    v[0] = 100;
    expect(index.get('a')).to.deep.equal([1, 2]);
  });

  for (const metric of METRICS) {
    it(`scans offered ${metric} vectors to exactly BruteForceIndex's hits, scores and tie order`, () => {
      const index = new BruteForceIndex({ dimensions: 16, metric });
      data.forEach((v, i) => index.add(`r${i}`, v));
      for (const query of [...queries, data[3]!]) {
        const scan = new NearestScan(metric, query, 10);
        data.forEach((v, i) => scan.offer(`r${i}`, v));
        expect(scan.results()).to.deep.equal(index.search(query, 10));
      }
    });
  }

  it('skips offered arrays that are not vectors of the query length', () => {
    const scan = new NearestScan('cosine', [1, 0], 10);
    scan.offer('short', [1]);
    scan.offer('text', [1, 'x']);
    scan.offer('nan', [1, NaN]);
    scan.offer('inf', [Infinity, 0]);
    scan.offer('ok', [2, 0]);
    expect(scan.results()).to.deep.equal([{ id: 'ok', score: 1 }]);
  });
});
