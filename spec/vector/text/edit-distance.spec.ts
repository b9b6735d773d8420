import { expect } from 'chai';
import { editDistance } from '../../../lib/vector/text/edit-distance.js';

describe('vector/edit-distance', () => {
  it('counts insertions, deletions and substitutions', () => {
    expect(editDistance('kitten', 'sitting', 5)).to.equal(3);
    expect(editDistance('database', 'databse', 5)).to.equal(1);
    expect(editDistance('', 'abc', 5)).to.equal(3);
    expect(editDistance('same', 'same', 0)).to.equal(0);
  });

  it('returns max + 1 once the distance exceeds the bound', () => {
    expect(editDistance('kitten', 'sitting', 2)).to.equal(3);
    expect(editDistance('a', 'abcdefgh', 1)).to.equal(2);
  });

  it('is case-sensitive', () => {
    expect(editDistance('Apple', 'apple', 2)).to.equal(1);
  });
});
