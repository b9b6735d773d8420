import { expect } from 'chai';
import { findUniqueViolations, parseSchema } from '../../../../lib/engine/schema/index.js';
import { fieldFromWire, Tagged, type Fields } from '../../../../lib/engine/values/index.js';

const schema = parseSchema(
  {
    fields: {
      email: { field_type: 'String', unique: true },
      code: { field_type: 'Integer', unique: true },
      name: { field_type: 'String' },
    },
  },
  '2024-01-01T00:00:00Z',
);

const existing: Fields[] = [
  { id: 'r1', email: 'a@x.io', code: 1, name: 'Ann' },
  { id: 'r2', email: 'b@x.io', code: null, name: 'Bob' },
];

describe('findUniqueViolations', () => {
  it('reports a value another record already holds', () => {
    expect(findUniqueViolations(schema, { email: 'a@x.io' }, existing)).to.deep.equal([
      {
        field: 'email',
        constraint: 'unique',
        expected: 'a value no other record holds',
        actual: 'a@x.io',
        message: "Field 'email' must be unique: another record already has 'a@x.io'",
      },
    ]);
  });

  it('reports every colliding unique field once', () => {
    const details = findUniqueViolations(schema, { email: 'b@x.io', code: 1 }, [
      ...existing,
      { id: 'r3', email: 'b@x.io' },
    ]);
    expect(details.map((d) => d.field)).to.deep.equal(['email', 'code']);
  });

  it('tells 64-bit Integers apart exactly where floats would round them together', () => {
    const big: Fields[] = [
      { id: 'b1', code: 2n ** 53n + 1n },
      { id: 'b2', code: 2n ** 63n - 1n },
    ];
    expect(findUniqueViolations(schema, { code: 2n ** 53n + 2n }, big)).to.deep.equal([]);
    expect(findUniqueViolations(schema, { code: 2n ** 63n - 2n }, big)).to.deep.equal([]);
    const clash = findUniqueViolations(schema, { code: 2n ** 63n - 1n }, big);
    expect(clash[0]).to.include({
      field: 'code',
      actual: 2n ** 63n - 1n,
      message: "Field 'code' must be unique: another record already has 9223372036854775807",
    });
  });

  it('ignores fields that are not unique', () => {
    expect(findUniqueViolations(schema, { name: 'Ann' }, existing)).to.deep.equal([]);
  });

  it('never lets null or absent values collide', () => {
    expect(findUniqueViolations(schema, { code: null }, existing)).to.deep.equal([]);
    expect(findUniqueViolations(schema, {}, existing)).to.deep.equal([]);
  });

  it('skips the record being updated', () => {
    expect(findUniqueViolations(schema, { email: 'a@x.io', code: 1 }, existing, 'r1')).to.deep.equal([]);
    expect(findUniqueViolations(schema, { email: 'a@x.io' }, existing, 'r2')).to.have.length(1);
  });

  it('compares values across stored spellings', () => {
    expect(findUniqueViolations(schema, { code: new Tagged('Float', 1) }, existing)).to.have.length(1);
    const s = parseSchema({ fields: { at: { field_type: 'DateTime', unique: true } } }, '2024-01-01T00:00:00Z');
    const at = fieldFromWire('2024-01-01T01:00:00+01:00', 'at');
    expect(
      findUniqueViolations(s, { at }, [{ id: 'x', at: fieldFromWire('2024-01-01T00:00:00Z', 'at') }]),
    ).to.have.length(1);
  });

  it('accepts any iterable of records', () => {
    function* records(): Generator<Fields> {
      yield* existing;
    }
    expect(findUniqueViolations(schema, { email: 'b@x.io' }, records())).to.have.length(1);
  });
});
