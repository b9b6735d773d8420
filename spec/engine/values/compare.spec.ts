/**
 * Numbers compare exactly across representations: a bigint Integer beyond
 * 2^53 against floats, Float/Number tags and Decimals, for equality,
 * ordering, sorting and hash keys alike.
 */
import { expect } from 'chai';
import {
  compareValues,
  equalValues,
  hashKey,
  sortCompare,
  Tagged,
  type Value,
} from '../../../lib/engine/values/index.js';

const P53 = 2n ** 53n + 1n;
const MAX = 2n ** 63n - 1n;
const MIN = -(2n ** 63n);

describe('engine/values/compare with 64-bit integers', () => {
  it('orders a bigint and a float by their exact values', () => {
    expect(compareValues(P53, 2 ** 53)).to.equal(1);
    expect(compareValues(2 ** 53, P53)).to.equal(-1);
    expect(compareValues(P53 - 2n, 2 ** 53)).to.equal(-1); // 2^53 - 1 as a bigint never occurs, but still compares
    expect(compareValues(MAX, 2 ** 63)).to.equal(-1); // the float 2^63 is one above i64 max
    expect(compareValues(MIN, -(2 ** 63))).to.equal(0);
    expect(compareValues(P53, new Tagged('Float', 9007199254740992.5 as number))).to.equal(1);
    expect(compareValues(MAX, MAX - 1n)).to.equal(1);
  });

  it('treats a bigint and a float as equal only when they hold the same number', () => {
    expect(equalValues(2n ** 60n, 2 ** 60)).to.equal(true);
    expect(equalValues(2n ** 60n, new Tagged('Float', 2 ** 60))).to.equal(true);
    expect(equalValues(2n ** 60n, new Tagged('Number', 2 ** 60))).to.equal(true);
    expect(equalValues(P53, 2 ** 53)).to.equal(false);
    expect(equalValues(P53, P53)).to.equal(true);
    expect(equalValues(MAX, 2 ** 63)).to.equal(false);
    expect(equalValues([P53, { a: MAX }], [P53, { a: MAX }])).to.equal(true);
    expect(equalValues([P53], [2 ** 53])).to.equal(false);
  });

  it('compares a whole Decimal beyond 2^53 exactly', () => {
    expect(equalValues(new Tagged('Decimal', '9007199254740993'), P53)).to.equal(true);
    expect(equalValues(new Tagged('Decimal', '9007199254740992'), P53)).to.equal(false);
    expect(compareValues(new Tagged('Decimal', '9223372036854775808'), MAX)).to.equal(1);
    expect(compareValues(new Tagged('Decimal', '12.5'), 12)).to.equal(1);
  });

  it('sorts a mix of bigints, numbers and tagged floats in exact numeric order', () => {
    const values: Value[] = [MAX, 5, P53, new Tagged('Float', 2 ** 53), MIN, 9007199254740991, P53 + 1n, -1.5];
    expect([...values].sort(sortCompare)).to.deep.equal([
      MIN,
      -1.5,
      5,
      9007199254740991,
      new Tagged('Float', 2 ** 53),
      P53,
      P53 + 1n,
      MAX,
    ]);
  });

  it('gives equal hash keys exactly to equal numbers, whatever their representation', () => {
    const groups: Value[][] = [
      [2n ** 60n, 2 ** 60, new Tagged('Float', 2 ** 60), new Tagged('Decimal', '1152921504606846976')],
      [P53, new Tagged('Decimal', '9007199254740993')],
      [2 ** 53, new Tagged('Float', 2 ** 53)],
      [1e21, new Tagged('Decimal', '1000000000000000000000')],
      [MIN, -(2 ** 63)],
      [MAX],
      [BigInt(String(2 ** 60))], // the digits JS writes for the float 2^60 are another integer
    ];
    for (const [i, group] of groups.entries()) {
      for (const a of group) {
        for (const b of group) expect(hashKey(a), `${String(a)} vs ${String(b)}`).to.equal(hashKey(b));
        for (const [j, other] of groups.entries()) {
          if (j !== i) for (const b of other) expect(hashKey(a)).to.not.equal(hashKey(b));
        }
      }
    }
    for (const group of groups)
      for (const a of group)
        for (const b of group) expect(equalValues(a, b), `${String(a)} = ${String(b)}`).to.equal(true);
  });
});

describe('engine/values/compare on plain primitives', () => {
  /** What the rules give for two primitives, written out: the answers the scan's direct path must give too. */
  const expectedOrder = (a: Value, b: Value): number | undefined => {
    if (typeof a !== typeof b) {
      const numeric = (v: Value) => typeof v === 'number' || typeof v === 'bigint';
      if (!(numeric(a) && numeric(b))) return undefined;
    }
    if (typeof a === 'boolean') return Number(a) - Number(b as boolean);
    return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
  };
  const values: Value[] = [0, -0, 1, -1, 1.5, NaN, Infinity, 40, 40n, 2n ** 60n, '', 'a', 'B', 'é', true, false];

  it('compares and equates every pair as the typed rules do, NaN and -0 included', () => {
    for (const a of values) {
      for (const b of values) {
        const label = `${String(a)} ? ${String(b)}`;
        expect(compareValues(a, b), label).to.equal(expectedOrder(a, b));
        const equal = typeof a === typeof b ? a === b : (a as number) == (b as number) && expectedOrder(a, b) === 0;
        expect(equalValues(a, b), label).to.equal(equal);
      }
    }
  });

  it('still compares a string with a DateTime as an instant', () => {
    const when = new Tagged('DateTime', '2026-11-29T08:00:00Z');
    expect(equalValues('2026-11-29T08:00:00.000+00:00', when)).to.equal(true);
    expect(compareValues('2026-11-29T09:00:00Z', when)).to.equal(1);
  });
});
