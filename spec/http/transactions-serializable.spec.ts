/**
 * Serializable over real HTTP: the predicate of every
 * `POST /api/find` and `POST /api/search` made with `?transaction_id=` is
 * validated at commit, so predicate write skew, an update into a queried
 * predicate and write skew through search each end in a 409 naming the
 * record, with nothing applied; a concurrent change outside the predicate
 * does not conflict; RepeatableRead keeps admitting phantoms.
 */
import { expect } from 'chai';
import { TestServer, type Reply } from '../helpers/test-server.js';

let counter = 0;
const fresh = (): string => `ser_${++counter}`;

describe('http transactions at Serializable: predicate reads', () => {
  let t: TestServer;
  before(async () => {
    t = await TestServer.start();
  });
  after(async () => {
    await t.stop();
  });

  async function begin(level = 'Serializable'): Promise<string> {
    const r = await t.request('POST', '/api/transactions', { isolation_level: level });
    expect(r.status, r.text).to.equal(200);
    return r.body.transaction_id;
  }

  async function ok(r: Promise<Reply>, status = 200): Promise<any> {
    const reply = await r;
    expect(reply.status, reply.text).to.equal(status);
    return reply.body;
  }

  const find = (c: string, filter: unknown, tx?: string) =>
    ok(t.request('POST', `/api/find/${c}${tx ? `?transaction_id=${tx}` : ''}`, filter === undefined ? {} : { filter }));
  const update = (c: string, id: string, body: unknown, tx?: string) =>
    ok(t.request('PUT', `/api/update/${c}/${id}${tx ? `?transaction_id=${tx}` : ''}`, body));
  const insert = (c: string, body: unknown, tx?: string) =>
    ok(t.request('POST', `/api/insert/${c}${tx ? `?transaction_id=${tx}` : ''}`, body), 201);
  const search = (c: string, query: string, tx: string) =>
    ok(t.request('POST', `/api/search/${c}?transaction_id=${tx}`, { query }));
  const commit = (tx: string) => t.request('POST', `/api/transactions/${tx}/commit`);
  const eq = (field: string, value: unknown) => ({ type: 'Condition', content: { field, operator: 'Eq', value } });

  function expectConflict(r: Reply, collection: string, id: string): void {
    expect(r.status, r.text).to.equal(409);
    expect(r.body.error)
      .to.be.a('string')
      .and.match(/conflict/i);
    expect(r.body.retryable).to.equal(true);
    expect(r.body.conflicts).to.be.an('array').that.is.not.empty;
    expect(r.body.conflicts[0]).to.include({ collection, id });
  }

  it(
    'rejects predicate write skew: two finds of active == true see none, each activates a record, the second ' +
      'commit is 409',
    async () => {
      const c = fresh();
      await insert(c, { id: 'a', active: false });
      await insert(c, { id: 'b', active: false });
      const t1 = await begin(),
        t2 = await begin();
      expect(await find(c, eq('active', true), t1)).to.deep.equal([]);
      expect(await find(c, eq('active', true), t2)).to.deep.equal([]);
      await update(c, 'a', { active: true }, t1);
      await update(c, 'b', { active: true }, t2);
      expect((await commit(t1)).status).to.equal(200);
      expectConflict(await commit(t2), c, 'a');
      expect((await find(c, eq('active', true))).map((r: { id: string }) => r.id)).to.deep.equal(['a']);
    },
  );

  it('rejects a commit after another transaction updated a record into its queried predicate', async () => {
    const c = fresh();
    await insert(c, { id: 'r1', cat: 'x' });
    await insert(c, { id: 'r2', cat: 'y' });
    const t1 = await begin();
    expect((await find(c, eq('cat', 'x'), t1)).map((r: { id: string }) => r.id)).to.deep.equal(['r1']);
    await update(c, 'r2', { cat: 'x' });
    await insert(`${c}_summary`, { cat: 'x', count: 1 }, t1);
    expectConflict(await commit(t1), c, 'r2');
    expect(await find(`${c}_summary`, undefined)).to.deep.equal([]);
  });

  it('rejects write skew through POST /api/search with ?transaction_id=', async () => {
    const c = fresh();
    await insert(c, { id: 'ann', status: 'resting' });
    await insert(c, { id: 'bo', status: 'resting' });
    const t1 = await begin(),
      t2 = await begin();
    expect((await search(c, 'duty', t1)).results).to.deep.equal([]);
    expect((await search(c, 'duty', t2)).results).to.deep.equal([]);
    await update(c, 'ann', { status: 'on duty' }, t1);
    await update(c, 'bo', { status: 'on duty' }, t2);
    expect((await commit(t1)).status).to.equal(200);
    expectConflict(await commit(t2), c, 'ann');
  });

  it('commits when concurrent inserts and updates stay outside the predicate it read', async () => {
    const c = fresh();
    await insert(c, { id: 'r1', cat: 'x' });
    const t1 = await begin();
    expect(await find(c, eq('cat', 'x'), t1)).to.have.length(1);
    await insert(c, { id: 'r2', cat: 'y' });
    await update(c, 'r2', { cat: 'z' });
    await update(c, 'r1', { cat: 'x', n: 1 }, t1);
    expect((await commit(t1)).status).to.equal(200);
  });

  it('still admits the phantom at RepeatableRead: a matching insert after the find does not stop the commit', async () => {
    const c = fresh();
    await insert(c, { id: 'r1', cat: 'x' });
    const t1 = await begin('RepeatableRead');
    expect(await find(c, eq('cat', 'x'), t1)).to.have.length(1);
    await insert(c, { id: 'r2', cat: 'x' });
    await insert(`${c}_summary`, { count: 1 }, t1);
    expect((await commit(t1)).status).to.equal(200);
  });
});
