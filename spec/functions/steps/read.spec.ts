import { expect } from 'chai';
import { StepFailed } from '../../../lib/errors.js';
import { FunctionHarness, rejection } from '../../helpers/function-harness.js';

const eq = (field: string, value: unknown) => ({ type: 'Condition', content: { field, operator: 'Eq', value } });

const DOCS = [
  {
    id: 'd1',
    title: 'Running shoes for marathon training',
    category: 'sport',
    embedding: { type: 'Vector', value: [1, 0, 0, 0] },
  },
  { id: 'd2', title: 'Cooking pasta at home', category: 'food', embedding: [0, 1, 0, 0] },
  { id: 'd3', title: 'Trail runs in the mountains', category: 'sport', embedding: [0.9, 0.1, 0, 0] },
  { id: 'd4', title: 'Marathon nutrition and marathon food', category: 'food', embedding: [0.5, 0.5, 0, 0] },
];

describe('functions: read steps', () => {
  let h: FunctionHarness;
  beforeEach(async () => {
    h = await FunctionHarness.open();
    const s = h.db.session(undefined);
    for (let i = 1; i <= 6; i++)
      await s.insert('items', { id: `i${i}`, n: i, kind: i % 2 === 0 ? 'even' : 'odd', meta: { rank: 7 - i } });
  });
  afterEach(async () => {
    await h.close();
  });

  const ids = (records: Array<Record<string, unknown>>) => records.map((r) => r.id);
  const saveError = (steps: unknown[], parameters: Record<string, unknown> = {}) => {
    try {
      h.define({ label: `bad_${Math.random()}`, parameters, functions: steps });
    } catch (err) {
      expect((err as { status?: number }).status).to.equal(400);
      return (err as Error).message;
    }
    throw new Error('expected a save-time error');
  };

  describe('Query', () => {
    it('filters, sorts, skips and limits', async () => {
      const r = await h.run([
        {
          type: 'Query',
          collection: 'items',
          filter: eq('kind', 'even'),
          sort: [{ field: 'n', ascending: false }],
          skip: 1,
          limit: 1,
        },
      ]);
      expect(ids(r.records)).to.deep.equal(['i4']);
    });

    it('takes limit and skip from "{{param}}" strings, filter values from placeholders and Parameter refs', async () => {
      const r = await h.run(
        [
          {
            type: 'Query',
            collection: 'items',
            filter: {
              type: 'Logical',
              content: {
                operator: 'And',
                expressions: [
                  eq('kind', '{{kind}}'),
                  {
                    type: 'Condition',
                    content: { field: 'n', operator: 'Gt', value: { type: 'Parameter', name: 'min' } },
                  },
                ],
              },
            },
            sort: [{ field: 'n', ascending: true }],
            limit: '{{page}}',
            skip: '{{from}}',
          },
        ],
        { kind: 'odd', min: 1, page: 1, from: 0 },
      );
      expect(ids(r.records)).to.deep.equal(['i3']);
    });

    it("accepts Go's offset for skip, the flat filter forms, dotted paths and projections", async () => {
      const r = await h.run([
        {
          type: 'Query',
          collection: 'items',
          filter: { or: [{ field: 'meta.rank', operator: 'Lte', value: 2 }] },
          sort: [{ field: 'n', ascending: true }],
          offset: 1,
          select_fields: ['n'],
        },
      ]);
      expect(r.records).to.deep.equal([{ id: 'i6', n: 6 }]);
    });

    it('reads everything without a filter, and nothing from an absent collection', async () => {
      expect((await h.run([{ type: 'Query', collection: 'items' }])).records).to.have.length(6);
      expect((await h.run([{ type: 'Query', collection: 'nowhere', filter: eq('a', 1) }])).records).to.deep.equal([]);
    });

    it('refuses a bad filter, sort, limit or missing collection at save, naming the path', () => {
      expect(
        saveError([
          {
            type: 'Query',
            collection: 'c',
            filter: { type: 'Condition', content: { field: 'a', operator: 'Like', value: 1 } },
          },
        ]),
      ).to.match(/^functions\[0\]\.filter: .*Like/);
      expect(
        saveError(
          [
            { type: 'FindAll', collection: 'c' },
            {
              type: 'Query',
              collection: 'c',
              filter: { type: 'Condition', content: { field: 'a', operator: 'Bogus', value: '{{x}}' } },
            },
          ],
          { x: {} },
        ),
      ).to.match(/^functions\[1\]\.filter: .*Bogus/);
      expect(
        saveError([
          {
            type: 'Query',
            collection: 'c',
            filter: { type: 'Logical', content: { operator: 'And', expressions: [] } },
          },
        ]),
      ).to.match(/^functions\[0\]\.filter: /);
      expect(saveError([{ type: 'Query', collection: 'c', sort: [{ field: 'a', ascending: 'yes' }] }])).to.match(
        /^functions\[0\]\.sort: /,
      );
      expect(saveError([{ type: 'Query', collection: 'c', limit: -1 }])).to.match(
        /^functions\[0\]\.limit: expected a non-negative integer/,
      );
      expect(saveError([{ type: 'Query', collection: 'c', skip: 'ten' }])).to.match(/^functions\[0\]\.skip: /);
      expect(saveError([{ type: 'Query', filter: eq('a', 1) }])).to.match(
        /^functions\[0\]: missing required member 'collection'/,
      );
      expect(saveError([{ type: 'Query', collection: 'no such/name' }])).to.match(/^functions\[0\]\.collection: /);
      expect(saveError([{ type: 'FindById', collection: '', record_id: 'x' }])).to.match(
        /^functions\[0\]\.collection: /,
      );
      expect(saveError([{ type: 'Query', collection: 'c', filter: eq('__proto__', 1) }])).to.match(
        /^functions\[0\]\.filter/,
      );
      expect(saveError([{ type: 'Query', collection: 'c', filter: eq('a', '{{constructor}}') }])).to.match(
        /^functions\[0\]\.filter.*constructor/,
      );
    });

    it('fails the call (400, with the step) when a placeholder resolves to a bad limit or operand', async () => {
      const err = await rejection(h.run([{ type: 'Query', collection: 'items', limit: '{{n}}' }], { n: 'many' }));
      expect(err).to.be.instanceOf(StepFailed);
      expect(err).to.include({ status: 400, index: 0, type: 'Query' });
      expect(err.message).to.match(/limit/);
      const operand = await rejection(
        h.run(
          [
            {
              type: 'Query',
              collection: 'items',
              filter: { type: 'Condition', content: { field: 'n', operator: 'In', value: '{{v}}' } },
            },
          ],
          { v: 3 },
        ),
      );
      expect(operand).to.include({ status: 400, type: 'Query' });
    });

    it('sees the writes staged earlier in a transactional function', async () => {
      const r = await h.run(
        [
          { type: 'Insert', collection: 'items', record: { id: 'i7', n: 7, kind: 'odd' } },
          { type: 'Query', collection: 'items', filter: eq('n', 7) },
        ],
        {},
        { transaction_config: { enabled: true, auto_rollback: true } },
      );
      expect(ids(r.records)).to.deep.equal(['i7']);
    });
  });

  describe('FindById', () => {
    it('reads one record by id from a placeholder, and none for an unknown id', async () => {
      expect(
        ids((await h.run([{ type: 'FindById', collection: 'items', record_id: '{{id}}' }], { id: 'i2' })).records),
      ).to.deep.equal(['i2']);
      expect((await h.run([{ type: 'FindById', collection: 'items', record_id: 'zzz' }])).records).to.deep.equal([]);
    });

    it('reads an id from the previous working record', async () => {
      const r = await h.run([
        { type: 'Insert', collection: 'links', record: { target: 'i5' } },
        { type: 'FindById', collection: 'items', record_id: '{{target}}' },
      ]);
      expect(r.records[0]).to.include({ id: 'i5', n: 5 });
    });

    it('requires collection and record_id at save', () => {
      expect(saveError([{ type: 'FindById', collection: 'items' }])).to.equal(
        "functions[0]: missing required member 'record_id'",
      );
      expect(saveError([{ type: 'FindById', record_id: 'x' }])).to.equal(
        "functions[0]: missing required member 'collection'",
      );
    });

    it('sees a record inserted earlier in the same transaction', async () => {
      const r = await h.run(
        [
          { type: 'Insert', collection: 'items', record: { id: 'fresh', n: 0 } },
          { type: 'FindById', collection: 'items', record_id: 'fresh' },
        ],
        {},
        { transaction_config: { enabled: true, auto_rollback: false } },
      );
      expect(ids(r.records)).to.deep.equal(['fresh']);
    });
  });

  describe('FindOne', () => {
    it('finds the first record with key == value, dotted keys and typed values included', async () => {
      expect(
        ids((await h.run([{ type: 'FindOne', collection: 'items', key: 'kind', value: 'even' }])).records),
      ).to.deep.equal(['i2']);
      expect(
        ids(
          (await h.run([{ type: 'FindOne', collection: 'items', key: 'meta.rank', value: '{{rank}}' }], { rank: 1 }))
            .records,
        ),
      ).to.deep.equal(['i6']);
      expect(
        ids(
          (await h.run([{ type: 'FindOne', collection: 'items', key: 'n', value: { type: 'Integer', value: 3 } }]))
            .records,
        ),
      ).to.deep.equal(['i3']);
      expect(
        (await h.run([{ type: 'FindOne', collection: 'items', key: 'kind', value: 'none' }])).records,
      ).to.deep.equal([]);
      expect(
        ids((await h.run([{ type: 'FindOne', collection: 'items', key: '{{k}}', value: 4 }], { k: 'n' })).records),
      ).to.deep.equal(['i4']);
    });

    it('refuses a missing value, a bad key or a hostile key at save', () => {
      expect(saveError([{ type: 'FindOne', collection: 'items', key: 'n' }])).to.equal(
        "functions[0]: missing required member 'value'",
      );
      expect(saveError([{ type: 'FindOne', collection: 'items', key: 'a..b', value: 1 }])).to.match(
        /^functions\[0\]\.key: /,
      );
      expect(saveError([{ type: 'FindOne', collection: 'items', key: '__proto__', value: 1 }])).to.match(
        /^functions\[0\]\.key: /,
      );
    });
  });

  describe('search steps', () => {
    beforeEach(async () => {
      const s = h.db.session(undefined);
      for (const d of DOCS) await s.insert('docs', d);
    });

    it('TextSearch ranks text matches with fields, limit and fuzzy, adding _score', async () => {
      const r = await h.run([{ type: 'TextSearch', collection: 'docs', query_text: '{{q}}', limit: 2 }], {
        q: 'marathon',
      });
      expect(ids(r.records)).to.deep.equal(['d4', 'd1']);
      expect(r.records[0]!._score).to.be.a('number').greaterThan(0);
      const fuzzy = await h.run([
        { type: 'TextSearch', collection: 'docs', query_text: 'marathn', fuzzy: true, fields: ['title'] },
      ]);
      expect(ids(fuzzy.records)).to.include('d1');
      expect((await h.run([{ type: 'TextSearch', collection: 'docs', query_text: 'marathn' }])).records).to.deep.equal(
        [],
      );
    });

    it('VectorSearch finds nearest neighbours with limit and threshold, from a Vector parameter too', async () => {
      const r = await h.run([{ type: 'VectorSearch', collection: 'docs', query_vector: [1, 0, 0, 0], limit: 2 }]);
      expect(ids(r.records)).to.deep.equal(['d1', 'd3']);
      expect(r.records[0]!._score).to.be.closeTo(1, 1e-6);
      const th = await h.run(
        [{ type: 'VectorSearch', collection: 'docs', query_vector: { type: 'Parameter', name: 'v' }, threshold: 0.9 }],
        { v: { type: 'Vector', value: [1, 0, 0, 0] } },
      );
      expect(ids(th.records)).to.deep.equal(['d1', 'd3']);
    });

    it("VectorSearch in Rust's form: {query_vector, options} with the collection and limit in options", async () => {
      const r = await h.run([
        { type: 'VectorSearch', query_vector: [0, 1, 0, 0], options: { collection: 'docs', limit: 1, threshold: 0.1 } },
      ]);
      expect(ids(r.records)).to.deep.equal(['d2']);
    });

    it('HybridSearch blends text and vector, in the TS, Go and Rust spellings', async () => {
      const ts = await h.run([
        { type: 'HybridSearch', collection: 'docs', query_text: 'marathon', query_vector: [1, 0, 0, 0], limit: 1 },
      ]);
      expect(ids(ts.records)).to.deep.equal(['d1']);
      const go = await h.run([
        { type: 'HybridSearch', collection: 'docs', query_text: 'pasta', query_vector: null, limit: 3 },
      ]);
      expect(ids(go.records)).to.deep.equal(['d2']);
      const rs = await h.run([
        {
          type: 'HybridSearch',
          text_query: 'marathon',
          vector_query: [1, 0, 0, 0],
          options: { collection: 'docs', limit: 1 },
        },
      ]);
      expect(ids(rs.records)).to.deep.equal(['d1']);
    });

    it('searches the writes staged in a transactional function', async () => {
      const r = await h.run(
        [
          {
            type: 'Insert',
            collection: 'docs',
            record: { id: 'd5', title: 'Zebra crossing', embedding: [0, 0, 1, 0] },
          },
          { type: 'TextSearch', collection: 'docs', query_text: 'zebra' },
        ],
        {},
        { transaction_config: { enabled: true, auto_rollback: true } },
      );
      expect(ids(r.records)).to.deep.equal(['d5']);
    });

    it('refuses bad members at save naming the path, a search with no collection included', () => {
      expect(saveError([{ type: 'TextSearch', collection: 'docs' }])).to.equal(
        "functions[0]: missing required member 'query_text'",
      );
      expect(saveError([{ type: 'TextSearch', collection: 'docs', query_text: 'x', limit: 0 }])).to.match(
        /^functions\[0\]: 'limit' must be/,
      );
      expect(saveError([{ type: 'TextSearch', collection: 'docs', query_text: 'x', fuzzy: 'yes' }])).to.match(
        /^functions\[0\]: 'fuzzy' must be a boolean/,
      );
      expect(saveError([{ type: 'VectorSearch', collection: 'docs', query_vector: ['a'] }])).to.match(
        /^functions\[0\]: 'vector' must be/,
      );
      expect(saveError([{ type: 'VectorSearch', query_vector: [1] }])).to.match(
        /^functions\[0\]: missing required member 'collection'/,
      );
      expect(saveError([{ type: 'VectorSearch', query_vector: [1], options: { collection: 'a b' } }])).to.match(
        /^functions\[0\]\.options\.collection: /,
      );
      expect(saveError([{ type: 'HybridSearch', text_query: 'x', options: 'docs' }])).to.match(
        /^functions\[0\]\.options: must be an object/,
      );
      expect(
        saveError([{ type: 'VectorSearch', collection: 'docs', query_vector: '{{v}}', limit: 'ten' }], { v: {} }),
      ).to.match(/^functions\[0\]: 'limit' must be/);
    });

    it('fails the call when a placeholder resolves to something that is not a vector', async () => {
      const err = await rejection(
        h.run([{ type: 'VectorSearch', collection: 'docs', query_vector: '{{v}}' }], { v: 'nope' }),
      );
      expect(err).to.include({ status: 400, type: 'VectorSearch', index: 0 });
    });
  });
});

describe('functions: FindAll', () => {
  let h: FunctionHarness;
  beforeEach(async () => {
    h = await FunctionHarness.open();
  });
  afterEach(async () => {
    await h.close();
  });

  it('FindAll makes every record of the collection the working records (none for a missing collection)', async () => {
    expect((await h.run([{ type: 'FindAll', collection: 'nothing_here' }])).records).to.deep.equal([]);
    await h.db.session(undefined).insert('items', { n: 1 });
    await h.db.session(undefined).insert('items', { n: 2 });
    const r = await h.run([{ type: 'FindAll', collection: '{{c}}' }], { c: 'items' });
    expect(r.records.map((x) => x.n).sort()).to.deep.equal([1, 2]);
  });

  it('FindAll needs a collection at save', () => {
    expect(() => h.define({ label: 'b', functions: [{ type: 'FindAll' }] })).to.throw(
      "functions[0]: missing required member 'collection'",
    );
  });
});
