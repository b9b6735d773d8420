import { expect } from 'chai';
import { getPath, matchFilter, parseFilter } from '../../../lib/engine/query/index.js';
import { testOperator } from '../../../lib/engine/query/operators.js';
import { randomRecords } from '../../helpers/seeded-random.js';
import { fieldsFromWire, Tagged, type Fields } from '../../../lib/engine/values/index.js';

const rec = (body: Record<string, unknown>): Fields => fieldsFromWire(body);
const cond = (field: string, operator: string, value?: unknown) => ({
  type: 'Condition',
  content: { field, operator, value },
});
const matches = (filter: unknown, record: Record<string, unknown>): boolean =>
  matchFilter(parseFilter(filter), rec(record));

describe('engine/query/match', () => {
  describe('getPath', () => {
    const r = rec({
      id: 'r1',
      name: 'Ada',
      address: { city: 'Oslo', geo: { lat: 59.9 } },
      tags: ['a', 'b'],
      'dotted.key': 'literal',
      at: '2024-01-01T00:00:00Z',
      empty: null,
    });

    it('reads top-level fields including id', () => {
      expect(getPath(r, 'id')).to.equal('r1');
      expect(getPath(r, 'name')).to.equal('Ada');
    });

    it('follows dotted paths into nested objects', () => {
      expect(getPath(r, 'address.city')).to.equal('Oslo');
      expect(getPath(r, 'address.geo.lat')).to.equal(59.9);
    });

    it('indexes arrays with numeric segments', () => {
      expect(getPath(r, 'tags.1')).to.equal('b');
      expect(getPath(r, 'tags.2')).to.equal(undefined);
      expect(getPath(r, 'tags.01')).to.equal(undefined);
    });

    it('prefers an exact top-level key that contains a dot', () => {
      expect(getPath(r, 'dotted.key')).to.equal('literal');
    });

    it('returns undefined for missing fields and paths through scalars', () => {
      expect(getPath(r, 'nope')).to.equal(undefined);
      expect(getPath(r, 'name.length')).to.equal(undefined);
      expect(getPath(r, 'address.zip')).to.equal(undefined);
      expect(getPath(r, 'empty.x')).to.equal(undefined);
    });

    it('returns null for a field present with null', () => {
      expect(getPath(r, 'empty')).to.equal(null);
    });

    it('treats Tagged values as leaves reachable only at the top level', () => {
      expect(getPath(r, 'at')).to.be.instanceOf(Tagged);
      expect(getPath(r, 'at.value')).to.equal(undefined);
      expect(getPath(r, 'at.type')).to.equal(undefined);
    });

    it('never reads inherited properties', () => {
      expect(getPath(r, 'toString')).to.equal(undefined);
      expect(getPath(r, 'address.hasOwnProperty')).to.equal(undefined);
      expect(getPath(r, 'tags.length')).to.equal(undefined);
    });
  });

  describe('Eq and Ne', () => {
    it('matches equal strings, numbers and booleans', () => {
      expect(matches(cond('name', 'Eq', 'Ada'), { name: 'Ada' })).to.equal(true);
      expect(matches(cond('name', 'Eq', 'ada'), { name: 'Ada' })).to.equal(false);
      expect(matches(cond('n', 'Eq', 3), { n: 3 })).to.equal(true);
      expect(matches(cond('ok', 'Eq', true), { ok: true })).to.equal(true);
      expect(matches(cond('ok', 'Eq', 'true'), { ok: true })).to.equal(false);
    });

    it('filters on id like any field', () => {
      expect(matches(cond('id', 'Eq', 'r1'), { id: 'r1' })).to.equal(true);
      expect(matches(cond('id', 'Eq', 'r2'), { id: 'r1' })).to.equal(false);
    });

    it('treats a missing field as null for Eq null', () => {
      expect(matches(cond('x', 'Eq', null), {})).to.equal(true);
      expect(matches(cond('x', 'Eq', null), { x: null })).to.equal(true);
      expect(matches(cond('x', 'Eq', null), { x: 0 })).to.equal(false);
    });

    it('makes Ne true for a missing field unless the value is null', () => {
      expect(matches(cond('x', 'Ne', 1), {})).to.equal(true);
      expect(matches(cond('x', 'Ne', null), {})).to.equal(false);
      expect(matches(cond('x', 'Ne', null), { x: 2 })).to.equal(true);
      expect(matches(cond('x', 'Ne', 2), { x: 2 })).to.equal(false);
    });

    it('compares numbers across Integer, Float, Number and Decimal', () => {
      expect(matches(cond('n', 'Eq', 2), { n: { type: 'Float', value: 2 } })).to.equal(true);
      expect(matches(cond('n', 'Eq', { type: 'Decimal', value: '2.50' }), { n: 2.5 })).to.equal(true);
      expect(matches(cond('n', 'Eq', 7), { n: { type: 'Number', value: 7 } })).to.equal(true);
    });

    it('compares DateTimes by instant across offsets and bare strings', () => {
      const record = { at: '2024-05-01T12:00:00+02:00' };
      expect(matches(cond('at', 'Eq', '2024-05-01T10:00:00Z'), record)).to.equal(true);
      expect(matches(cond('at', 'Eq', { type: 'DateTime', value: '2024-05-01T10:00:00.000Z' }), record)).to.equal(true);
      expect(matches(cond('at', 'Eq', '2024-05-01T10:00:01Z'), record)).to.equal(false);
    });

    it('compares whole arrays and objects structurally', () => {
      expect(matches(cond('tags', 'Eq', ['a', 'b']), { tags: ['a', 'b'] })).to.equal(true);
      expect(matches(cond('tags', 'Eq', ['b', 'a']), { tags: ['a', 'b'] })).to.equal(false);
      expect(matches(cond('o', 'Eq', { x: 1, y: [2] }), { o: { y: [2], x: 1 } })).to.equal(true);
    });

    it('reads nested paths', () => {
      expect(matches(cond('address.city', 'Eq', 'Oslo'), { address: { city: 'Oslo' } })).to.equal(true);
      expect(matches(cond('address.city', 'Ne', 'Oslo'), { address: { city: 'Bergen' } })).to.equal(true);
    });
  });

  describe('Gt, Gte, Lt, Lte', () => {
    it('orders numbers', () => {
      expect(matches(cond('n', 'Gt', 5), { n: 6 })).to.equal(true);
      expect(matches(cond('n', 'Gt', 5), { n: 5 })).to.equal(false);
      expect(matches(cond('n', 'Gte', 5), { n: 5 })).to.equal(true);
      expect(matches(cond('n', 'Lt', 5), { n: 4.5 })).to.equal(true);
      expect(matches(cond('n', 'Lte', 5), { n: 5 })).to.equal(true);
      expect(matches(cond('n', 'Lte', 5), { n: 5.01 })).to.equal(false);
    });

    it('orders numbers across types, including Decimal strings', () => {
      expect(matches(cond('price', 'Gt', 10), { price: { type: 'Decimal', value: '10.01' } })).to.equal(true);
      expect(matches(cond('price', 'Lt', { type: 'Decimal', value: '9.5' }), { price: 9 })).to.equal(true);
      expect(
        matches(cond('price', 'Gte', { type: 'Float', value: 3 }), { price: { type: 'Number', value: 3 } }),
      ).to.equal(true);
    });

    it('orders DateTimes by instant, with sub-millisecond precision', () => {
      const record = { at: '2024-05-01T10:00:00.000001Z' };
      expect(matches(cond('at', 'Gt', '2024-05-01T10:00:00Z'), record)).to.equal(true);
      expect(matches(cond('at', 'Lt', '2024-05-01T12:00:00+01:00'), record)).to.equal(true);
      expect(matches(cond('at', 'Lt', '2024-05-01T10:30:00+01:00'), record)).to.equal(false);
    });

    it('orders strings lexically', () => {
      expect(matches(cond('s', 'Gt', 'apple'), { s: 'banana' })).to.equal(true);
      expect(matches(cond('s', 'Lt', 'apple'), { s: 'Banana' })).to.equal(true);
    });

    it('is false for a missing field', () => {
      for (const op of ['Gt', 'Gte', 'Lt', 'Lte']) expect(matches(cond('n', op, 0), {}), op).to.equal(false);
    });

    it('is false for incomparable kinds in both directions', () => {
      for (const op of ['Gt', 'Gte', 'Lt', 'Lte']) {
        expect(matches(cond('n', op, 5), { n: 'five' }), op).to.equal(false);
        expect(matches(cond('n', op, 5), { n: null }), op).to.equal(false);
        expect(matches(cond('at', op, '2024-01-01T00:00:00Z'), { at: 5 }), op).to.equal(false);
      }
    });
  });

  describe('In and NotIn', () => {
    it('tests scalar membership', () => {
      expect(matches(cond('c', 'In', ['red', 'blue']), { c: 'red' })).to.equal(true);
      expect(matches(cond('c', 'In', ['red', 'blue']), { c: 'green' })).to.equal(false);
      expect(matches(cond('c', 'NotIn', ['red', 'blue']), { c: 'green' })).to.equal(true);
      expect(matches(cond('c', 'NotIn', ['red', 'blue']), { c: 'red' })).to.equal(false);
    });

    it('compares members across numeric types and DateTimes', () => {
      expect(matches(cond('n', 'In', [1, 2.5]), { n: { type: 'Decimal', value: '2.5' } })).to.equal(true);
      expect(matches(cond('at', 'In', ['2024-01-01T01:00:00+01:00']), { at: '2024-01-01T00:00:00Z' })).to.equal(true);
    });

    it('is true for an array or Set field when any element is listed', () => {
      expect(matches(cond('tags', 'In', ['x', 'b']), { tags: ['a', 'b'] })).to.equal(true);
      expect(matches(cond('tags', 'In', ['x', 'y']), { tags: ['a', 'b'] })).to.equal(false);
      expect(matches(cond('tags', 'In', ['b']), { tags: { type: 'Set', value: ['a', 'b', 'a'] } })).to.equal(true);
      expect(matches(cond('tags', 'NotIn', ['b']), { tags: ['a', 'b'] })).to.equal(false);
      expect(matches(cond('tags', 'NotIn', ['z']), { tags: ['a', 'b'] })).to.equal(true);
    });

    it('handles a missing field: In is false, NotIn true, unless null is listed', () => {
      expect(matches(cond('c', 'In', ['red']), {})).to.equal(false);
      expect(matches(cond('c', 'NotIn', ['red']), {})).to.equal(true);
      expect(matches(cond('c', 'In', [null]), {})).to.equal(true);
    });

    it('matches nothing with an empty In list and everything with an empty NotIn list', () => {
      expect(matches(cond('c', 'In', []), { c: 'red' })).to.equal(false);
      expect(matches(cond('c', 'NotIn', []), { c: 'red' })).to.equal(true);
    });
  });

  describe('Contains, StartsWith, EndsWith', () => {
    it('Contains tests substrings of string fields, case-sensitively', () => {
      expect(matches(cond('s', 'Contains', 'ell'), { s: 'hello' })).to.equal(true);
      expect(matches(cond('s', 'Contains', 'ELL'), { s: 'hello' })).to.equal(false);
      expect(matches(cond('s', 'Contains', ''), { s: 'hello' })).to.equal(true);
    });

    it('Contains tests element membership of Array, Set and Vector fields', () => {
      expect(matches(cond('tags', 'Contains', 'b'), { tags: ['a', 'b'] })).to.equal(true);
      expect(matches(cond('tags', 'Contains', 'c'), { tags: ['a', 'b'] })).to.equal(false);
      expect(matches(cond('tags', 'Contains', 'b'), { tags: { type: 'Set', value: ['a', 'b'] } })).to.equal(true);
      expect(matches(cond('v', 'Contains', 'b'), { v: { type: 'Vector', value: [1, 2] } })).to.equal(false);
      expect(matches(cond('tags', 'Contains', 'bc'), { tags: ['abcd'] })).to.equal(false);
    });

    it('Contains is false for other kinds and missing fields', () => {
      expect(matches(cond('n', 'Contains', '1'), { n: 123 })).to.equal(false);
      expect(matches(cond('n', 'Contains', 'a'), {})).to.equal(false);
      expect(matches(cond('o', 'Contains', 'a'), { o: { a: 1 } })).to.equal(false);
    });

    it('StartsWith and EndsWith test string fields, case-sensitively', () => {
      expect(matches(cond('s', 'StartsWith', 'he'), { s: 'hello' })).to.equal(true);
      expect(matches(cond('s', 'StartsWith', 'He'), { s: 'hello' })).to.equal(false);
      expect(matches(cond('s', 'EndsWith', 'llo'), { s: 'hello' })).to.equal(true);
      expect(matches(cond('s', 'EndsWith', 'LLO'), { s: 'hello' })).to.equal(false);
    });

    it('StartsWith and EndsWith are false for non-strings and missing fields', () => {
      expect(matches(cond('a', 'StartsWith', 'a'), { a: ['abc'] })).to.equal(false);
      expect(matches(cond('a', 'EndsWith', '3'), { a: 123 })).to.equal(false);
      expect(matches(cond('a', 'StartsWith', 'a'), {})).to.equal(false);
    });
  });

  describe('Exists', () => {
    it('tests presence, counting a null field as present', () => {
      expect(matches(cond('x', 'Exists', true), { x: 1 })).to.equal(true);
      expect(matches(cond('x', 'Exists', true), { x: null })).to.equal(true);
      expect(matches(cond('x', 'Exists', true), {})).to.equal(false);
      expect(matches(cond('x', 'Exists', false), {})).to.equal(true);
      expect(matches(cond('x', 'Exists', false), { x: null })).to.equal(false);
    });

    it('works on nested paths', () => {
      expect(matches(cond('a.b', 'Exists', true), { a: { b: 0 } })).to.equal(true);
      expect(matches(cond('a.c', 'Exists', true), { a: { b: 0 } })).to.equal(false);
    });
  });

  describe('logical combinations', () => {
    const record = { age: 30, city: 'Oslo' };
    const isAdult = cond('age', 'Gte', 18);
    const inBergen = cond('city', 'Eq', 'Bergen');

    it('And requires every expression', () => {
      expect(
        matches({ type: 'Logical', content: { operator: 'And', expressions: [isAdult, inBergen] } }, record),
      ).to.equal(false);
      expect(matches({ and: [isAdult, cond('city', 'Eq', 'Oslo')] }, record)).to.equal(true);
    });

    it('Or requires any expression', () => {
      expect(
        matches({ type: 'Logical', content: { operator: 'Or', expressions: [isAdult, inBergen] } }, record),
      ).to.equal(true);
      expect(matches({ or: [inBergen, cond('age', 'Lt', 18)] }, record)).to.equal(false);
    });

    it('Not negates its expression', () => {
      expect(matches({ type: 'Logical', content: { operator: 'Not', expressions: [inBergen] } }, record)).to.equal(
        true,
      );
      expect(matches({ not: isAdult }, record)).to.equal(false);
    });

    it('evaluates nested combinations', () => {
      const f = { and: [isAdult, { or: [inBergen, { not: [cond('city', 'StartsWith', 'B')] }] }] };
      expect(matches(f, record)).to.equal(true);
      expect(matches(f, { age: 30, city: 'Bodø' })).to.equal(false);
    });
  });

  describe('compiled conditions', () => {
    const KEYS = ['age', 'name', 'toString', 'valueOf', 'hasOwnProperty', 'n'];
    const VALUES: unknown[] = [40, 40.5, '40', 'Ann', true, false, null, 0, -0, { type: 'Integer', value: 40 }];

    it('decide Eq and Ne on every field name exactly as the operator does', () => {
      for (const [i, body] of randomRecords(31, KEYS, VALUES, 400).entries()) {
        const fields = rec(body);
        for (const field of KEYS)
          for (const value of [40, 'Ann', true, 0]) {
            const filter = parseFilter(cond(field, i % 2 ? 'Eq' : 'Ne', value));
            if (filter.kind !== 'condition') throw new Error('not a condition');
            const actual = Object.hasOwn(fields, field) ? fields[field] : undefined;
            expect(matchFilter(filter, fields), `${field} ${JSON.stringify(body)}`).to.equal(
              testOperator(filter.op, actual, filter.value),
            );
          }
      }
    });
  });
});
