import { expect } from 'chai';
import { Packr, unpack } from 'msgpackr';
import { JoinedRecords } from '../../../../lib/engine/values/wire/joined.js';
import {
  recordJson,
  recordMsgpack,
  recordToWire,
  Tagged,
  type Fields,
  type Value,
} from '../../../../lib/engine/values/index.js';
import { randomRecords } from '../../../helpers/seeded-random.js';

/** The HTTP answer packer's options (lib/http/wire/codec.ts `responsePackr`). */
const answerPackr = new Packr({ useRecords: false, moreTypes: false, encodeUndefinedAsNil: true });

const long = (unit: string, n: number) => unit.repeat(n);
const SCALARS: Value[] = [
  '',
  'Ann',
  'quote " and \\ backslash',
  'line\nbreak \u0001 \u2028 é 😀',
  'lone \ud800 high',
  'lone \udfff low',
  long('a', 31),
  long('a', 32),
  long('é', 20),
  long('é', 40),
  long('a', 63),
  long('a', 64),
  long('€', 100),
  long('😀', 70),
  long('a', 255),
  long('a', 256),
  long('x', 70000),
  0,
  -0,
  1,
  31,
  127,
  128,
  255,
  256,
  65535,
  65536,
  2 ** 32 - 1,
  2 ** 32,
  -1,
  -32,
  -33,
  -128,
  -129,
  -32768,
  -32769,
  -(2 ** 31),
  -(2 ** 31) - 1,
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
const OTHERS: Value[] = [
  12345678901234567890n,
  new Uint8Array([1, 2]),
  new Tagged('DateTime', '2024-01-01T00:00:00Z'),
  [1, 'a'],
  { nested: 1 },
  [],
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
  long('k', 40),
  'lone\ud834',
];

describe("recordMsgpack: a record's MessagePack written directly", () => {
  it('writes exactly the bytes the answer packer writes for recordToWire(...), typed and bare', () => {
    for (const fields of randomRecords(16, KEYS, SCALARS, 2000)) {
      for (const typed of [true, false]) {
        const expected = Buffer.from(answerPackr.pack(recordToWire(fields, { typed })));
        const got = recordMsgpack(fields, { typed });
        expect(got && Buffer.from(got).toString('hex'), JSON.stringify(Object.keys(fields))).to.equal(
          expected.toString('hex'),
        );
      }
    }
  });

  it('decodes to the wire object', () => {
    const fields = { id: 'a1', name: 'Ann', age: 31, score: 2.5, ok: true, none: null };
    expect(unpack(recordMsgpack(fields, { typed: true })!)).to.deep.equal(recordToWire(fields, { typed: true }));
  });

  it('declines, like recordJson, any record holding a value they do not write (the caller encodes the wire object)', () => {
    for (const write of [recordMsgpack, recordJson]) {
      for (const v of OTHERS) {
        for (const key of ['id', 'name']) {
          const fields: Fields = { id: 'a', [key]: v };
          expect(write(fields, { typed: true })).to.equal(undefined);
          expect(write(fields, { typed: false })).to.equal(undefined);
        }
      }
      const joined = { id: 'a', friends: new JoinedRecords([{ id: 'b' }]) } as unknown as Fields;
      expect(write(joined, { typed: true })).to.equal(undefined);
    }
  });
});
