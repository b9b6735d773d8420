import { expect } from 'chai';
import { InvalidInput } from '../../../lib/errors.js';
import {
  MAX_FILTER_DEPTH,
  OPERATORS,
  parseFilter,
  type Filter,
  type LogicalFilter,
} from '../../../lib/engine/query/index.js';
import { Tagged } from '../../../lib/engine/values/index.js';

const cond = (field: unknown, operator: unknown, value?: unknown) => ({
  type: 'Condition',
  content: value === undefined ? { field, operator } : { field, operator, value },
});
const logical = (operator: string, expressions: unknown[]) => ({ type: 'Logical', content: { operator, expressions } });

function rejects(raw: unknown, pattern: RegExp): void {
  let caught: unknown;
  try {
    parseFilter(raw);
  } catch (err) {
    caught = err;
  }
  expect(caught, 'expected parseFilter to throw').to.be.instanceOf(InvalidInput);
  expect((caught as InvalidInput).status).to.equal(400);
  expect((caught as Error).message).to.match(pattern);
}

function nestNot(levels: number): unknown {
  let f: unknown = cond('a', 'Eq', 1);
  for (let i = 1; i < levels; i++) f = logical('Not', [f]);
  return f;
}

describe('engine/query/filter', () => {
  describe('canonical form', () => {
    it('parses a Condition into a condition node', () => {
      expect(parseFilter(cond('name', 'Eq', 'Ada'))).to.deep.equal({
        kind: 'condition',
        field: 'name',
        op: 'Eq',
        value: 'Ada',
      });
    });

    it('parses Logical And and Or with their expressions in order', () => {
      const f = parseFilter(
        logical('Or', [cond('a', 'Eq', 1), logical('And', [cond('b', 'Gt', 2), cond('c', 'Lt', 3)])]),
      );
      expect(f.kind).to.equal('or');
      const or = f as LogicalFilter;
      expect(or.filters).to.have.length(2);
      expect(or.filters[1]!.kind).to.equal('and');
    });

    it('parses Logical Not with exactly one expression', () => {
      const f = parseFilter(logical('Not', [cond('a', 'Eq', 1)]));
      expect(f).to.deep.equal({ kind: 'not', filter: { kind: 'condition', field: 'a', op: 'Eq', value: 1 } });
    });

    it('accepts every documented operator', () => {
      const values: Record<string, unknown> = {
        Eq: 1,
        Ne: 1,
        Gt: 1,
        Gte: 1,
        Lt: 1,
        Lte: 1,
        In: [1],
        NotIn: [1],
        Contains: 'x',
        StartsWith: 'x',
        EndsWith: 'x',
        Exists: true,
      };
      for (const op of OPERATORS) expect(parseFilter(cond('f', op, values[op])).kind, op).to.equal('condition');
    });

    it('returns a frozen tree', () => {
      const f = parseFilter(logical('And', [cond('a', 'Eq', 1)])) as LogicalFilter;
      expect(Object.isFrozen(f)).to.equal(true);
      expect(Object.isFrozen(f.filters)).to.equal(true);
      expect(Object.isFrozen(f.filters[0])).to.equal(true);
    });
  });

  describe('flat back-compat forms', () => {
    it('parses {field, operator, value}', () => {
      expect(parseFilter({ field: 'age', operator: 'Gte', value: 18 })).to.deep.equal({
        kind: 'condition',
        field: 'age',
        op: 'Gte',
        value: 18,
      });
    });

    it('parses {and: [...]} and {or: [...]}', () => {
      expect(parseFilter({ and: [{ field: 'a', operator: 'Eq', value: 1 }] }).kind).to.equal('and');
      expect(parseFilter({ or: [{ field: 'a', operator: 'Eq', value: 1 }, cond('b', 'Eq', 2)] }).kind).to.equal('or');
    });

    it('parses {not: {...}} and the one-element {not: [x]}', () => {
      expect(parseFilter({ not: { field: 'a', operator: 'Eq', value: 1 } }).kind).to.equal('not');
      expect(parseFilter({ not: [{ field: 'a', operator: 'Eq', value: 1 }] }).kind).to.equal('not');
    });

    it('mixes flat and canonical forms at different levels', () => {
      const f = parseFilter({
        and: [cond('a', 'Eq', 1), { not: logical('Or', [{ field: 'b', operator: 'Exists', value: true }]) }],
      });
      expect(f.kind).to.equal('and');
    });
  });

  describe('operand conversion', () => {
    it('converts RFC 3339 strings to DateTime values', () => {
      const f = parseFilter(cond('at', 'Gt', '2024-01-01T10:00:00Z')) as Extract<Filter, { kind: 'condition' }>;
      expect(f.value).to.be.instanceOf(Tagged);
      expect((f.value as Tagged).type).to.equal('DateTime');
      expect((f.value as Tagged).value).to.equal('2024-01-01T10:00:00+00:00');
    });

    it('converts typed wrappers such as Decimal', () => {
      const f = parseFilter(cond('price', 'Lt', { type: 'Decimal', value: '9.99' })) as Extract<
        Filter,
        { kind: 'condition' }
      >;
      expect(f.value).to.deep.equal(new Tagged('Decimal', '9.99'));
    });

    it('converts In lists element by element', () => {
      const f = parseFilter(
        cond('at', 'In', ['2024-01-01T00:00:00Z', 'plain', { type: 'Integer', value: 3 }]),
      ) as Extract<Filter, { kind: 'condition' }>;
      const list = f.value as readonly unknown[];
      expect((list[0] as Tagged).type).to.equal('DateTime');
      expect(list[1]).to.equal('plain');
      expect(list[2]).to.equal(3);
    });

    it('accepts an In list sent as an Array typed wrapper', () => {
      const f = parseFilter(cond('x', 'In', { type: 'Array', value: [1, 2] })) as Extract<
        Filter,
        { kind: 'condition' }
      >;
      expect(f.value).to.deep.equal([1, 2]);
    });

    it('allows null for Eq and Ne, and treats an absent value as null', () => {
      expect((parseFilter(cond('a', 'Eq', null)) as Extract<Filter, { kind: 'condition' }>).value).to.equal(null);
      expect((parseFilter(cond('a', 'Ne', null)) as Extract<Filter, { kind: 'condition' }>).value).to.equal(null);
      expect((parseFilter({ field: 'a', operator: 'Eq' }) as Extract<Filter, { kind: 'condition' }>).value).to.equal(
        null,
      );
    });

    it('keeps string-operator operands as strings even when they look like dates', () => {
      const f = parseFilter(cond('s', 'StartsWith', '2024-01-01T00:00:00Z')) as Extract<Filter, { kind: 'condition' }>;
      expect(f.value).to.equal('2024-01-01T00:00:00Z');
    });

    it('accepts a String wrapper for Contains and a Boolean wrapper for Exists', () => {
      expect(
        (parseFilter(cond('s', 'Contains', { type: 'String', value: 'ab' })) as Extract<Filter, { kind: 'condition' }>)
          .value,
      ).to.equal('ab');
      expect(
        (parseFilter(cond('s', 'Exists', { type: 'Boolean', value: false })) as Extract<Filter, { kind: 'condition' }>)
          .value,
      ).to.equal(false);
    });

    it('allows dotted field paths and the id field', () => {
      expect(
        (parseFilter(cond('address.city', 'Eq', 'Oslo')) as Extract<Filter, { kind: 'condition' }>).field,
      ).to.equal('address.city');
      expect((parseFilter(cond('id', 'Eq', 'abc')) as Extract<Filter, { kind: 'condition' }>).field).to.equal('id');
    });
  });

  describe('rejections', () => {
    it('rejects an unknown operator with 400-class InvalidInput listing the valid ones', () => {
      rejects(cond('a', 'Foo', 1), /Unknown operator 'Foo' in filter.*expected one of Eq, Ne, Gt/);
    });

    it('rejects Regex like any unknown operator', () => {
      rejects(cond('a', 'Regex', '^x'), /Unknown operator 'Regex'/);
    });

    it('treats operators case-sensitively', () => {
      rejects(cond('a', 'eq', 1), /Unknown operator 'eq'/);
      rejects({ field: 'a', operator: 'EQ', value: 1 }, /Unknown operator 'EQ'/);
    });

    it('rejects a missing or non-string operator', () => {
      rejects({ type: 'Condition', content: { field: 'a', value: 1 } }, /operator/);
      rejects(cond('a', 7, 1), /Unknown operator a number/);
    });

    it('rejects non-object filters', () => {
      for (const raw of [null, 'a = 1', 42, true, [cond('a', 'Eq', 1)]]) rejects(raw, /expected an object/);
    });

    it('rejects a missing, empty or non-string field', () => {
      rejects({ type: 'Condition', content: { operator: 'Eq', value: 1 } }, /field name/);
      rejects(cond('', 'Eq', 1), /field name/);
      rejects(cond(5, 'Eq', 1), /field name/);
    });

    it('rejects a field path with an empty segment', () => {
      rejects(cond('a..b', 'Eq', 1), /empty segment/);
    });

    it('rejects hostile field names anywhere in a dotted path', () => {
      for (const field of ['__proto__', 'a.constructor', 'x.prototype.y', 'constructor'])
        rejects(cond(field, 'Eq', 1), /Forbidden field name/);
    });

    it('rejects an unknown filter type', () => {
      rejects({ type: 'Expression', content: {} }, /Unknown filter type 'Expression'.*Condition or Logical/);
    });

    it('rejects a missing or non-object content', () => {
      rejects({ type: 'Condition' }, /expected an object/);
      rejects({ type: 'Logical', content: [] }, /expected an object/);
    });

    it('rejects an unknown logical operator', () => {
      rejects(logical('Xor', [cond('a', 'Eq', 1)]), /Unknown logical operator 'Xor'.*And, Or or Not/);
      rejects(logical('and', [cond('a', 'Eq', 1)]), /Unknown logical operator 'and'/);
    });

    it('rejects And and Or with zero expressions', () => {
      rejects(logical('And', []), /Logical And .* no expressions/);
      rejects(logical('Or', []), /Logical Or .* no expressions/);
      rejects({ and: [] }, /no expressions/);
    });

    it('rejects Not without exactly one expression', () => {
      rejects(logical('Not', []), /exactly one expression, got 0/);
      rejects(logical('Not', [cond('a', 'Eq', 1), cond('b', 'Eq', 2)]), /exactly one expression, got 2/);
      rejects({ not: [cond('a', 'Eq', 1), cond('b', 'Eq', 1)] }, /exactly one expression/);
    });

    it('rejects non-array expressions and flat lists', () => {
      rejects({ type: 'Logical', content: { operator: 'And', expressions: cond('a', 'Eq', 1) } }, /must be an array/);
      rejects({ or: cond('a', 'Eq', 1) }, /must be an array/);
    });

    it('rejects unknown keys instead of ignoring them', () => {
      rejects({ field: 'a', operator: 'Eq', values: 1 }, /Unknown key 'values'/);
      rejects({ ...cond('a', 'Eq', 1), extra: true }, /Unknown key 'extra'/);
      rejects({ and: [cond('a', 'Eq', 1)], or: [] }, /Unknown key 'or'/);
    });

    it('rejects an object in none of the known forms', () => {
      rejects({}, /expected \{type, content\}/);
      rejects({ name: 'x' }, /expected \{type, content\}/);
    });

    it('rejects In and NotIn without an array value', () => {
      rejects(cond('a', 'In', 1), /'In' .* needs an array value, got a number/);
      rejects(cond('a', 'NotIn', 'x'), /'NotIn' .* needs an array value/);
    });

    it('rejects string operators without a string value', () => {
      for (const op of ['Contains', 'StartsWith', 'EndsWith'])
        rejects(cond('a', op, 5), new RegExp(`'${op}' .* needs a string value`));
    });

    it('rejects Exists without a boolean value', () => {
      rejects(cond('a', 'Exists', 'yes'), /'Exists' .* needs a boolean value/);
    });

    it('rejects null for range operators', () => {
      for (const op of ['Gt', 'Gte', 'Lt', 'Lte']) rejects(cond('a', op, null), /needs a non-null value/);
    });

    it('rejects malformed typed wrappers in operands', () => {
      rejects(cond('at', 'Gt', { type: 'DateTime', value: 'yesterday' }), /Invalid DateTime value for field 'at'/);
    });

    it('names the path of a nested offender', () => {
      rejects(
        logical('And', [cond('a', 'Eq', 1), cond('b', 'Nope', 1)]),
        /in filter\.content\.expressions\[1\]\.content/,
      );
    });

    it(`accepts nesting of exactly ${MAX_FILTER_DEPTH} levels and rejects deeper filters`, () => {
      expect(() => parseFilter(nestNot(MAX_FILTER_DEPTH))).not.to.throw();
      rejects(nestNot(MAX_FILTER_DEPTH + 1), /nested deeper than 32 levels/);
    });

    it('rejects very deep flat nesting without overflowing the stack', () => {
      let f: unknown = { field: 'a', operator: 'Eq', value: 1 };
      for (let i = 0; i < 10_000; i++) f = { not: f };
      rejects(f, /nested deeper/);
    });

    it('uses the given path in messages', () => {
      expect(() => parseFilter(null, 'functions[2].filter')).to.throw(InvalidInput, /functions\[2\]\.filter/);
    });
  });
});
