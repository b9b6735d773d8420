import { expect } from 'chai';
import { InvalidInput } from '../../../lib/errors.js';
import { parseFieldList, projectFields } from '../../../lib/engine/query/index.js';
import { fieldsFromWire, Tagged } from '../../../lib/engine/values/index.js';

const record = fieldsFromWire({
  id: 'r1',
  name: 'Ada',
  email: 'ada@example.com',
  address: { city: 'Oslo', zip: '0150', geo: { lat: 1, lon: 2 } },
  at: '2024-01-01T00:00:00Z',
});

describe('engine/query/project', () => {
  describe('parseFieldList', () => {
    it('returns undefined for null, undefined and empty lists', () => {
      expect(parseFieldList(null, 'select_fields')).to.equal(undefined);
      expect(parseFieldList(undefined, 'select_fields')).to.equal(undefined);
      expect(parseFieldList([], 'select_fields')).to.equal(undefined);
      expect(parseFieldList('', 'select_fields')).to.equal(undefined);
    });

    it('accepts an array of field names', () => {
      expect(parseFieldList(['a', 'b.c'], 'select_fields')).to.deep.equal(['a', 'b.c']);
    });

    it('accepts a comma-separated string, trimming blanks and dropping empty items', () => {
      expect(parseFieldList('a, b ,c,', 'exclude_fields')).to.deep.equal(['a', 'b', 'c']);
    });

    it('rejects other shapes naming the parameter', () => {
      expect(() => parseFieldList(5, 'select_fields')).to.throw(InvalidInput, /Invalid select_fields/);
      expect(() => parseFieldList({ a: 1 }, 'exclude_fields')).to.throw(InvalidInput, /Invalid exclude_fields/);
    });

    it('rejects non-string, empty and hostile names with their index', () => {
      expect(() => parseFieldList(['a', 1], 'select_fields')).to.throw(InvalidInput, /select_fields\[1\]/);
      expect(() => parseFieldList(['a', ''], 'select_fields')).to.throw(InvalidInput, /select_fields\[1\]/);
      expect(() => parseFieldList('a,__proto__', 'select_fields')).to.throw(InvalidInput, /Forbidden field name/);
    });
  });

  describe('projectFields', () => {
    it('returns a copy of every field without projection', () => {
      const out = projectFields(record);
      expect(out).to.deep.equal(record);
      expect(out).not.to.equal(record);
    });

    it('keeps only selected top-level fields plus id', () => {
      expect(projectFields(record, ['name'])).to.deep.equal({ id: 'r1', name: 'Ada' });
    });

    it('keeps id even when the select list omits it and includes it once when listed', () => {
      expect(Object.keys(projectFields(record, ['email', 'id']))).to.deep.equal(['id', 'email']);
    });

    it('keeps the whole top-level field for a dotted select path', () => {
      expect(projectFields(record, ['address.city'])).to.deep.equal({ id: 'r1', address: record.address });
    });

    it('ignores selected fields the record lacks', () => {
      expect(projectFields(record, ['nope', 'name'])).to.deep.equal({ id: 'r1', name: 'Ada' });
    });

    it('keeps field order of the record, not of the select list', () => {
      expect(Object.keys(projectFields(record, ['at', 'name']))).to.deep.equal(['id', 'name', 'at']);
    });

    it('keeps Tagged values as they are', () => {
      expect(projectFields(record, ['at']).at).to.be.instanceOf(Tagged);
    });

    it('removes excluded fields but never id', () => {
      expect(projectFields(record, undefined, ['email', 'at', 'id'])).to.deep.equal({
        id: 'r1',
        name: 'Ada',
        address: record.address,
      });
    });

    it('removes one nested key for a dotted exclude path without touching the stored object', () => {
      const out = projectFields(record, undefined, ['address.geo.lat', 'address.zip']);
      expect(out.address).to.deep.equal({ city: 'Oslo', geo: { lon: 2 } });
      expect(record.address).to.deep.equal({ city: 'Oslo', zip: '0150', geo: { lat: 1, lon: 2 } });
    });

    it('ignores excluded paths that do not exist', () => {
      const out = projectFields(record, undefined, ['nope', 'address.nope.x', 'name.x']);
      expect(out).to.deep.equal(record);
      expect(out.address).to.equal(record.address);
    });

    it('applies select then exclude', () => {
      expect(projectFields(record, ['name', 'email'], ['email'])).to.deep.equal({ id: 'r1', name: 'Ada' });
    });

    it('never modifies the input record', () => {
      const before = JSON.stringify(record);
      projectFields(record, ['name'], ['name']);
      projectFields(record, undefined, ['email', 'address.city']);
      expect(JSON.stringify(record)).to.equal(before);
    });
  });
});
