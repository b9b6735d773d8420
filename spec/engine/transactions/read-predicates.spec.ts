/**
 * A Serializable transaction's predicate list: duplicates and reads a
 * whole-collection predicate covers are skipped, and too many distinct
 * predicates on one collection collapse into one whole-collection read at
 * the oldest seq (a superset of their conflicts, with bounded commit work).
 */
import { expect } from 'chai';
import { parseQuery } from '../../../lib/engine/index.js';
import { MAX_PREDICATES_PER_COLLECTION, ReadPredicates } from '../../../lib/engine/transactions/read-predicates.js';

const filterOf = (n: number) => parseQuery({ filter: { field: 'n', operator: 'Eq', value: n } }).filter!;

describe('engine/transactions read predicates', () => {
  it('skips a read that an earlier whole-collection read or the same filter already covers', () => {
    const p = new ReadPredicates();
    const f = filterOf(1);
    p.add({ collection: 'a', filter: f, seq: 3 });
    p.add({ collection: 'a', filter: f, seq: 5 });
    p.add({ collection: 'b', seq: 4 });
    p.add({ collection: 'b', filter: filterOf(2), seq: 6 });
    expect([...p]).to.deep.equal([
      { collection: 'a', filter: f, seq: 3 },
      { collection: 'b', seq: 4 },
    ]);
    expect(p.oldestSeq).to.equal(3);
  });

  it('collapses the predicates of one collection into a whole-collection read at their oldest seq past the limit', () => {
    const p = new ReadPredicates();
    const other = filterOf(0);
    p.add({ collection: 'other', filter: other, seq: 9 });
    for (let i = 0; i <= MAX_PREDICATES_PER_COLLECTION; i++)
      p.add({ collection: 'a', filter: filterOf(i), seq: 10 + i });
    expect([...p]).to.deep.equal([
      { collection: 'other', filter: other, seq: 9 },
      { collection: 'a', seq: 10 },
    ]);
    expect(p.size).to.equal(2);
    p.add({ collection: 'a', filter: filterOf(99), seq: 50 });
    expect(p.size).to.equal(2);
  });

  it('has no oldest seq while empty', () => {
    expect(new ReadPredicates().oldestSeq).to.equal(undefined);
  });
});
