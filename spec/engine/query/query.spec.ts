import { expect } from 'chai';
import { InvalidInput } from '../../../lib/errors.js';
import { parseQuery, QUERY_KEYS, runQuery } from '../../../lib/engine/query/index.js';
import { fieldsFromWire, type Fields } from '../../../lib/engine/values/index.js';

const cond = (field: string, operator: string, value: unknown) => ({
  type: 'Condition',
  content: { field, operator, value },
});
const ids = (records: Fields[]): unknown[] => records.map((r) => r.id);

describe('engine/query/query', () => {
  describe('parseQuery', () => {
    it('parses an empty body as the match-all query', () => {
      const q = parseQuery({});
      expect(q).to.deep.equal({ sort: [], skip: 0, bypassCache: false, bypassRipple: false });
      expect(q.filter).to.equal(undefined);
      expect(q.limit).to.equal(undefined);
    });

    it('parses every documented member', () => {
      const q = parseQuery({
        filter: cond('age', 'Gte', 18),
        sort: [{ field: 'age', ascending: false }],
        limit: 10,
        skip: 20,
        select_fields: ['name'],
        exclude_fields: 'email,phone',
        join: { collections: ['users'], local_field: 'user_id', foreign_field: 'id', as_field: 'user' },
        bypass_cache: true,
        bypass_ripple: false,
        transaction_id: 'tx-1',
      });
      expect(q.filter).to.deep.equal({ kind: 'condition', field: 'age', op: 'Gte', value: 18 });
      expect(q.sort).to.deep.equal([{ field: 'age', ascending: false }]);
      expect(q.limit).to.equal(10);
      expect(q.skip).to.equal(20);
      expect(q.selectFields).to.deep.equal(['name']);
      expect(q.excludeFields).to.deep.equal(['email', 'phone']);
      expect(q.join).to.deep.equal({
        collections: ['users'],
        localField: 'user_id',
        foreignField: 'id',
        asField: 'user',
      });
      expect(q.bypassCache).to.equal(true);
      expect(q.bypassRipple).to.equal(false);
      expect(q.transactionId).to.equal('tx-1');
    });

    it('treats null members as absent, as Rust sends them', () => {
      const body = Object.fromEntries(QUERY_KEYS.map((k) => [k, null]));
      expect(parseQuery(body)).to.deep.equal(parseQuery({}));
    });

    it('accepts offset as an alias of skip', () => {
      expect(parseQuery({ offset: 5 }).skip).to.equal(5);
      expect(parseQuery({ offset: 5, skip: 5 }).skip).to.equal(5);
      expect(parseQuery({ offset: null, skip: 3 }).skip).to.equal(3);
    });

    it('rejects conflicting skip and offset', () => {
      expect(() => parseQuery({ offset: 5, skip: 6 })).to.throw(InvalidInput, /Conflicting skip/);
    });

    it('accepts zero and bigint counts', () => {
      expect(parseQuery({ limit: 0 }).limit).to.equal(0);
      expect(parseQuery({ limit: 3n }).limit).to.equal(3);
    });

    it('rejects a limit beyond 2^53, quoting its exact digits', () => {
      expect(() => parseQuery({ limit: 2n ** 63n - 1n })).to.throw(
        InvalidInput,
        'Invalid limit: expected a non-negative integer, got 9223372036854775807',
      );
    });

    it('rejects negative, fractional and non-numeric limit and skip', () => {
      for (const bad of [-1, 1.5, '10', true, Number.NaN, Infinity]) {
        expect(() => parseQuery({ limit: bad }), String(bad)).to.throw(
          InvalidInput,
          /Invalid limit: expected a non-negative integer/,
        );
        expect(() => parseQuery({ skip: bad }), String(bad)).to.throw(InvalidInput, /Invalid skip/);
      }
      expect(() => parseQuery({ offset: -2 })).to.throw(InvalidInput, /Invalid offset/);
    });

    it('rejects a non-object body', () => {
      for (const bad of [null, undefined, [], 'x', 3])
        expect(() => parseQuery(bad)).to.throw(InvalidInput, /expected a JSON object/);
    });

    it('rejects unknown top-level keys and lists the allowed ones', () => {
      expect(() => parseQuery({ where: {} })).to.throw(
        InvalidInput,
        /Unknown key 'where'.*allowed keys are filter, sort, limit, skip, offset/,
      );
    });

    it('rejects a bad filter, sort or field list through their parsers', () => {
      expect(() => parseQuery({ filter: cond('a', 'Regex', 'x') })).to.throw(
        InvalidInput,
        /Unknown operator 'Regex' in filter/,
      );
      expect(() => parseQuery({ filter: 'a=1' })).to.throw(InvalidInput, /filter/);
      expect(() => parseQuery({ sort: 'a' })).to.throw(InvalidInput, /sort/);
      expect(() => parseQuery({ select_fields: 1 })).to.throw(InvalidInput, /select_fields/);
      expect(() => parseQuery({ exclude_fields: ['__proto__'] })).to.throw(InvalidInput, /Forbidden/);
    });

    it('rejects non-boolean bypass flags and a non-string transaction id', () => {
      expect(() => parseQuery({ bypass_cache: 'yes' })).to.throw(InvalidInput, /bypass_cache/);
      expect(() => parseQuery({ bypass_ripple: 1 })).to.throw(InvalidInput, /bypass_ripple/);
      expect(() => parseQuery({ transaction_id: 5 })).to.throw(InvalidInput, /transaction_id/);
      expect(() => parseQuery({ transaction_id: '' })).to.throw(InvalidInput, /transaction_id/);
    });

    describe('join', () => {
      const join = { collections: ['a', 'b'], local_field: 'x', foreign_field: 'y.z', as_field: 'out' };

      it('accepts several collections or a single name as a string', () => {
        expect(parseQuery({ join }).join!.collections).to.deep.equal(['a', 'b']);
        expect(parseQuery({ join: { ...join, collections: 'a' } }).join!.collections).to.deep.equal(['a']);
      });

      it('rejects empty or non-string collection names', () => {
        expect(() => parseQuery({ join: { ...join, collections: [] } })).to.throw(InvalidInput, /join\.collections/);
        expect(() => parseQuery({ join: { ...join, collections: [''] } })).to.throw(
          InvalidInput,
          /join\.collections\[0\]/,
        );
        expect(() => parseQuery({ join: { ...join, collections: ['a', 3] } })).to.throw(
          InvalidInput,
          /join\.collections\[1\]/,
        );
        expect(() => parseQuery({ join: { ...join, collections: null } })).to.throw(InvalidInput, /join\.collections/);
      });

      it('rejects missing or non-string field names', () => {
        for (const key of ['local_field', 'foreign_field', 'as_field']) {
          expect(() => parseQuery({ join: { ...join, [key]: undefined } }), key).to.throw(
            InvalidInput,
            new RegExp(`join\\.${key}`),
          );
          expect(() => parseQuery({ join: { ...join, [key]: 7 } }), key).to.throw(
            InvalidInput,
            new RegExp(`join\\.${key}`),
          );
        }
      });

      it('rejects an as_field that would replace the record id', () => {
        expect(() => parseQuery({ join: { ...join, as_field: 'id' } })).to.throw(InvalidInput, /as_field 'id'/);
      });

      it('rejects a non-object join and unknown join keys', () => {
        expect(() => parseQuery({ join: ['a'] })).to.throw(InvalidInput, /Invalid join/);
        expect(() => parseQuery({ join: { ...join, on: 'x' } })).to.throw(InvalidInput, /Unknown key 'on' in join/);
      });
    });
  });

  describe('runQuery', () => {
    const records = [
      { id: 'a', n: 3, g: 'x' },
      { id: 'b', n: 1, g: 'y' },
      { id: 'c', n: 4, g: 'x' },
      { id: 'd', n: 1, g: 'x' },
      { id: 'e', n: 5, g: 'y' },
    ].map((r) => fieldsFromWire(r));
    const inX = parseQuery({ filter: cond('g', 'Eq', 'x') }).filter!;
    const byN = parseQuery({ sort: [{ field: 'n' }] }).sort;

    it('returns every record in iteration order for an empty query', () => {
      expect(ids(runQuery(records))).to.deep.equal(['a', 'b', 'c', 'd', 'e']);
      expect(ids(runQuery(records, parseQuery({})))).to.deep.equal(['a', 'b', 'c', 'd', 'e']);
    });

    it('filters', () => {
      expect(ids(runQuery(records, { filter: inX }))).to.deep.equal(['a', 'c', 'd']);
    });

    it('sorts stably after filtering', () => {
      expect(ids(runQuery(records, { sort: byN }))).to.deep.equal(['b', 'd', 'a', 'c', 'e']);
      expect(ids(runQuery(records, { filter: inX, sort: byN }))).to.deep.equal(['d', 'a', 'c']);
    });

    it('skips then limits, after sorting', () => {
      expect(ids(runQuery(records, { sort: byN, skip: 1, limit: 2 }))).to.deep.equal(['d', 'a']);
      expect(ids(runQuery(records, { sort: byN, skip: 4 }))).to.deep.equal(['e']);
      expect(ids(runQuery(records, { sort: byN, skip: 9 }))).to.deep.equal([]);
    });

    it('skips then limits matches without sorting', () => {
      expect(ids(runQuery(records, { filter: inX, skip: 1, limit: 1 }))).to.deep.equal(['c']);
      expect(ids(runQuery(records, { limit: 2 }))).to.deep.equal(['a', 'b']);
    });

    it('returns nothing for limit 0', () => {
      expect(runQuery(records, { limit: 0 })).to.deep.equal([]);
      expect(runQuery(records, { sort: byN, limit: 0 })).to.deep.equal([]);
    });

    it('stops iterating once skip+limit matches are found when unsorted', () => {
      let pulled = 0;
      function* source(): Generator<Fields> {
        for (const r of records) {
          pulled++;
          yield r;
        }
      }
      expect(ids(runQuery(source(), { filter: inX, skip: 1, limit: 1 }))).to.deep.equal(['c']);
      expect(pulled).to.equal(3);
    });

    it('returns the stored field objects without projecting them', () => {
      const out = runQuery(records, { limit: 1 });
      expect(out[0]).to.equal(records[0]);
    });
  });
});
