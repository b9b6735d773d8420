import { expect } from 'chai';
import { Tagged } from '../../../lib/engine/index.js';
import { StepFailed } from '../../../lib/errors.js';
import { FunctionHarness, rejection } from '../../helpers/function-harness.js';

const eq = (field: string, value: unknown) => ({ type: 'Condition', content: { field, operator: 'Eq', value } });
const param = (name: string) => ({ type: 'Parameter', name });

describe('functions: write steps', () => {
  let h: FunctionHarness;
  beforeEach(async () => {
    h = await FunctionHarness.open();
  });
  afterEach(async () => {
    await h.close();
  });

  const seed = (c: string, records: Record<string, unknown>[]) => h.db.session(undefined).insertAll(c, records);
  const saveFails = (steps: unknown[], message: string, parameters: Record<string, unknown> = {}) =>
    expect(() => h.define({ label: `bad_${Math.random()}`, parameters, functions: steps })).to.throw(message);
  const stepFails = async (p: Promise<unknown>, index: number, type: string, pattern: RegExp, status = 400) => {
    const err = await rejection(p);
    expect(err).to.be.instanceOf(StepFailed);
    expect(err).to.include({ index, type, status });
    expect(err.message).to.match(pattern);
  };

  describe('BatchInsert', () => {
    it('inserts items with placeholders and Parameter references, all in one statement', async () => {
      const seq = h.db.state.seq;
      const result = await h.run(
        [
          {
            type: 'BatchInsert',
            collection: 'people',
            bypass_ripple: false,
            records: [{ name: '{{first}}', n: 1 }, param('second'), { name: 'Cy', born: param('when') }],
          },
        ],
        { first: 'Ann', second: { name: 'Bob', n: 2 }, when: { type: 'DateTime', value: '2020-01-02T03:04:05Z' } },
      );
      expect(result.records.map((r) => r.name)).to.deep.equal(['Ann', 'Bob', 'Cy']);
      expect(result.records[2]!.born).to.be.instanceOf(Tagged);
      expect(h.records('people')).to.have.length(3);
      expect(h.db.state.seq).to.equal(seq + 1);
    });

    it('takes the whole list from a placeholder', async () => {
      const result = await h.run([{ type: 'BatchInsert', collection: 'c', records: '{{rows}}' }], { rows: [{ a: 1 }] });
      expect(result.records[0]).to.include({ a: 1 });
    });

    it('takes the whole list from a Parameter reference and gives each record the ttl', async () => {
      const result = await h.run([{ type: 'BatchInsert', collection: 'c', records: param('rows'), ttl: 3600 }], {
        rows: [{ a: 1 }, { a: 2 }],
      });
      expect(result.records.every((r) => typeof r.ttl === 'string')).to.equal(true);
    });

    it('inserts nothing when one record fails', async () => {
      await seed('c', [{ id: 'taken' }]);
      await stepFails(
        h.run([{ type: 'BatchInsert', collection: 'c', records: [{ id: 'new' }, { id: 'taken' }] }]),
        0,
        'BatchInsert',
        /already exists/,
        409,
      );
      expect(h.records('c')).to.have.length(1);
      await stepFails(
        h.run([{ type: 'BatchInsert', collection: 'c', records: param('rows') }], { rows: [{ a: 1 }, 5] }),
        0,
        'BatchInsert',
        /'records\[1\]' must resolve to a JSON object/,
      );
      await stepFails(
        h.run([{ type: 'BatchInsert', collection: 'c', records: param('rows') }], { rows: 'x' }),
        0,
        'BatchInsert',
        /must resolve to an array/,
      );
      expect(h.records('c')).to.have.length(1);
    });

    it('holds at most max_batch_size records', async () => {
      await h.db.updateSettings({ max_batch_size: 2 });
      await stepFails(
        h.run([{ type: 'BatchInsert', collection: 'c', records: [{}, {}, {}] }]),
        0,
        'BatchInsert',
        /at most 2/,
      );
    });

    it('names bad members at save', () => {
      saveFails(
        [{ type: 'BatchInsert', collection: 'c', records: { a: 1 } }],
        'functions[0].records: must be an array of records, a Parameter reference or a placeholder',
      );
      saveFails([{ type: 'BatchInsert', collection: 'c' }], "functions[0]: missing required member 'records'");
      saveFails(
        [{ type: 'BatchInsert', collection: 'c', records: [{}, 'x'] }],
        'functions[0].records[1]: must be a JSON object',
      );
      saveFails([{ type: 'BatchInsert', records: [] }], "functions[0]: missing required member 'collection'");
      saveFails(
        [{ type: 'BatchInsert', collection: 'c', records: [], bypass_ripple: 'yes' }],
        'functions[0].bypass_ripple: must be a boolean',
      );
      saveFails(
        [{ type: 'BatchInsert', collection: 'c', records: [param('nope')] }],
        "functions[0].records[0]: unknown parameter 'nope'",
      );
    });
  });

  describe('Upsert', () => {
    it('by record_id: inserts under the id, then merges into it', async () => {
      const first = await h.run([{ type: 'Upsert', collection: 'k', record_id: '{{key}}', record: { hits: 1 } }], {
        key: 'home',
      });
      expect(first.records).to.deep.equal([{ id: 'home', hits: 1 }]);
      const second = await h.run([{ type: 'Upsert', collection: 'k', record_id: 'home', record: { last: 'now' } }]);
      expect(second.records).to.deep.equal([{ id: 'home', hits: 1, last: 'now' }]);
    });

    it('by filter: merges into every match, inserts the record when none', async () => {
      const step = {
        type: 'Upsert',
        collection: 'stock',
        filter: eq('sku', '{{sku}}'),
        record: { sku: '{{sku}}', qty: '{{qty}}' },
      };
      await h.run([step], { sku: 'p1', qty: 1 });
      await h.run([step], { sku: 'p1', qty: 7 });
      await h.run([step], { sku: 'p2', qty: 2 });
      expect(h.records('stock').map((r) => [r.sku, r.qty])).to.deep.equal([
        ['p1', 7],
        ['p2', 2],
      ]);
    });

    it("without a target uses the record's own id, or inserts", async () => {
      await h.run([{ type: 'Upsert', collection: 'o', record: { id: 'x', a: 1 } }]);
      await h.run([{ type: 'Upsert', collection: 'o', record: { id: 'x', b: 2 } }]);
      const plain = await h.run([{ type: 'Upsert', collection: 'o', record: { c: 3 }, ttl: 60 }]);
      expect(plain.records[0]!.ttl).to.be.a('string');
      expect(h.records('o').map((r) => [r.id === 'x', r.a, r.b, r.c])).to.deep.equal([
        [true, 1, 2, undefined],
        [false, undefined, undefined, 3],
      ]);
      saveFails(
        [{ type: 'Upsert', collection: 'o', record_id: 'a', filter: eq('a', 1), record: {} }],
        "functions[0]: give either 'record_id' or 'filter', not both",
      );
      saveFails([{ type: 'Upsert', collection: 'o' }], "functions[0]: missing required member 'record'");
    });
  });

  describe('Delete, DeleteById, BatchDelete', () => {
    it('Delete moves every match to the trash and returns them as they were', async () => {
      await seed('d', [
        { id: 'a', old: true },
        { id: 'b', old: false },
        { id: 'c', old: true },
      ]);
      const result = await h.run([{ type: 'Delete', collection: 'd', filter: eq('old', true), bypass_ripple: true }]);
      expect(result.records).to.deep.equal([
        { id: 'a', old: true },
        { id: 'c', old: true },
      ]);
      expect(h.records('d').map((r) => r.id)).to.deep.equal(['b']);
      expect(h.db.trash.count('d')).to.equal(2);
      saveFails([{ type: 'Delete', collection: 'd' }], "functions[0]: missing required member 'filter'");
    });

    it('DeleteById returns the deleted record and fails with 404 for a missing one', async () => {
      await seed('d', [{ id: 'a', n: 1 }]);
      expect(
        (await h.run([{ type: 'DeleteById', collection: 'd', record_id: '{{id}}' }], { id: 'a' })).records,
      ).to.deep.equal([{ id: 'a', n: 1 }]);
      await stepFails(
        h.run([{ type: 'DeleteById', collection: 'd', record_id: 'a' }]),
        0,
        'DeleteById',
        /Record not found/,
        404,
      );
    });

    it('BatchDelete takes record_ids (TypeScript) or ids (Go), all or none', async () => {
      await seed('d', [{ id: 'a' }, { id: 'b' }, { id: 'c' }, { id: 'e' }]);
      const ts = await h.run([{ type: 'BatchDelete', collection: 'd', record_ids: ['a', 'b'], bypass_ripple: false }]);
      expect(ts.records.map((r) => r.id)).to.deep.equal(['a', 'b']);
      await stepFails(
        h.run([{ type: 'BatchDelete', collection: 'd', ids: ['c', 'gone'] }]),
        0,
        'BatchDelete',
        /'gone'/,
        404,
      );
      expect(h.records('d').map((r) => r.id)).to.deep.equal(['c', 'e']);
      const go = await h.run([{ type: 'BatchDelete', collection: 'd', ids: param('ids') }], { ids: ['c', 'e'] });
      expect(go.records.map((r) => r.id)).to.deep.equal(['c', 'e']);
      await stepFails(
        h.run([{ type: 'BatchDelete', collection: 'd', ids: param('ids') }], { ids: [1] }),
        0,
        'BatchDelete',
        /array of record ids/,
      );
    });

    it('BatchDelete without a collection (Rust) deletes from the collection of the step written before it', async () => {
      await seed('jobs', [{ id: 'j1' }, { id: 'j2' }, { id: 'j3' }]);
      const result = await h.run(
        [
          { type: 'FindAll', collection: 'jobs' },
          {
            type: 'If',
            condition: { type: 'HasRecords' },
            then_functions: [{ type: 'BatchDelete', ids: param('ids'), bypass_ripple: null }],
          },
        ],
        { ids: ['j1', 'j3'] },
      );
      expect(result.records.map((r) => r.id)).to.deep.equal(['j1', 'j3']);
      expect(h.records('jobs').map((r) => r.id)).to.deep.equal(['j2']);
      saveFails([{ type: 'BatchDelete', ids: ['a'] }], "functions[0]: missing required member 'collection'");
    });

    it('takes the collection written last before it in the text, placeholders included', async () => {
      await seed('a', [{ id: 'x' }]);
      await seed('b', [{ id: 'x' }]);
      await h.run(
        [
          { type: 'FindAll', collection: 'a' },
          {
            type: 'If',
            condition: { type: 'HasRecords' },
            then_functions: [{ type: 'FindAll', collection: '{{which}}' }],
          },
          { type: 'BatchDelete', ids: ['x'] },
        ],
        { which: 'b' },
      );
      expect(h.records('a')).to.have.length(1);
      expect(h.records('b')).to.deep.equal([]);
      saveFails([{ type: 'BatchDelete', collection: 'd' }], "functions[0]: missing required member 'record_ids'");
      saveFails(
        [{ type: 'BatchDelete', collection: 'd', ids: 'a' }],
        'functions[0].ids: must be an array of record ids',
      );
      saveFails(
        [{ type: 'BatchDelete', collection: 'd', record_ids: [1] }],
        'functions[0].record_ids: must be an array of record ids',
      );
    });
  });

  describe('in a transactional function', () => {
    const tx = { transaction_config: { enabled: true, auto_rollback: true } };

    it("filtered Update and Delete see the function's earlier staged writes", async () => {
      const result = await h.run(
        [
          { type: 'Insert', collection: 'orders', record: { id: 'o1', state: 'new' } },
          {
            type: 'BatchInsert',
            collection: 'orders',
            records: [
              { id: 'o2', state: 'new' },
              { id: 'o3', state: 'void' },
            ],
          },
          { type: 'Update', collection: 'orders', filter: eq('state', 'new'), updates: { state: 'paid' } },
          { type: 'Delete', collection: 'orders', filter: eq('state', 'void') },
          {
            type: 'UpdateWithAction',
            collection: 'orders',
            filter: eq('state', 'paid'),
            actions: [['push', 'log', 'paid']],
          },
          { type: 'Upsert', collection: 'orders', record_id: 'o1', record: { note: 'first' } },
        ],
        {},
        tx,
      );
      expect(result.records).to.deep.equal([{ id: 'o1', state: 'paid', log: ['paid'], note: 'first' }]);
      expect(h.records('orders').map((r) => [r.id, r.state])).to.deep.equal([
        ['o1', 'paid'],
        ['o2', 'paid'],
      ]);
    });

    it('leaves nothing behind when a later step fails', async () => {
      await seed('acct', [{ id: 'a', balance: 10 }]);
      await stepFails(
        h.run(
          [
            { type: 'BatchInsert', collection: 'log', records: [{ m: 1 }, { m: 2 }] },
            {
              type: 'UpdateWithAction',
              collection: 'acct',
              record_id: 'a',
              action: 'decrement',
              field: 'balance',
              value: 5,
            },
            { type: 'DeleteById', collection: 'acct', record_id: 'a' },
            { type: 'UpdateById', collection: 'acct', record_id: 'a', updates: { x: 1 } },
          ],
          {},
          tx,
        ),
        3,
        'UpdateById',
        /Record not found/,
        404,
      );
      expect(h.records('log')).to.deep.equal([]);
      expect(h.records('acct')).to.deep.equal([{ id: 'a', balance: 10 }]);
      expect(h.db.transactions.list()).to.deep.equal([]);
    });
  });
});

