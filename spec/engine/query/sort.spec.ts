import { expect } from 'chai';
import { InvalidInput } from '../../../lib/errors.js';
import { parseSort, sortRecords } from '../../../lib/engine/query/index.js';
import { fieldsFromWire, type Fields } from '../../../lib/engine/values/index.js';

const recs = (...bodies: Record<string, unknown>[]): Fields[] => bodies.map((b) => fieldsFromWire(b));
const ids = (records: Fields[]): unknown[] => records.map((r) => r.id);

describe('engine/query/sort', () => {
  describe('parseSort', () => {
    it('returns no keys for null or absent sort', () => {
      expect(parseSort(null)).to.deep.equal([]);
      expect(parseSort(undefined)).to.deep.equal([]);
      expect(parseSort([])).to.deep.equal([]);
    });

    it('parses {field, ascending} entries in priority order', () => {
      expect(
        parseSort([
          { field: 'a', ascending: false },
          { field: 'b.c', ascending: true },
        ]),
      ).to.deep.equal([
        { field: 'a', ascending: false },
        { field: 'b.c', ascending: true },
      ]);
    });

    it('defaults ascending to true when absent or null', () => {
      expect(parseSort([{ field: 'a' }, { field: 'b', ascending: null }])).to.deep.equal([
        { field: 'a', ascending: true },
        { field: 'b', ascending: true },
      ]);
    });

    it('accepts order "asc" and "desc" in any case', () => {
      expect(
        parseSort([
          { field: 'a', order: 'desc' },
          { field: 'b', order: 'ASC' },
        ]),
      ).to.deep.equal([
        { field: 'a', ascending: false },
        { field: 'b', ascending: true },
      ]);
    });

    it('accepts ascending and order together when they agree and rejects them when they conflict', () => {
      expect(parseSort([{ field: 'a', ascending: false, order: 'desc' }])).to.deep.equal([
        { field: 'a', ascending: false },
      ]);
      expect(() => parseSort([{ field: 'a', ascending: true, order: 'desc' }])).to.throw(InvalidInput, /Conflicting/);
    });

    it('rejects a non-array sort', () => {
      expect(() => parseSort({ field: 'a' })).to.throw(InvalidInput, /expected an array/);
      expect(() => parseSort('a')).to.throw(InvalidInput, /expected an array/);
    });

    it('rejects bad entries with their index', () => {
      expect(() => parseSort(['a'])).to.throw(InvalidInput, /sort\[0\]/);
      expect(() => parseSort([{ field: 'a' }, { ascending: true }])).to.throw(InvalidInput, /sort\[1\]/);
      expect(() => parseSort([{ field: 'a', ascending: 'yes' }])).to.throw(InvalidInput, /ascending/);
      expect(() => parseSort([{ field: 'a', order: 'up' }])).to.throw(InvalidInput, /'up'.*'asc' or 'desc'/);
      expect(() => parseSort([{ field: 'a', direction: 1 }])).to.throw(InvalidInput, /Unknown key 'direction'/);
    });

    it('rejects hostile field names', () => {
      expect(() => parseSort([{ field: 'a.__proto__' }])).to.throw(InvalidInput, /Forbidden field name/);
    });
  });

  describe('sortRecords', () => {
    it('sorts ascending and descending by one key', () => {
      const input = recs({ id: 'a', n: 2 }, { id: 'b', n: 3 }, { id: 'c', n: 1 });
      expect(ids(sortRecords(input, [{ field: 'n', ascending: true }]))).to.deep.equal(['c', 'a', 'b']);
      expect(ids(sortRecords(input, [{ field: 'n', ascending: false }]))).to.deep.equal(['b', 'a', 'c']);
    });

    it('uses later keys to break ties of earlier ones', () => {
      const input = recs(
        { id: 'a', g: 'x', n: 2 },
        { id: 'b', g: 'y', n: 1 },
        { id: 'c', g: 'x', n: 1 },
        { id: 'd', g: 'y', n: 2 },
      );
      const out = sortRecords(input, [
        { field: 'g', ascending: false },
        { field: 'n', ascending: true },
      ]);
      expect(ids(out)).to.deep.equal(['b', 'd', 'c', 'a']);
    });

    it('is stable for records that compare equal, in both directions', () => {
      const input = recs({ id: '1', n: 1 }, { id: '2', n: 0 }, { id: '3', n: 1 }, { id: '4', n: 0 }, { id: '5', n: 1 });
      expect(ids(sortRecords(input, [{ field: 'n', ascending: true }]))).to.deep.equal(['2', '4', '1', '3', '5']);
      expect(ids(sortRecords(input, [{ field: 'n', ascending: false }]))).to.deep.equal(['1', '3', '5', '2', '4']);
    });

    it('puts missing and null values first ascending and last descending, keeping their order', () => {
      const input = recs({ id: 'a', n: 2 }, { id: 'b' }, { id: 'c', n: 1 }, { id: 'd', n: null });
      expect(ids(sortRecords(input, [{ field: 'n', ascending: true }]))).to.deep.equal(['b', 'd', 'c', 'a']);
      expect(ids(sortRecords(input, [{ field: 'n', ascending: false }]))).to.deep.equal(['a', 'c', 'b', 'd']);
    });

    it('orders numbers across Integer, Float and Decimal', () => {
      const input = recs(
        { id: 'dec', n: { type: 'Decimal', value: '2.5' } },
        { id: 'int', n: 3 },
        { id: 'flt', n: { type: 'Float', value: 1 } },
      );
      expect(ids(sortRecords(input, [{ field: 'n', ascending: true }]))).to.deep.equal(['flt', 'dec', 'int']);
    });

    it('orders DateTimes by instant rather than by text', () => {
      const input = recs({ id: 'late', at: '2024-01-01T10:00:00-05:00' }, { id: 'early', at: '2024-01-01T12:00:00Z' });
      expect(ids(sortRecords(input, [{ field: 'at', ascending: true }]))).to.deep.equal(['early', 'late']);
    });

    it('orders mixed kinds by kind without throwing', () => {
      const input = recs({ id: 's', v: 'x' }, { id: 'n', v: 1 }, { id: 'b', v: true }, { id: 'z' });
      expect(ids(sortRecords(input, [{ field: 'v', ascending: true }]))).to.deep.equal(['z', 'b', 'n', 's']);
    });

    it('sorts by nested paths and by id', () => {
      const input = recs({ id: 'b', a: { n: 1 } }, { id: 'a', a: { n: 2 } });
      expect(ids(sortRecords(input, [{ field: 'a.n', ascending: false }]))).to.deep.equal(['a', 'b']);
      expect(ids(sortRecords(input, [{ field: 'id', ascending: true }]))).to.deep.equal(['a', 'b']);
    });

    it('returns a new array and leaves the input untouched', () => {
      const input = recs({ id: 'b', n: 2 }, { id: 'a', n: 1 });
      const out = sortRecords(input, [{ field: 'n', ascending: true }]);
      expect(out).not.to.equal(input);
      expect(ids(input)).to.deep.equal(['b', 'a']);
      const copy = sortRecords(input, []);
      expect(copy).not.to.equal(input);
      expect(ids(copy)).to.deep.equal(['b', 'a']);
    });
  });
});
