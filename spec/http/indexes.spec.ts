import { expect } from 'chai';
import { TestServer } from '../helpers/test-server.js';

const cond = (field: string, operator: string, value: unknown) => ({
  type: 'Condition',
  content: { field, operator, value },
});
const and = (...expressions: unknown[]) => ({ type: 'Logical', content: { operator: 'And', expressions } });

describe('query indexes and explain', function () {
  this.timeout(30_000);
  let t: TestServer;
  beforeEach(async () => {
    t = await TestServer.start();
  });
  afterEach(async () => {
    await t.stop();
  });

  async function seed(n: number): Promise<void> {
    const inserts = Array.from({ length: n }, (_, i) => ({
      data: { id: `r${i}`, n: i, city: ['Oslo', 'Lima', 'Pune'][i % 3], tags: i % 10 === 0 ? ['x', 'y'] : 'plain' },
    }));
    expect((await t.request('POST', '/api/batch/insert/items', { inserts })).status).to.equal(201);
  }

  const queries = [
    { filter: cond('n', 'Eq', 42) },
    { filter: cond('n', 'Gte', 990) },
    { filter: and(cond('n', 'Lt', 100), cond('city', 'Eq', 'Lima')) },
    { filter: cond('city', 'In', ['Oslo', 'Pune']), limit: 7, skip: 3 },
    { filter: cond('n', 'Gt', 500), sort: [{ field: 'n', ascending: false }], limit: 5 },
    { filter: cond('tags', 'In', ['x']) },
    { filter: cond('n', 'Eq', null) },
  ];

  it('returns identical results with and without indexes, and explain shows the index', async () => {
    await seed(1000);
    const before = await Promise.all(queries.map((q) => t.request('POST', '/api/find/items', q)));
    expect((await t.request('POST', '/api/indexes/query/items', { field: 'n', type: 'btree' })).status).to.equal(201);
    expect((await t.request('POST', '/api/indexes/query/items', { field: 'city', type: 'hash' })).status).to.equal(201);
    expect((await t.request('POST', '/api/indexes/query/items', { field: 'tags', type: 'hash' })).status).to.equal(201);
    const after = await Promise.all(queries.map((q) => t.request('POST', '/api/find/items', q)));
    for (let i = 0; i < queries.length; i++)
      expect(after[i]!.body, JSON.stringify(queries[i])).to.deep.equal(before[i]!.body);
    const ex = await t.request('POST', '/api/query/items/explain', queries[0]);
    expect(ex.body.plan).to.deep.include({ type: 'index_scan', operator: 'Eq', candidates: 1 });
    expect(ex.body.plan.index).to.deep.equal({ field: 'n', type: 'btree' });
    expect((await t.request('POST', '/api/query/items/explain', queries[1])).body.plan.candidates).to.equal(10);
    expect(
      (await t.request('POST', '/api/query/items/explain', { filter: cond('city', 'StartsWith', 'L') })).body.plan.type,
    ).to.equal('full_scan');
  });

  it('follows inserts, updates, deletes and transaction commits', async () => {
    await seed(100);
    await t.request('POST', '/api/indexes/query/items', { field: 'n' });
    await t.request('PUT', '/api/update/items/r5', { n: 5000 });
    await t.request('DELETE', '/api/delete/items/r6');
    await t.request('POST', '/api/insert/items', { id: 'new', n: 6 });
    const tx = (await t.request('POST', '/api/transactions', {})).body.transaction_id;
    await t.request('POST', `/api/insert/items?transaction_id=${tx}`, { id: 'txrec', n: 7 });
    const ids = async (q: unknown) =>
      (await t.request('POST', '/api/find/items', q)).body.map((r: { id: string }) => r.id);
    expect(await ids({ filter: cond('n', 'Eq', 5) })).to.deep.equal([]);
    expect(await ids({ filter: cond('n', 'Eq', 5000) })).to.deep.equal(['r5']);
    expect(await ids({ filter: cond('n', 'Eq', 6) })).to.deep.equal(['new']);
    expect(await ids({ filter: cond('n', 'Eq', 7) })).to.deep.equal(['r7']);
    await t.request('POST', `/api/transactions/${tx}/commit`);
    expect(await ids({ filter: cond('n', 'Eq', 7) })).to.deep.equal(['r7', 'txrec']);
  });

  it('keeps index definitions across a restart and rebuilds their contents; schema indexes count too', async () => {
    await t.request('POST', '/api/collections/people', {
      fields: { email: { field_type: 'String', index: { type: 'hash' } } },
    });
    await t.request('POST', '/api/insert/people', { email: 'a@x.io' });
    await seed(50);
    await t.request('POST', '/api/indexes/query/items', { field: 'n', type: 'btree' });
    const dir = t.dataDir;
    await t.stop({ keepData: true });
    t = await TestServer.start({ dataDir: dir });
    const list = await t.request('GET', '/api/indexes/query/items');
    expect(list.body.indexes).to.deep.equal([{ field: 'n', type: 'btree', source: 'admin', entries: 50 }]);
    const ex = await t.request('POST', '/api/query/people/explain', { filter: cond('email', 'Eq', 'a@x.io') });
    expect(ex.body.plan).to.deep.include({ type: 'index_scan', candidates: 1 });
    expect((await t.request('DELETE', '/api/indexes/query/items/n')).status).to.equal(200);
    expect(
      (await t.request('POST', '/api/query/items/explain', { filter: cond('n', 'Eq', 1) })).body.plan.type,
    ).to.equal('full_scan');
  });

  it('rejects bad index requests and non-admin keys', async () => {
    await seed(3);
    expect((await t.request('POST', '/api/indexes/query/items', { field: 'n', type: 'fulltext' })).status).to.equal(
      400,
    );
    expect((await t.request('POST', '/api/indexes/query/items', { field: '__proto__' })).status).to.equal(400);
    expect((await t.request('POST', '/api/indexes/query/missing', { field: 'n' })).status).to.equal(404);
    await t.request('POST', '/api/indexes/query/items', { field: 'n' });
    expect((await t.request('POST', '/api/indexes/query/items', { field: 'n' })).status).to.equal(409);
    expect((await t.request('DELETE', '/api/indexes/query/items/zzz')).status).to.equal(404);
    const user = await t.userToken({ name: 'u' });
    expect((await t.request('POST', '/api/indexes/query/items', { field: 'city' }, { token: user })).status).to.equal(
      403,
    );
  });
});
