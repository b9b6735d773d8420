import { expect } from 'chai';
import { InvalidInput } from '../../lib/errors.js';
import { fuseScores } from '../../lib/vector/index.js';

describe('vector/hybrid', () => {
  const text = [
    { id: 'both', score: 12.87, matchedFields: ['title'] },
    { id: 'textOnly', score: 6.435, matchedFields: ['body', 'title'] },
  ];
  const vector = [
    { id: 'vectorOnly', score: 0.99 },
    { id: 'both', score: 0.996 },
  ];

  it('normalizes text scores by the best one and adds the weighted vector similarity', () => {
    const hits = fuseScores(text, vector, { textWeight: 1, vectorWeight: 0.5 });
    expect(hits.map((h) => h.id)).to.deep.equal(['both', 'textOnly', 'vectorOnly']);
    expect(hits[0]!.score).to.be.closeTo(1 + 0.5 * 0.996, 1e-12); // 1.498, as in protocol.md §2.9
    expect(hits[1]!.score).to.be.closeTo(0.5, 1e-12);
    expect(hits[2]!.score).to.be.closeTo(0.495, 1e-12);
  });

  it('keeps matched fields from the text side and leaves pure vector hits with none', () => {
    const hits = fuseScores(text, vector, { textWeight: 0.5, vectorWeight: 0.5 });
    const byId = new Map(hits.map((h) => [h.id, h]));
    expect(byId.get('both')!.matchedFields).to.deep.equal(['title']);
    expect(byId.get('textOnly')!.matchedFields).to.deep.equal(['body', 'title']);
    expect(byId.get('vectorOnly')!.matchedFields).to.deep.equal([]);
    expect(byId.get('both')).to.deep.include({ textScore: 1, vectorScore: 0.996 });
  });

  it('lets the weights decide between the two sides', () => {
    expect(fuseScores(text, vector, { textWeight: 0, vectorWeight: 1 })[0]!.id).to.equal('both');
    const vectorHeavy = fuseScores(text, vector, { textWeight: 0.1, vectorWeight: 1 }).map((h) => h.id);
    expect(vectorHeavy.indexOf('vectorOnly')).to.be.lessThan(vectorHeavy.indexOf('textOnly'));
  });

  it('uses equal weights by default and handles empty sides', () => {
    expect(fuseScores(text, [])[0]!.score).to.equal(0.5);
    expect(fuseScores([], vector)[0]).to.deep.include({ id: 'both', score: 0.498 });
    expect(fuseScores([], [])).to.deep.equal([]);
  });

  it('rejects negative or non-finite weights', () => {
    expect(() => fuseScores(text, vector, { textWeight: -1, vectorWeight: 1 })).to.throw(InvalidInput, 'text_weight');
    expect(() => fuseScores(text, vector, { textWeight: 1, vectorWeight: Number.NaN })).to.throw(
      InvalidInput,
      'vector_weight',
    );
  });
});