describe('functions: Insert', () => {
  let h: FunctionHarness;
  beforeEach(async () => {
    h = await FunctionHarness.open();
  });
  afterEach(async () => {
    await h.close();
  });

  it('Insert writes one record, with a ttl when given, and makes it the working record', async () => {
    const r = await h.run([{ type: 'Insert', collection: 'items', record: { n: '{{n}}' }, ttl: 3600 }], { n: 5 });
    expect(r.records).to.have.length(1);
    expect(r.records[0]).to.include({ n: 5 });
    expect(r.records[0]!.ttl).to.be.a('string');
    expect(h.records('items')).to.have.length(1);
  });

  it('Insert takes a whole record from a Parameter reference', async () => {
    h.define({
      label: 'p',
      parameters: { doc: { required: true } },
      functions: [{ type: 'Insert', collection: 'items', record: { type: 'Parameter', name: 'doc' } }],
    });
    expect((await h.call('p', { doc: { a: 1, b: [1, 2] } })).records[0]).to.deep.include({ a: 1, b: [1, 2] });
    const err = await rejection(h.call('p', { doc: 'not an object' }));
    expect(err).to.include({ type: 'Insert', message: "Insert 'record' must resolve to a JSON object" });
  });

  it('Insert needs a collection at save', () => {
    expect(() => h.define({ label: 'a', functions: [{ type: 'Insert', record: {} }] })).to.throw(
      "functions[0]: missing required member 'collection'",
    );
  });
});
