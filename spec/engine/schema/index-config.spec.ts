import { expect } from 'chai';
import { InvalidInput } from '../../../lib/errors.js';
import { parseIndexConfig } from '../../../lib/engine/schema/index.js';

describe('parseIndexConfig', () => {
  it('parses each index kind with its members', () => {
    expect(parseIndexConfig({ type: 'text', language: 'english', analyzer: 'standard' }, 'f')).to.deep.equal({
      type: 'text',
      language: 'english',
      analyzer: 'standard',
    });
    expect(
      parseIndexConfig(
        { type: 'vector', algorithm: 'hnsw', metric: 'cosine', m: 16, ef_construction: 200, dimensions: 384 },
        'f',
      ),
    ).to.deep.equal({
      type: 'vector',
      algorithm: 'hnsw',
      metric: 'cosine',
      m: 16,
      ef_construction: 200,
      dimensions: 384,
    });
    expect(parseIndexConfig({ type: 'btree' }, 'f')).to.deep.equal({ type: 'btree' });
    expect(parseIndexConfig({ type: 'hash' }, 'f')).to.deep.equal({ type: 'hash' });
  });

  it('treats null members as absent', () => {
    expect(parseIndexConfig({ type: 'vector', algorithm: null, metric: 'euclidean', m: null }, 'f')).to.deep.equal({
      type: 'vector',
      metric: 'euclidean',
    });
  });

  it('returns a frozen config', () => {
    expect(Object.isFrozen(parseIndexConfig({ type: 'text' }, 'f'))).to.equal(true);
  });

  it('rejects capitalised index types with a hint that they are lowercase', () => {
    expect(() => parseIndexConfig({ type: 'Text' }, 'bio')).to.throw(InvalidInput, /Field 'bio'.*lowercase/);
  });

  it('rejects unknown index types, missing types and non-objects', () => {
    expect(() => parseIndexConfig({ type: 'gin' }, 'f')).to.throw(InvalidInput, /text, vector, btree, hash/);
    expect(() => parseIndexConfig({}, 'f')).to.throw(InvalidInput);
    expect(() => parseIndexConfig({ type: 'toString' }, 'f')).to.throw(InvalidInput);
    expect(() => parseIndexConfig('btree', 'f')).to.throw(InvalidInput, /must be an object/);
  });

  it('rejects members that belong to another index kind', () => {
    expect(() => parseIndexConfig({ type: 'btree', metric: 'cosine' }, 'f')).to.throw(
      InvalidInput,
      /unknown member 'metric'/,
    );
    expect(() => parseIndexConfig({ type: 'text', m: 16 }, 'f')).to.throw(InvalidInput, /unknown member 'm'/);
  });

  it('rejects values outside the closed sets', () => {
    expect(() => parseIndexConfig({ type: 'vector', metric: 'Cosine' }, 'f')).to.throw(
      InvalidInput,
      /cosine, euclidean, dotproduct/,
    );
    expect(() => parseIndexConfig({ type: 'vector', algorithm: 'annoy' }, 'f')).to.throw(
      InvalidInput,
      /flat, hnsw, ivf/,
    );
    expect(() => parseIndexConfig({ type: 'vector', m: 0 }, 'f')).to.throw(InvalidInput, /positive integer/);
    expect(() => parseIndexConfig({ type: 'vector', ef_construction: 1.5 }, 'f')).to.throw(InvalidInput);
    expect(() => parseIndexConfig({ type: 'vector', dimensions: '3' }, 'f')).to.throw(InvalidInput);
    expect(() => parseIndexConfig({ type: 'text', language: 3 }, 'f')).to.throw(InvalidInput);
  });
});
