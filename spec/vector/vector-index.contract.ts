/**
 * The VectorIndex contract suite, shared by every implementation (style.md
 * §9 "Contract suites"): brute-force.spec.ts and hnsw.spec.ts run it with
 * their own factory. Small hand-made data, so exact answers are known.
 */
import { expect } from 'chai';
import { InvalidInput } from '../../lib/errors.js';
import type { Metric, VectorIndex } from '../../lib/vector/index.js';

export type IndexFactory = (dimensions: number, metric: Metric) => VectorIndex;

export function vectorIndexContract(name: string, create: IndexFactory): void {
  describe(`${name} (VectorIndex contract)`, () => {
    function unitIndex(metric: Metric = 'cosine'): VectorIndex {
      const index = create(3, metric);
      index.add('x', [1, 0, 0]);
      index.add('y', [0, 1, 0]);
      index.add('z', [0, 0, 1]);
      index.add('xy', [1, 1, 0]);
      return index;
    }

    it('reports its dimensions and metric', () => {
      const index = create(3, 'euclidean');
      expect(index.dimensions).to.equal(3);
      expect(index.metric).to.equal('euclidean');
    });

    it('returns the nearest vectors best first with cosine scores', () => {
      const hits = unitIndex().search([1, 0.1, 0], 3);
      expect(hits.map((h) => h.id)).to.deep.equal(['x', 'xy', 'y']);
      expect(hits[0]!.score).to.be.closeTo(1 / Math.sqrt(1.01), 1e-6);
      expect(hits[1]!.score).to.be.closeTo(1.1 / (Math.sqrt(2) * Math.sqrt(1.01)), 1e-6);
    });

    it('scores euclidean as 1/(1+d) and dot product raw', () => {
      const euclidean = unitIndex('euclidean').search([2, 0, 0], 1)[0]!;
      expect(euclidean).to.deep.include({ id: 'x' });
      expect(euclidean.score).to.be.closeTo(0.5, 1e-6);
      const dot = unitIndex('dotproduct').search([2, 3, 0], 2);
      expect(dot.map((h) => h.id)).to.deep.equal(['xy', 'y']);
      expect(dot[0]!.score).to.be.closeTo(5, 1e-5);
      expect(dot[1]!.score).to.be.closeTo(3, 1e-5);
    });

    it('counts, finds and removes ids', () => {
      const index = unitIndex();
      expect(index.size()).to.equal(4);
      expect(index.has('y')).to.equal(true);
      index.remove('y');
      index.remove('never-added');
      expect(index.has('y')).to.equal(false);
      expect(index.size()).to.equal(3);
      expect(index.search([0, 1, 0], 4).map((h) => h.id)).to.not.include('y');
    });

    it('replaces the vector when an existing id is added again', () => {
      const index = unitIndex();
      index.add('x', [0, 0, 1]);
      expect(index.size()).to.equal(4);
      const hits = index.search([0, 0, 1], 2);
      expect(hits.map((h) => h.id).sort()).to.deep.equal(['x', 'z']);
      expect(hits[0]!.score).to.be.closeTo(1, 1e-6);
    });

    it('lets an id be added again after removal', () => {
      const index = unitIndex();
      index.remove('x');
      index.add('x', [0, 1, 0]);
      expect(index.size()).to.equal(4);
      expect(
        index
          .search([0, 1, 0], 2)
          .map((h) => h.id)
          .sort(),
      ).to.deep.equal(['x', 'y']);
    });

    it('returns at most the stored count, and nothing for k = 0 or an empty index', () => {
      expect(unitIndex().search([1, 0, 0], 50)).to.have.length(4);
      expect(unitIndex().search([1, 0, 0], 0)).to.deep.equal([]);
      expect(create(3, 'cosine').search([1, 0, 0], 5)).to.deep.equal([]);
    });

    it('considers only ids the filter allows', () => {
      const hits = unitIndex().search([1, 0, 0], 4, (id) => id !== 'x' && id !== 'xy');
      expect(hits.map((h) => h.id).sort()).to.deep.equal(['y', 'z']);
      expect(unitIndex().search([1, 0, 0], 4, () => false)).to.deep.equal([]);
    });

    it('rejects a dimension mismatch on add and search with the index dimension in the message', () => {
      const index = unitIndex();
      expect(() => index.add('w', [1, 2])).to.throw(InvalidInput, 'vector has 2 dimensions; the index has 3');
      expect(() => index.search([1, 2, 3, 4], 1)).to.throw(InvalidInput, 'vector has 4 dimensions; the index has 3');
    });

    it('rejects non-finite components and a bad k', () => {
      const index = unitIndex();
      expect(() => index.add('w', [1, Number.NaN, 0])).to.throw(InvalidInput, 'component 1');
      expect(() => index.search([1, 0, Infinity], 1)).to.throw(InvalidInput);
      expect(() => index.search([1, 0, 0], -1)).to.throw(InvalidInput, 'k must be');
      expect(() => index.search([1, 0, 0], 1.5)).to.throw(InvalidInput);
    });

    it('rejects bad dimensions and unknown metrics at construction', () => {
      expect(() => create(0, 'cosine')).to.throw(InvalidInput);
      expect(() => create(3, 'manhattan' as Metric)).to.throw(InvalidInput, 'unknown vector metric');
    });

    it('scores zero vectors under cosine as 0, never NaN', () => {
      const index = create(3, 'cosine');
      index.add('zero', [0, 0, 0]);
      index.add('x', [1, 0, 0]);
      for (const query of [
        [0, 0, 0],
        [1, 0, 0],
      ]) {
        for (const hit of index.search(query, 2)) expect(Number.isNaN(hit.score)).to.equal(false);
      }
      const zeroHit = index.search([1, 0, 0], 2).find((h) => h.id === 'zero')!;
      expect(zeroHit.score).to.equal(0);
    });
  });
}
