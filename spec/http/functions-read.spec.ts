import { expect } from 'chai';
import { bare, TestServer } from '../helpers/test-server.js';

describe('HTTP stored functions: read and shaping steps', function () {
  this.timeout(30_000);
  let s: TestServer;
  beforeEach(async () => {
    s = await TestServer.start();
    const inserts = [
      { id: 'o1', customer: 'ann', total: 30, status: 'paid', embedding: [1, 0] },
      { id: 'o2', customer: 'bo', total: 12, status: 'paid', embedding: [0, 1] },
      { id: 'o3', customer: 'ann', total: 8, status: 'open', embedding: [0.8, 0.2] },
    ].map((data) => ({ data }));
    expect((await s.request('POST', '/api/batch/insert/orders', { inserts })).status).to.be.oneOf([200, 201]);
  });
  afterEach(async () => {
    await s.stop();
  });

  const save = (def: Record<string, unknown>) => s.saveFunction(def);

  it('runs a Query + Group + Sort pipeline with parameters and reports stage stats', async () => {
    await save({
      label: 'revenue',
      parameters: { status: { required: true }, top: { required: false, default: 5 } },
      functions: [
        {
          type: 'Query',
          collection: 'orders',
          filter: { type: 'Condition', content: { field: 'status', operator: 'Eq', value: '{{status}}' } },
        },
        {
          type: 'Group',
          by_fields: ['customer'],
          functions: [{ output_field: 'revenue', operation: 'Sum', input_field: 'total' }],
        },
        { type: 'Sort', sort: [{ field: 'revenue', ascending: false }] },
        { type: 'Limit', limit: '{{top}}' },
      ],
    });
    const r = await s.request('POST', '/api/functions/revenue', { status: 'paid', top: 1 });
    expect(r.status).to.equal(200);
    expect(r.body.records.map(bare)).to.deep.equal([{ customer: 'ann', revenue: 30 }]);
    expect(r.body.stats.stage_stats.map((x: { stage: string }) => x.stage)).to.deep.equal([
      'Query',
      'Group',
      'Sort',
      'Limit',
    ]);
    expect(r.body.stats).to.include({ output_count: 1, stages_executed: 4 });
  });

  it('answers FindById + Project and Query + Count with typed records', async () => {
    await save({
      label: 'one',
      parameters: { id: { required: true } },
      functions: [
        { type: 'FindById', collection: 'orders', record_id: '{{id}}' },
        { type: 'Project', fields: ['total'] },
      ],
    });
    const one = await s.request('POST', '/api/functions/one', { id: 'o2' });
    expect(one.body.records).to.deep.equal([{ id: 'o2', total: { type: 'Integer', value: 12 } }]);
    await save({
      label: 'count_ann',
      functions: [
        { type: 'Query', collection: 'orders', filter: { field: 'customer', operator: 'Eq', value: 'ann' } },
        { type: 'Count', output_field: 'n' },
      ],
    });
    expect((await s.request('POST', '/api/functions/count_ann', {})).body.records.map(bare)).to.deep.equal([{ n: 2 }]);
  });

  it('runs a VectorSearch and returns hits with _score', async () => {
    await save({
      label: 'near',
      functions: [
        { type: 'VectorSearch', collection: 'orders', query_vector: [1, 0], limit: 2 },
        { type: 'Project', fields: ['_score'] },
      ],
    });
    const r = await s.request('POST', '/api/functions/near', {});
    expect(r.body.records.map((x: Record<string, unknown>) => x.id)).to.deep.equal(['o1', 'o3']);
    expect(bare(r.body.records[0])._score).to.be.closeTo(1, 1e-6);
  });

  it('refuses a bad read or shaping step at save with a 400 naming the path', async () => {
    const r = await s.request('POST', '/api/functions', {
      label: 'bad',
      name: 'bad',
      parameters: {},
      functions: [
        { type: 'Query', collection: 'orders' },
        { type: 'Limit', limit: 'lots' },
      ],
    });
    expect(r.status).to.equal(400);
    expect(r.body.error).to.match(/^functions\[1\]\.limit: expected a non-negative integer/);
  });

  it('answers a call-time failure of a read step with the step failure body', async () => {
    await save({
      label: 'paged',
      parameters: { size: { required: true } },
      functions: [
        { type: 'FindAll', collection: 'orders' },
        { type: 'Limit', limit: '{{size}}' },
      ],
    });
    const r = await s.request('POST', '/api/functions/paged', { size: 'ten' });
    expect(r.status).to.equal(400);
    expect(r.body).to.include({ error: true, operation_index: 1, operation_type: 'Limit' });
  });
});
