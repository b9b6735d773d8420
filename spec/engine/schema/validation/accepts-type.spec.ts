import { expect } from 'chai';
import { acceptsType } from '../../../../lib/engine/schema/index.js';
import { fieldFromWire, Tagged, TYPE_NAMES, type TypeName, type Value } from '../../../../lib/engine/values/index.js';

const UUID = '123e4567-e89b-12d3-a456-426614174000';
const date = fieldFromWire('2024-05-01T10:00:00Z', 'd');
const bytes = new Tagged('Binary', new Uint8Array([1, 2, 3]));

/** Valid and invalid stored values for every field_type. */
const CASES: Record<TypeName, { valid: Value[]; invalid: Value[] }> = {
  String: { valid: ['', 'hello', UUID], invalid: [1, true, date, new Tagged('UUID', UUID), ['a'], { a: 1 }] },
  Integer: {
    valid: [0, -7, 42, new Tagged('Float', 3), new Tagged('Number', 4), 2n ** 63n - 1n, -(2n ** 63n)],
    invalid: [1.5, 2 ** 53, '1', true, new Tagged('Decimal', '1'), [1]],
  },
  Float: {
    valid: [1.5, 2, new Tagged('Float', 3), new Tagged('Number', 0.5), 2n ** 60n],
    invalid: ['1.5', true, new Tagged('Decimal', '1.5'), null, 2n ** 53n + 1n],
  },
  Number: {
    valid: [1, 1.5, new Tagged('Number', 3), new Tagged('Float', 2), 2n ** 60n],
    invalid: ['1', false, { n: 1 }, 2n ** 63n - 1n],
  },
  Boolean: { valid: [true, false], invalid: [0, 'true', null] },
  Array: {
    valid: [[], [1, 'a'], new Tagged('Set', [1]), new Tagged('Vector', [0.5])],
    invalid: ['[]', { 0: 1 }, bytes],
  },
  Object: { valid: [{}, { a: { b: 1 } }], invalid: [[], 'x', date, bytes, new Uint8Array(1)] },
  DateTime: { valid: [date, '2024-05-01T10:00:00+02:00'], invalid: ['2024-05-01', 1714557600000, 'yesterday'] },
  Decimal: {
    valid: [new Tagged('Decimal', '1.25'), 3, 2.5, '29.99', '-1e3', new Tagged('Float', 2), 2n ** 63n - 1n],
    invalid: ['abc', '1.2.3', true, [1]],
  },
  UUID: {
    valid: [new Tagged('UUID', UUID), UUID, UUID.toUpperCase(), 'b1ffcd00-0d1c-5fg9-8a1a-000000000000'],
    invalid: [
      'not-a-uuid',
      '123e4567e89b12d3a456426614174000',
      '123e4567-e89b-12d3-a456_426614174000',
      '123e4567-e89b-12d3-a456-42661417400',
      5,
    ],
  },
  Vector: {
    valid: [new Tagged('Vector', [0.1, 0.2]), [1, 2, 3], []],
    invalid: [[1, 'a'], 'v', new Tagged('Set', [1]), { 0: 1 }, [2n ** 60n]],
  },
  Set: { valid: [new Tagged('Set', ['a']), ['a', 'a'], []], invalid: ['a', { a: 1 }, new Tagged('Vector', [1])] },
  Binary: {
    valid: [bytes, new Tagged('Bytes', new Uint8Array(2)), new Uint8Array(1), 'aGVsbG8=', 'aGk', [0, 255]],
    invalid: ['not base64!', 'hello', [256], [1.5], 7],
  },
  Bytes: { valid: [bytes, new Tagged('Bytes', new Uint8Array(2)), 'AAEC', [1, 2]], invalid: ['%%%', [-1], true] },
  Duration: {
    valid: [new Tagged('Duration', 1500), 1500, { secs: 1, nanos: 5 }],
    invalid: [-1, '1s', { secs: 1 }, { secs: 1, nanos: 1e9 }, 2n ** 60n, { secs: 2n ** 60n, nanos: 0 }],
  },
  Null: { valid: [null], invalid: [0, '', false, 'null'] },
};

describe('acceptsType', () => {
  it('covers every field_type', () => {
    expect(Object.keys(CASES).sort()).to.deep.equal([...TYPE_NAMES].sort());
  });

  for (const type of TYPE_NAMES) {
    const { valid, invalid } = CASES[type];
    it(`accepts the valid values of ${type}`, () => {
      for (const v of valid) expect(acceptsType(type, v), `${type} should accept ${String(v)}`).to.equal(true);
    });
    it(`rejects values that are not ${type}`, () => {
      for (const v of invalid) expect(acceptsType(type, v), `${type} should reject ${String(v)}`).to.equal(false);
    });
  }

  it('accepts null only for the Null type', () => {
    for (const type of TYPE_NAMES.filter((t) => t !== 'Null')) expect(acceptsType(type, null), type).to.equal(false);
  });
});
