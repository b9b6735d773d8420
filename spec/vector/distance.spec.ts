import { expect } from 'chai';
import {
  cosineSimilarity,
  dotProduct,
  euclideanDistance,
  isMetric,
  METRICS,
  similarity,
} from '../../lib/vector/index.js';
import { dotAndSquares } from '../../lib/vector/distance.js';

describe('vector/distance', () => {
  it("sums the dot product and the stored vector's squares in one pass, refusing anything but numbers", () => {
    const parts = { dot: 0, squares: 0 };
    expect(dotAndSquares([1, 2, 3], [4, -5, 6], parts)).to.equal(true);
    expect(parts).to.deep.equal({ dot: 12, squares: 77 });
    expect(dotAndSquares([1, 2], [1, '2'], parts)).to.equal(false);
    expect(dotAndSquares([1, 2], [null, 2], parts)).to.equal(false);
    expect(parts, 'unchanged by a refused vector').to.deep.equal({ dot: 12, squares: 77 });
  });

  it('computes the dot product', () => {
    expect(dotProduct([1, 2, 3], [4, -5, 6])).to.equal(12);
  });

  it('computes euclidean distance', () => {
    expect(euclideanDistance([0, 0], [3, 4])).to.equal(5);
    expect(euclideanDistance([1, 1], [1, 1])).to.equal(0);
  });

  it('computes cosine similarity independent of vector length', () => {
    expect(cosineSimilarity([1, 0], [5, 0])).to.equal(1);
    expect(cosineSimilarity([1, 0], [0, 2])).to.equal(0);
    expect(cosineSimilarity([1, 0], [-3, 0])).to.equal(-1);
    expect(cosineSimilarity([1, 1], [1, 0])).to.be.closeTo(Math.SQRT1_2, 1e-12);
  });

  it('gives 0 rather than NaN for the cosine of a zero vector', () => {
    expect(cosineSimilarity([0, 0], [1, 2])).to.equal(0);
    expect(cosineSimilarity([0, 0], [0, 0])).to.equal(0);
  });

  it('keeps cosine within [-1, 1] despite rounding', () => {
    const v = [0.1, 0.2, 0.3, 0.7, 1e-9];
    expect(cosineSimilarity(v, v)).to.be.at.most(1);
    expect(
      cosineSimilarity(
        v,
        v.map((x) => -x),
      ),
    ).to.be.at.least(-1);
  });

  it('turns every metric into a higher-is-better similarity', () => {
    expect(similarity('cosine', [1, 0], [1, 1])).to.be.closeTo(Math.SQRT1_2, 1e-12);
    expect(similarity('euclidean', [0, 0], [3, 4])).to.equal(1 / 6);
    expect(similarity('euclidean', [2, 2], [2, 2])).to.equal(1);
    expect(similarity('dotproduct', [1, 2], [3, 4])).to.equal(11);
    const near = [1, 0.1];
    const far = [-1, 0.5];
    for (const metric of METRICS) {
      expect(similarity(metric, [1, 0], near), metric).to.be.greaterThan(similarity(metric, [1, 0], far));
    }
  });

  it('recognizes exactly the three protocol metrics', () => {
    expect(METRICS).to.deep.equal(['cosine', 'euclidean', 'dotproduct']);
    expect(isMetric('cosine')).to.equal(true);
    expect(isMetric('l2')).to.equal(false);
    expect(isMetric(undefined)).to.equal(false);
  });
});
