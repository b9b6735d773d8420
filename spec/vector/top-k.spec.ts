import { expect } from 'chai';
import { TopK } from '../../lib/vector/top-k.js';
import { mulberry32 } from '../helpers/seeded-random.js';

describe('vector/top-k', () => {
  it('keeps the k best hits, best first, ties by id', () => {
    const random = mulberry32(5);
    const hits = Array.from({ length: 300 }, (_, i) => ({ id: `h${i}`, score: Math.floor(random() * 50) }));
    const top = new TopK(7);
    hits.forEach((h) => top.push(h));
    const expected = [...hits].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1)).slice(0, 7);
    expect(top.sorted()).to.deep.equal(expected);
  });

  it('keeps nothing for k = 0 and everything when fewer than k arrive', () => {
    const none = new TopK(0);
    none.push({ id: 'a', score: 1 });
    expect(none.sorted()).to.deep.equal([]);
    const few = new TopK(5);
    few.push({ id: 'a', score: 1 });
    few.push({ id: 'b', score: 2 });
    expect(few.sorted().map((h) => h.id)).to.deep.equal(['b', 'a']);
  });

  it('admits a score while fewer than k are kept, then only one at least the worst kept (a tie goes to the ids)', () => {
    expect(new TopK(0).admits(5), 'k = 0 keeps nothing').to.equal(false);
    const top = new TopK(2);
    expect(top.admits(-Infinity)).to.equal(true);
    top.push({ id: 'b', score: 1 });
    top.push({ id: 'c', score: 3 });
    expect([top.admits(0.5), top.admits(1), top.admits(2)]).to.deep.equal([false, true, true]);
    // Admitted on a tie, kept only when its id sorts first.
    top.push({ id: 'a', score: 1 });
    expect(top.sorted().map((h) => h.id)).to.deep.equal(['c', 'a']);
  });
});
