import { expect } from 'chai';
import { InvalidInput } from '../../../lib/errors.js';
import { parseSearch } from '../../../lib/engine/index.js';

describe('engine/search parseSearch', () => {
  it('reads a vector without a query as a nearest-neighbour search', () => {
    for (const body of [{ vector: [1, 0] }, { query: null, vector: [1, 0] }, { query: '', vector: [1, 0] }]) {
      const req = parseSearch(body);
      expect(req.query, JSON.stringify(body)).to.equal('');
      expect(req.vector).to.deep.equal([1, 0]);
    }
  });

  it('keeps a query alone as a text search and a query with a vector as a hybrid one', () => {
    expect(parseSearch({ query: 'shoes' })).to.include({ query: 'shoes', vector: undefined });
    expect(parseSearch({ query: 'shoes', vector: [0.5] })).to.deep.include({ query: 'shoes', vector: [0.5] });
  });

  it('refuses a body with neither a query nor a vector, saying what to send', () => {
    for (const body of [{}, { query: '' }, { query: null }, { vector: null }, { limit: 5 }]) {
      expect(() => parseSearch(body), JSON.stringify(body)).to.throw(
        InvalidInput,
        "Give a 'query' (text search), a 'vector' (nearest-neighbour search), or both (hybrid search)",
      );
    }
  });

  it('refuses a query that is not a string', () => {
    for (const query of [1, true, ['shoes'], { text: 'shoes' }]) {
      expect(() => parseSearch({ query, vector: [1] })).to.throw(InvalidInput, "'query' must be a string");
    }
  });
});
