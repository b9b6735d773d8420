import { expect } from 'chai';
import { recordJson, recordsJson, recordToWire, toJson, type Value } from '../../../../lib/engine/values/index.js';
import { randomRecords } from '../../../helpers/seeded-random.js';

const SCALARS: Value[] = [
  '',
  'Ann',
  'quote " and \\ backslash',
  'line\nbreak \u0001 \u2028 é 😀',
  '"type":"Buffer"',
  'lone \ud800 high',
  'lone \udfff low',
  '\u001f\u007f\t tab',
  'plain ascii with spaces',
  0,
  -0,
  31,
  -7,
  2 ** 53 - 1,
  -(2 ** 53 - 1),
  2 ** 53,
  1.5,
  -0.25,
  1e300,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  true,
  false,
  null,
];
const KEYS = [
  'id',
  'ttl',
  'name',
  'age',
  'é',
  'with "quote"',
  '__proto__x',
  '10',
  '2',
  'constructor',
  'tab\tkey',
  'lone\ud834',
];

describe("recordJson: a record's JSON written directly", () => {
  it('writes exactly the text of toJson(recordToWire(...)) for records of scalars, typed and bare', () => {
    for (const fields of randomRecords(15, KEYS, SCALARS, 2000)) {
      for (const typed of [true, false]) {
        expect(recordJson(fields, { typed }), JSON.stringify(fields)).to.equal(toJson(recordToWire(fields, { typed })));
      }
    }
  });

  // Records the direct writers decline: record-msgpack.spec.ts checks both writers.

  it('writes a list of scalar records as the JSON array of their texts, and declines any other list', () => {
    const records = randomRecords(16, KEYS, SCALARS, 500);
    for (const typed of [true, false]) {
      expect(recordsJson(records, { typed })).to.equal(`[${records.map((r) => recordJson(r, { typed })).join(',')}]`);
      expect(recordsJson([...records, { id: 'x', big: 2n ** 64n }], { typed })).to.equal(undefined);
      expect(recordsJson([{ nested: { a: 1 } }], { typed })).to.equal(undefined);
    }
    expect(recordsJson([], { typed: true })).to.equal('[]');
  });

  it('writes an empty record as {}', () => {
    expect(recordJson({}, { typed: true })).to.equal('{}');
  });
});
