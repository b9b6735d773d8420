import { expect } from 'chai';
import { JoinedRecords } from '../../../lib/engine/values/joined.js';
import { recordJson, recordToWire, Tagged, toJson, type Fields, type Value } from '../../../lib/engine/values/index.js';
import { mulberry32 } from '../../helpers/seeded-random.js';

const SCALARS: Value[] = [
  '', 'Ann', 'quote " and \\ backslash', 'line\nbreak \u0001 \u2028 é 😀', '"type":"Buffer"',
  'lone \ud800 high', 'lone \udfff low', '\u001f\u007f\t tab', 'plain ascii with spaces',
  0, -0, 31, -7, 2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53, 1.5, -0.25, 1e300, Number.NaN, Number.POSITIVE_INFINITY,
  true, false, null,
];
const OTHERS: Value[] = [
  12345678901234567890n, new Uint8Array([1, 2]), new Tagged('DateTime', '2024-01-01T00:00:00Z'), [1, 'a'], { nested: 1 }, [],
];
const KEYS = ['id', 'ttl', 'name', 'age', 'é', 'with "quote"', '__proto__x', '10', '2', 'constructor', 'tab\tkey', 'lone\ud834'];

describe('recordJson: a record\'s JSON written directly', () => {
  it('writes exactly the text of toJson(recordToWire(...)) for records of scalars, typed and bare', () => {
    const rnd = mulberry32(15);
    for (let i = 0; i < 2000; i++) {
      const fields: Record<string, Value> = {};
      const n = Math.floor(rnd() * KEYS.length);
      for (let k = 0; k < n; k++) fields[KEYS[Math.floor(rnd() * KEYS.length)]!] = SCALARS[Math.floor(rnd() * SCALARS.length)]!;
      for (const typed of [true, false]) {
        expect(recordJson(fields, { typed }), JSON.stringify(fields)).to.equal(toJson(recordToWire(fields, { typed })));
      }
    }
  });

  it('declines any record holding a value it does not write (the caller encodes the wire object)', () => {
    for (const v of OTHERS) {
      for (const key of ['id', 'name']) {
        const fields: Fields = { id: 'a', [key]: v };
        expect(recordJson(fields, { typed: true })).to.equal(undefined);
        expect(recordJson(fields, { typed: false })).to.equal(undefined);
      }
    }
    const joined = { id: 'a', friends: new JoinedRecords([{ id: 'b' }]) } as unknown as Fields;
    expect(recordJson(joined, { typed: true })).to.equal(undefined);
  });

  it('writes an empty record as {}', () => {
    expect(recordJson({}, { typed: true })).to.equal('{}');
  });
});
