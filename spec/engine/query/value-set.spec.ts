/**
 * The In/NotIn hash set must mean exactly what the list scan it replaced
 * meant (equalValues, arrays-contain), typed values included, while testing
 * a record in O(1) per value instead of O(list length).
 */
import { expect } from 'chai';
import { parseFilter, runQuery, ValueSet } from '../../../lib/engine/query/index.js';
import { elementsOf, testOperator } from '../../../lib/engine/query/operators.js';
import { equalValues, normalizeDateTime, Tagged, type Fields, type Value } from '../../../lib/engine/values/index.js';
import { mulberry32 } from '../../helpers/seeded-random.js';

/** In as a plain scan of the list, the reference the value set must agree with. */
function scanIsIn(actual: Value | undefined, list: readonly Value[]): boolean {
  if (list.some((x) => equalValues(actual, x))) return true;
  const items = elementsOf(actual);
  return items !== undefined && items.some((e) => list.some((x) => equalValues(e, x)));
}

const date = (s: string) => new Tagged('DateTime', normalizeDateTime(s)!);
const UUID = '550e8400-e29b-41d4-a716-446655440000';

/** Values that are equal across kinds and spellings, and values that only look alike. */
const POOL: ReadonlyArray<Value | undefined> = [
  undefined,
  null,
  true,
  false,
  0,
  1,
  -1,
  1.5,
  2,
  1e21,
  new Tagged('Float', 1),
  new Tagged('Number', 2),
  new Tagged('Decimal', '1.0'),
  new Tagged('Decimal', '1.50'),
  new Tagged('Duration', 1),
  new Tagged('Duration', { secs: 0, nanos: 1_000_000 }),
  '',
  'a',
  'b',
  '1',
  'true',
  'null',
  UUID,
  new Tagged('UUID', UUID),
  '2024-01-01T00:00:00Z',
  '2024-01-01T01:00:00+01:00',
  '2024-01-01T00:00:00.000Z',
  '2024-01-01T00:00:00.5Z',
  date('2024-01-01T00:00:00Z'),
  date('2024-01-01T00:00:00.000Z'),
  date('2024-01-01T00:00:00.5Z'),
  date('2025-06-01T12:00:00Z'),
  new Uint8Array([1, 2]),
  new Tagged('Binary', new Uint8Array([1, 2])),
  new Tagged('Bytes', new Uint8Array([1, 3])),
  [],
  [1],
  [1, 'a'],
  ['2024-01-01T00:00:00Z'],
  [date('2024-01-01T00:00:00Z')],
  [[1]],
  [null],
  new Tagged('Set', [1, 2]),
  new Tagged('Vector', [1.5, 2]),
  new Tagged('Set', ['a']),
  {},
  { a: 1 },
  { a: new Tagged('Decimal', '1') },
  { a: [1] },
];

describe('engine/query/value-set', () => {
  it('agrees with the list scan for In and NotIn on random typed values, arrays and objects', () => {
    const random = mulberry32(8);
    const pick = () => POOL[Math.floor(random() * POOL.length)];
    let matches = 0;
    for (let trial = 0; trial < 5_000; trial++) {
      const list = Array.from({ length: Math.floor(random() * 8) }, pick).filter((v): v is Value => v !== undefined);
      const actual = pick();
      const want = scanIsIn(actual, list);
      if (want) matches++;
      const members = new ValueSet(list);
      expect(testOperator('In', actual, list, members), `${String(actual)} In ${JSON.stringify(list)}`).to.equal(want);
      expect(testOperator('NotIn', actual, list, members)).to.equal(!want);
    }
    expect(matches).to.be.within(500, 4_500);
  });

  it('finds every pool value in a set of the whole pool exactly when the scan does', () => {
    const all = POOL.filter((v): v is Value => v !== undefined);
    const members = new ValueSet(all);
    for (const actual of POOL)
      expect(members.has(actual), String(actual)).to.equal(all.some((x) => equalValues(actual, x)));
  });

  it('matches a DateTime against an RFC 3339 string at the same instant, and two strings only when identical', () => {
    expect(new ValueSet(['2024-01-01T01:00:00+01:00']).has(date('2024-01-01T00:00:00Z'))).to.equal(true);
    expect(new ValueSet([date('2024-01-01T00:00:00Z')]).has('2024-01-01T01:00:00+01:00')).to.equal(true);
    expect(new ValueSet(['2024-01-01T01:00:00+01:00']).has('2024-01-01T00:00:00Z')).to.equal(false);
  });

  it('runs In with 10,000 values over 20,000 records fast, with the same result as the scan', () => {
    const values = Array.from({ length: 10_000 }, (_, i) => (i % 2 === 0 ? i * 3 : `s${i * 3}`));
    const records: Fields[] = Array.from({ length: 20_000 }, (_, i) => ({
      id: `r${i}`,
      n: i % 3 === 0 ? i : `s${i}`,
      tags: i % 7 === 0 ? [`s${i * 3}`] : ['none'],
    }));
    const inN = parseFilter({ field: 'n', operator: 'In', value: values });
    const inTags = parseFilter({ field: 'tags', operator: 'In', value: values });
    const started = performance.now();
    const byN = runQuery(records, { filter: inN });
    const byTags = runQuery(records, { filter: inTags });
    expect(performance.now() - started).to.be.below(2000);
    const list = (inN as { value: readonly Value[] }).value;
    for (const r of records.slice(0, 60)) {
      expect(byN.includes(r)).to.equal(scanIsIn(r.n, list));
      expect(byTags.includes(r)).to.equal(scanIsIn(r.tags, list));
    }
    const wantN = records.filter((r) => typeof r.n === 'number' && r.n % 6 === 0);
    expect(byN.map((r) => r.id)).to.deep.equal(wantN.map((r) => r.id));
    expect(byTags.map((r) => r.id)).to.deep.equal(
      records.filter((r, i) => i % 7 === 0 && i < 10_000 && i % 2 === 1).map((r) => r.id),
    );
  });
});
