/**
 * Query indexes answer exactly for 64-bit Integers: hash and btree find
 * the same records as a scan would, with a bigint and an equal float
 * indexed under one key and unequal neighbours kept apart.
 */
import { expect } from 'chai';
import { QueryIndex } from '../../../lib/engine/indexes/query-index.js';
import { Tagged, type Value } from '../../../lib/engine/values/index.js';

const P53 = 2n ** 53n + 1n;
const MAX = 2n ** 63n - 1n;

const VALUES: Array<[string, Value]> = [
  ['max', MAX],
  ['p53', P53],
  ['f53', new Tagged('Float', 2 ** 53)],
  ['big60', 2n ** 60n],
  ['float60', 2 ** 60],
  ['five', 5],
  ['min', -(2n ** 63n)],
];

describe('engine/indexes/query-index with 64-bit integers', () => {
  for (const type of ['hash', 'btree'] as const) {
    it(`${type}: finds a bigint by an equal value of any representation, and only that value`, () => {
      const idx = new QueryIndex('n', type);
      for (const [id, v] of VALUES) idx.set(id, v);
      expect([...idx.equal(P53)]).to.deep.equal(['p53']);
      expect([...idx.equal(2 ** 53)]).to.deep.equal(['f53']);
      expect([...idx.equal(new Tagged('Float', 2 ** 60))].sort()).to.deep.equal(['big60', 'float60']);
      expect([...idx.equal(MAX)]).to.deep.equal(['max']);
      idx.remove('big60');
      expect([...idx.equal(2n ** 60n)]).to.deep.equal(['float60']);
    });
  }

  it('btree: ranges over bigints and floats follow exact numeric order', () => {
    const idx = new QueryIndex('n', 'btree');
    for (const [id, v] of VALUES) idx.set(id, v);
    expect(idx.range({ value: 2 ** 53, inclusive: false }).sort()).to.deep.equal(['big60', 'float60', 'max', 'p53']);
    expect(idx.range(undefined, { value: P53, inclusive: false }).sort()).to.deep.equal(['f53', 'five', 'min']);
    expect(idx.range({ value: P53, inclusive: true }, { value: 2n ** 60n, inclusive: false })).to.deep.equal(['p53']);
  });
});
