import { expect } from 'chai';
import { coerceToSchema, coerceValue, parseSchema, validateRecord } from '../../../../lib/engine/schema/index.js';
import { fieldsFromWire, recordToWire, Tagged, typeOf, type Value } from '../../../../lib/engine/values/index.js';

const UUID = '123e4567-e89b-12d3-a456-426614174000';

describe('coerceValue', () => {
  const cases: [string, Parameters<typeof coerceValue>[0], Value, Value][] = [
    ['a bare number array into a Vector', 'Vector', [1, 2.5], new Tagged('Vector', [1, 2.5])],
    ['a bare array into a deduplicated Set', 'Set', ['a', 'b', 'a'], new Tagged('Set', ['a', 'b'])],
    ['a bare UUID string into a UUID', 'UUID', UUID, new Tagged('UUID', UUID)],
    ['a whole number into a Float', 'Float', 3, new Tagged('Float', 3)],
    ['a Tagged Number with a fraction into a bare Float', 'Float', new Tagged('Number', 2.5), 2.5],
    ['a number into a Number', 'Number', 3, new Tagged('Number', 3)],
    ['a number into a Decimal', 'Decimal', 2.5, new Tagged('Decimal', '2.5')],
    ['a decimal string into a Decimal', 'Decimal', '19.90', new Tagged('Decimal', '19.90')],
    ['a whole Tagged Float into an Integer', 'Integer', new Tagged('Float', 4), 4],
    ['a base64 string into Binary bytes', 'Binary', 'aGk=', new Tagged('Binary', new Uint8Array([104, 105]))],
    ['a byte array into Bytes', 'Bytes', [1, 2], new Tagged('Bytes', new Uint8Array([1, 2]))],
    [
      'Binary bytes into Bytes',
      'Bytes',
      new Tagged('Binary', new Uint8Array([9])),
      new Tagged('Bytes', new Uint8Array([9])),
    ],
    ['milliseconds into a Duration', 'Duration', 1500, new Tagged('Duration', 1500)],
    [
      'secs and nanos into a Duration',
      'Duration',
      { secs: 2, nanos: 5 },
      new Tagged('Duration', { secs: 2, nanos: 5 }),
    ],
    [
      'an RFC 3339 string into a normalised DateTime',
      'DateTime',
      '2024-01-01T01:00:00+01:00',
      new Tagged('DateTime', '2024-01-01T00:00:00+00:00'),
    ],
    ['a Set into a plain Array', 'Array', new Tagged('Set', [1, 2]), [1, 2]],
    ['a Vector into a plain Array', 'Array', new Tagged('Vector', [0.5]), [0.5]],
  ];
  for (const [title, type, input, expected] of cases) {
    it(`converts ${title}`, () => {
      const out = coerceValue(type, input);
      expect(out).to.deep.equal(expected);
      expect(typeOf(out)).to.equal(type);
    });
  }

  it('returns values already in the declared form unchanged', () => {
    const set = new Tagged('Set', ['a']);
    expect(coerceValue('Set', set)).to.equal(set);
    expect(coerceValue('Integer', 3)).to.equal(3);
    expect(coerceValue('Float', 2.5)).to.equal(2.5);
  });

  it('leaves null and values the type does not accept unchanged', () => {
    expect(coerceValue('Vector', null)).to.equal(null);
    expect(coerceValue('Integer', 'x')).to.equal('x');
    expect(coerceValue('Vector', [1, 'a'])).to.deep.equal([1, 'a']);
  });
});

describe('coerceToSchema', () => {
  const schema = parseSchema(
    {
      fields: {
        embedding: { field_type: 'Vector' },
        tags: { field_type: 'Set' },
        ref: { field_type: 'UUID' },
        price: { field_type: 'Float' },
        amount: { field_type: 'Decimal' },
        blob: { field_type: 'Binary' },
      },
    },
    '2024-01-01T00:00:00Z',
  );

  it('makes reads report the declared types of bare wire values', () => {
    const record = fieldsFromWire({
      embedding: [0.1, 0.2],
      tags: ['a', 'a', 'b'],
      ref: UUID,
      price: 10,
      amount: 5,
      blob: 'AAE=',
      other: [1],
    });
    expect(validateRecord(schema, record, 'insert')).to.deep.equal([]);
    const wire = recordToWire(coerceToSchema(schema, record), { typed: true });
    expect(wire).to.deep.equal({
      embedding: { type: 'Vector', value: [0.1, 0.2] },
      tags: { type: 'Set', value: ['a', 'b'] },
      ref: { type: 'UUID', value: UUID },
      price: { type: 'Float', value: 10 },
      amount: { type: 'Decimal', value: '5' },
      blob: { type: 'Binary', value: new Uint8Array([0, 1]) },
      other: { type: 'Array', value: [1] },
    });
  });

  it('returns a new object and keeps nulls and undeclared fields', () => {
    const input = Object.freeze({ price: null, x: 'y' });
    const out = coerceToSchema(schema, input);
    expect(out).to.not.equal(input);
    expect(out).to.deep.equal({ price: null, x: 'y' });
  });
});
