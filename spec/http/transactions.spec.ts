/**
 * End-to-end specs of transactions and savepoints (product.md Transactions,
 * the States table and isolation rules 1-7; protocol.md 2.7): begin, status
 * and list; every write route staging with `?transaction_id=`; reads that
 * see their own writes while others see committed data only; commit,
 * rollback and savepoints; unknown and expired transactions; commit
 * conflicts at ReadCommitted and the lost update ReadUncommitted admits.
 * The audit trail of these events is in audit.spec.ts. Above 400 lines
 * because it walks every route of the transaction state table end to end.
 */
import { expect } from 'chai';
import { bare, TestServer, type Reply, type RequestOptions, errorBody } from '../helpers/test-server.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const LEVELS = ['ReadUncommitted', 'ReadCommitted', 'RepeatableRead', 'Serializable'] as const;
const STATUS_KEYS = [
  'transaction_id',
  'state',
  'isolation_level',
  'operations_count',
  'savepoints_count',
  'created_at',
  'last_activity',
  'timeout_seconds',
];

let counter = 0;
const fresh = (prefix = 'txs'): string => `${prefix}_${++counter}`;

function expectError(r: Reply, status: number, message: string): void {
  expect(r.status, r.text).to.equal(status);
  expect(errorBody(r), r.text).to.deep.equal({ error: message });
}

describe('http transactions', () => {
  let t: TestServer;
  before(async () => {
    t = await TestServer.start();
  });
  after(async () => {
    await t.stop();
  });

  const seconds = () => Math.floor(t.clock.now() / 1000);

  async function begin(body: Record<string, unknown> = {}): Promise<string> {
    const r = await t.request('POST', '/api/transactions', body);
    expect(r.status, r.text).to.equal(200);
    return r.body.transaction_id;
  }

  const status = (tx: string) => t.request('GET', `/api/transactions/${tx}`);
  const commit = (tx: string, opts?: RequestOptions) =>
    t.request('POST', `/api/transactions/${tx}/commit`, undefined, opts);
  const rollback = (tx: string) => t.request('POST', `/api/transactions/${tx}/rollback`);
  const savepoint = (tx: string, name: string) => t.request('POST', `/api/transactions/${tx}/savepoints`, { name });
  const rollbackTo = (tx: string, name: string, body?: unknown) =>
    t.request('POST', `/api/transactions/${tx}/savepoints/${name}/rollback`, body);
  const release = (tx: string, name: string, body?: unknown) =>
    t.request('DELETE', `/api/transactions/${tx}/savepoints/${name}`, body);

  async function opsCount(tx: string): Promise<number> {
    const r = await status(tx);
    expect(r.status, r.text).to.equal(200);
    return r.body.operations_count;
  }

  async function insert(c: string, body: Record<string, unknown>, tx?: string): Promise<string> {
    const r = await t.request('POST', `/api/insert/${c}${tx ? `?transaction_id=${tx}` : ''}`, body);
    expect(r.status, r.text).to.equal(201);
    return r.body.id;
  }

  const get = (c: string, id: string, tx?: string) =>
    t.request('GET', `/api/find/${c}/${id}${tx ? `?transaction_id=${tx}` : ''}`);

  async function value(c: string, id: string, field: string, tx?: string): Promise<unknown> {
    const r = await get(c, id, tx);
    expect(r.status, r.text).to.equal(200);
    return bare(r.body)[field];
  }

  async function ids(c: string, tx?: string): Promise<string[]> {
    const r = await t.request('POST', `/api/find/${c}${tx ? `?transaction_id=${tx}` : ''}`, {});
    expect(r.status, r.text).to.equal(200);
    return (r.body as Array<{ id: string }>).map((x) => x.id).sort();
  }

  async function setDefaultLevel(level: string): Promise<void> {
    const r = await t.request('PUT', '/api/config', { default_isolation_level: level });
    expect(r.status, r.text).to.equal(200);
  }

  describe('POST /api/transactions', () => {
    for (const level of LEVELS) {
      it(`begins a ${level} transaction with a uuid v4 id and created_at in unix seconds`, async () => {
        const r = await t.request('POST', '/api/transactions', { isolation_level: level, timeout_seconds: 30 });
        expect(r.status, r.text).to.equal(200);
        expect(r.body).to.include.all.keys('transaction_id', 'isolation_level', 'created_at');
        expect(r.body.transaction_id).to.match(UUID_V4);
        expect(r.body.isolation_level).to.equal(level);
        expect(r.body.created_at).to.equal(seconds());
      });
    }

    it('uses ReadUncommitted by default and then whatever default_isolation_level PUT /api/config sets', async () => {
      const first = await t.request('POST', '/api/transactions', {});
      expect(first.body.isolation_level).to.equal('ReadUncommitted');
      try {
        await setDefaultLevel('Serializable');
        const second = await t.request('POST', '/api/transactions');
        expect(second.status, second.text).to.equal(200);
        expect(second.body.isolation_level).to.equal('Serializable');
        const explicit = await t.request('POST', '/api/transactions', { isolation_level: 'ReadCommitted' });
        expect(explicit.body.isolation_level).to.equal('ReadCommitted');
      } finally {
        await setDefaultLevel('ReadUncommitted');
      }
    });

    for (const level of ['Snapshot', 'readcommitted', 'READ_COMMITTED', '', 5, true, ['ReadCommitted']]) {
      it(`answers 400 {"error":"Invalid isolation level"} to ${JSON.stringify(level)}`, async () => {
        expectError(
          await t.request('POST', '/api/transactions', { isolation_level: level }),
          400,
          'Invalid isolation level',
        );
      });
    }

    for (const timeout of [0, -5, 1.5, '30', 10_000_000]) {
      it(`answers 400 to timeout_seconds ${JSON.stringify(timeout)}`, async () => {
        const r = await t.request('POST', '/api/transactions', { timeout_seconds: timeout });
        expect(r.status, r.text).to.equal(400);
        expect(r.body.error).to.match(/timeout_seconds/);
      });
    }

    it('answers 400 to a body that is not an object or has unknown members', async () => {
      expect((await t.request('POST', '/api/transactions', [1])).status).to.equal(400);
      expect((await t.request('POST', '/api/transactions', { isolation: 'ReadCommitted' })).status).to.equal(400);
    });
  });

  describe('GET /api/transactions/{id} and GET /api/transactions', () => {
    it('reports an active transaction with every status field', async () => {
      const tx = await begin({ isolation_level: 'RepeatableRead' });
      const r = await status(tx);
      expect(r.status, r.text).to.equal(200);
      expect(r.body).to.have.all.keys(...STATUS_KEYS);
      expect(r.body).to.deep.equal({
        transaction_id: tx,
        state: 'Active',
        isolation_level: 'RepeatableRead',
        operations_count: 0,
        savepoints_count: 0,
        created_at: seconds(),
        last_activity: seconds(),
        timeout_seconds: 300,
      });
    });

    it('moves last_activity forward when a statement joins the transaction', async () => {
      const tx = await begin({ timeout_seconds: 600 });
      const created = seconds();
      t.clock.advance(7_000);
      await insert(fresh(), { a: 1 }, tx);
      const r = await status(tx);
      expect(r.body).to.include({
        created_at: created,
        last_activity: created + 7,
        operations_count: 1,
        timeout_seconds: 600,
      });
    });

    it('lists active transactions and drops committed and rolled-back ones', async () => {
      const a = await begin();
      const b = await begin({ isolation_level: 'Serializable' });
      const c = await begin();
      await commit(a);
      await rollback(c);
      const r = await t.request('GET', '/api/transactions');
      expect(r.status, r.text).to.equal(200);
      const listed = (r.body.transactions as Array<{ transaction_id: string }>).map((x) => x.transaction_id);
      expect(listed).to.include(b).and.not.include(a).and.not.include(c);
      const entry = (r.body.transactions as Array<Record<string, unknown>>).find((x) => x.transaction_id === b);
      expect(entry).to.include({ state: 'Active', isolation_level: 'Serializable' });
      await rollback(b);
    });
  });

  describe('staging with ?transaction_id=', () => {
    it('stages insert, update, update action, sequence, delete and batch, showing them only to the transaction', async () => {
      const c = fresh();
      const upd = await insert(c, { n: 1, tag: 'old' });
      const act = await insert(c, { n: 10 });
      const seq = await insert(c, { n: 100, list: [1] });
      const del = await insert(c, { n: 1000 });
      const tx = await begin({ isolation_level: 'ReadCommitted' });
      const q = `?transaction_id=${tx}`;

      const ins = await insert(c, { n: 5, id: 'new-one' }, tx);
      expect(ins).to.equal('new-one');
      const u = await t.request('PUT', `/api/update/${c}/${upd}${q}`, { tag: 'new' });
      expect(u.status, u.text).to.equal(200);
      expect(bare(u.body)).to.include({ id: upd, n: 1, tag: 'new' });
      const a = await t.request('PUT', `/api/update/${c}/${act}/action/increment${q}`, { field: 'n', value: 5 });
      expect(a.status, a.text).to.equal(200);
      expect(bare(a.body).n).to.equal(15);
      const s = await t.request('PUT', `/api/update/sequence/${c}/${seq}${q}`, [
        ['increment', 'n', 1],
        ['push', 'list', 2],
      ]);
      expect(s.status, s.text).to.equal(200);
      expect(bare(s.body)).to.deep.include({ n: 101, list: [1, 2] });
      const d = await t.request('DELETE', `/api/delete/${c}/${del}${q}`);
      expect(d.status, d.text).to.equal(200);
      const b = await t.request('POST', `/api/batch/insert/${c}${q}`, {
        inserts: [{ data: { id: 'b1' } }, { data: { id: 'b2' } }],
      });
      expect(b.status, b.text).to.equal(201);
      expect(await opsCount(tx)).to.equal(7);

      // Reads without the id see committed data only.
      expect(await ids(c)).to.deep.equal([upd, act, seq, del].sort());
      expect(await value(c, upd, 'tag')).to.equal('old');
      expect(await value(c, act, 'n')).to.equal(10);
      expect((await get(c, 'new-one')).status).to.equal(404);
      expect((await get(c, del)).status).to.equal(200);
      // Reads with it see the transaction's own writes.
      expect(await ids(c, tx)).to.deep.equal([upd, act, seq, 'new-one', 'b1', 'b2'].sort());
      expect(await value(c, upd, 'tag', tx)).to.equal('new');
      expect(await value(c, seq, 'list', tx)).to.deep.equal([1, 2]);
      expect((await get(c, del, tx)).status).to.equal(404);
      const filtered = await t.request('POST', `/api/find/${c}${q}`, {
        filter: { type: 'Condition', content: { field: 'n', operator: 'Gt', value: 14 } },
      });
      expect((filtered.body as Array<{ id: string }>).map((x) => x.id).sort()).to.deep.equal([act, seq].sort());

      const r = await commit(tx);
      expect(r.status, r.text).to.equal(200);
      expect(r.body).to.deep.equal({ status: 'committed', transaction_id: tx, operations_count: 7 });
      expect(await ids(c)).to.deep.equal([upd, act, seq, 'new-one', 'b1', 'b2'].sort());
      expect(await value(c, upd, 'tag')).to.equal('new');
      expect(await value(c, act, 'n')).to.equal(15);
      expect(await value(c, seq, 'n')).to.equal(101);
      expect((await get(c, del)).status).to.equal(404);
    });

    it("keeps one transaction's staged writes invisible to another transaction", async () => {
      const c = fresh();
      const id = await insert(c, { v: 1 });
      const a = await begin();
      const b = await begin();
      await t.request('PUT', `/api/update/${c}/${id}?transaction_id=${a}`, { v: 2 });
      await insert(c, { id: 'only-a' }, a);
      expect(await value(c, id, 'v', b)).to.equal(1);
      expect((await get(c, 'only-a', b)).status).to.equal(404);
      expect(await ids(c, b)).to.deep.equal([id]);
      await rollback(a);
      await rollback(b);
    });

    it('reads committed changes made after the transaction began when it has not staged that record', async () => {
      const c = fresh();
      const id = await insert(c, { v: 1 });
      const tx = await begin();
      await t.request('PUT', `/api/update/${c}/${id}`, { v: 2 });
      expect(await value(c, id, 'v', tx)).to.equal(2);
      await rollback(tx);
    });

    it('accepts a primary-key alias value in place of the id, as the direct routes do', async () => {
      const c = fresh();
      await t.request('POST', `/api/collections/${c}`, { fields: { email: { field_type: 'String' } } });
      expect((await t.request('PUT', `/api/schemas/${c}/primary-key-alias`, { alias: 'email' })).status).to.equal(200);
      await insert(c, { id: 'u1', email: 'a@x.io', n: 1 });
      await insert(c, { id: 'u2', email: 'b@x.io', n: 1 });
      expect((await get(c, 'a@x.io')).status).to.equal(200);
      const tx = await begin();
      expect(await value(c, 'a@x.io', 'n', tx)).to.equal(1);
      const u = await t.request('PUT', `/api/update/${c}/a@x.io?transaction_id=${tx}`, { n: 2 });
      expect(u.status, u.text).to.equal(200);
      expect(bare(u.body).id).to.equal('u1');
      const d = await t.request('DELETE', `/api/delete/${c}/b@x.io?transaction_id=${tx}`);
      expect(d.status, d.text).to.equal(200);
      expect(await value(c, 'u1', 'n', tx)).to.equal(2);
      expect((await commit(tx)).status).to.equal(200);
      expect(await value(c, 'u1', 'n')).to.equal(2);
      expect(await ids(c)).to.deep.equal(['u1']);
    });

    it('answers a staged write that cannot apply with the error it would get outside the transaction', async () => {
      const c = fresh();
      const tx = await begin();
      const missing = await t.request('PUT', `/api/update/${c}/nope?transaction_id=${tx}`, { a: 1 });
      expectError(missing, 404, 'Record not found');
      await insert(c, { id: 'dup' }, tx);
      const dup = await t.request('POST', `/api/insert/${c}?transaction_id=${tx}`, { id: 'dup' });
      expect(dup.status, dup.text).to.equal(409);
      const act = await t.request('PUT', `/api/update/${c}/dup/action/increment?transaction_id=${tx}`, {
        field: 'missing',
        value: 'x',
      });
      expect(act.status, act.text).to.equal(400);
      expect(await opsCount(tx)).to.equal(1);
      await rollback(tx);
    });
  });

  describe('commit and rollback', () => {
    it('commits in MessagePack as well as JSON', async () => {
      const c = fresh();
      const tx = await begin();
      await insert(c, { id: 'mp' }, tx);
      const r = await commit(tx, { format: 'msgpack' });
      expect(r.status, r.text).to.equal(200);
      expect(r.headers.get('content-type')).to.contain('application/msgpack');
      expect(r.body).to.deep.equal({ status: 'committed', transaction_id: tx, operations_count: 1 });
      expect((await get(c, 'mp')).status).to.equal(200);
    });

    it('commits an empty transaction with operations_count 0', async () => {
      const tx = await begin();
      expect((await commit(tx)).body).to.deep.equal({ status: 'committed', transaction_id: tx, operations_count: 0 });
    });

    it('rolls back, discarding every staged write, and forgets the transaction', async () => {
      const c = fresh();
      const id = await insert(c, { v: 1 });
      const tx = await begin();
      await insert(c, { id: 'gone' }, tx);
      await t.request('PUT', `/api/update/${c}/${id}?transaction_id=${tx}`, { v: 9 });
      const r = await rollback(tx);
      expect(r.status, r.text).to.equal(200);
      expect(r.body).to.deep.equal({ status: 'rolled_back', transaction_id: tx, operations_rolled_back: 2 });
      expect(await ids(c)).to.deep.equal([id]);
      expect(await value(c, id, 'v')).to.equal(1);
      expectError(await status(tx), 404, 'Transaction not found');
      expectError(await commit(tx), 404, 'Transaction not found');
    });

    it('forgets a committed transaction: a second commit is a 404 and applies nothing again', async () => {
      const c = fresh();
      const id = await insert(c, { n: 0 });
      const tx = await begin();
      await t.request('PUT', `/api/update/${c}/${id}/action/increment?transaction_id=${tx}`, { field: 'n', value: 1 });
      expect((await commit(tx)).status).to.equal(200);
      expectError(await commit(tx), 404, 'Transaction not found');
      expectError(await rollback(tx), 404, 'Transaction not found');
      expect(await value(c, id, 'n')).to.equal(1);
    });

    it('applies a transaction once when two commits of it race', async () => {
      const c = fresh();
      const id = await insert(c, { n: 0 });
      for (let round = 0; round < 5; round++) {
        const tx = await begin();
        await t.request('PUT', `/api/update/${c}/${id}/action/increment?transaction_id=${tx}`, {
          field: 'n',
          value: 1,
        });
        const replies = await Promise.all([commit(tx), commit(tx), rollback(tx)]);
        expect(replies.map((r) => r.status).sort(), replies.map((r) => r.text).join(' | ')).to.deep.equal([
          200, 404, 404,
        ]);
        expect(await value(c, id, 'n')).to.equal(round + 1);
      }
    });
  });

  describe('savepoints', () => {
    it('creates a savepoint and rewinds exactly to it, keeping earlier writes', async () => {
      const c = fresh();
      const tx = await begin();
      await insert(c, { id: 'before' }, tx);
      const sp = await savepoint(tx, 'sp1');
      expect(sp.status, sp.text).to.equal(200);
      expect(sp.body).to.deep.equal({ status: 'created', transaction_id: tx, savepoint_name: 'sp1' });
      expect((await status(tx)).body.savepoints_count).to.equal(1);
      await insert(c, { id: 'after1' }, tx);
      await insert(c, { id: 'after2' }, tx);
      expect(await opsCount(tx)).to.equal(3);
      const r = await rollbackTo(tx, 'sp1', {});
      expect(r.status, r.text).to.equal(200);
      expect(r.headers.get('content-type')).to.contain('application/json');
      expect(r.body).to.include({ transaction_id: tx, savepoint_name: 'sp1' });
      expect(await opsCount(tx)).to.equal(1);
      expect(await ids(c, tx)).to.deep.equal(['before']);
      // The savepoint survives its own rollback and can be used again.
      await insert(c, { id: 'again' }, tx);
      expect((await rollbackTo(tx, 'sp1')).status).to.equal(200);
      expect(await ids(c, tx)).to.deep.equal(['before']);
      expect((await commit(tx)).body.operations_count).to.equal(1);
      expect(await ids(c)).to.deep.equal(['before']);
    });

    it('releases a savepoint, after which rolling back to it is a 404', async () => {
      const c = fresh();
      const tx = await begin();
      await savepoint(tx, 'keep');
      await insert(c, { id: 'x' }, tx);
      const r = await release(tx, 'keep', {});
      expect(r.status, r.text).to.equal(200);
      expect(r.headers.get('content-type')).to.contain('application/json');
      expect(r.body).to.include({ transaction_id: tx, savepoint_name: 'keep' });
      const s = (await status(tx)).body;
      expect(s).to.include({ savepoints_count: 0, operations_count: 1 });
      const again = await rollbackTo(tx, 'keep');
      expect(again.status, again.text).to.equal(404);
      expect(again.body.error).to.be.a('string');
      expect((await release(tx, 'keep')).status).to.equal(404);
      await rollback(tx);
    });

    it('drops savepoints made after the one rolled back to', async () => {
      const c = fresh();
      const tx = await begin();
      await savepoint(tx, 'a');
      await insert(c, { id: '1' }, tx);
      await savepoint(tx, 'b');
      await insert(c, { id: '2' }, tx);
      expect((await rollbackTo(tx, 'a')).status).to.equal(200);
      expect((await status(tx)).body.savepoints_count).to.equal(1);
      expect((await rollbackTo(tx, 'b')).status).to.equal(404);
      expect(await ids(c, tx)).to.deep.equal([]);
      await rollback(tx);
    });

    it('treats a re-created savepoint name as made at its latest creation', async () => {
      const c = fresh();
      const tx = await begin();
      await insert(c, { id: '1' }, tx);
      await savepoint(tx, 'a');
      await insert(c, { id: '2' }, tx);
      await savepoint(tx, 'b');
      await insert(c, { id: '3' }, tx);
      await savepoint(tx, 'a');
      await insert(c, { id: '4' }, tx);
      expect((await rollbackTo(tx, 'b')).status).to.equal(200);
      expect(await ids(c, tx)).to.deep.equal(['1', '2']);
      // 'a' now marks a point after 'b', so it went with the rollback and cannot resurrect '3'.
      expect((await rollbackTo(tx, 'a')).status).to.equal(404);
      expect(await ids(c, tx)).to.deep.equal(['1', '2']);
      await rollback(tx);
    });

    for (const body of [{}, { name: '' }, { name: 5 }, { name: 'x'.repeat(200) }]) {
      it(`answers 400 to the savepoint body ${JSON.stringify(body).slice(0, 40)}`, async () => {
        const tx = await begin();
        const r = await t.request('POST', `/api/transactions/${tx}/savepoints`, body);
        expect(r.status, r.text).to.equal(400);
        expect(r.body.error).to.be.a('string');
        await rollback(tx);
      });
    }
  });

  describe('unknown and expired transactions', () => {
    const routes = (tx: string, c: string): Array<[string, string, unknown?]> => [
      ['GET', `/api/transactions/${tx}`],
      ['POST', `/api/transactions/${tx}/commit`],
      ['POST', `/api/transactions/${tx}/rollback`],
      ['POST', `/api/transactions/${tx}/savepoints`, { name: 'sp' }],
      ['POST', `/api/transactions/${tx}/savepoints/sp/rollback`],
      ['DELETE', `/api/transactions/${tx}/savepoints/sp`],
      ['POST', `/api/insert/${c}?transaction_id=${tx}`, { a: 1 }],
      ['GET', `/api/find/${c}/r1?transaction_id=${tx}`],
      ['POST', `/api/find/${c}?transaction_id=${tx}`, {}],
      ['PUT', `/api/update/${c}/r1?transaction_id=${tx}`, { a: 2 }],
      ['PUT', `/api/update/${c}/r1/action/increment?transaction_id=${tx}`, { field: 'a', value: 1 }],
      ['PUT', `/api/update/sequence/${c}/r1?transaction_id=${tx}`, [['increment', 'a', 1]]],
      ['DELETE', `/api/delete/${c}/r1?transaction_id=${tx}`],
      ['POST', `/api/batch/insert/${c}?transaction_id=${tx}`, { inserts: [{ data: { a: 1 } }] }],
      ['PUT', `/api/batch/update/${c}?transaction_id=${tx}`, { updates: [{ id: 'r1', data: { a: 1 } }] }],
      ['DELETE', `/api/batch/delete/${c}?transaction_id=${tx}`, { deletes: [{ id: 'r1' }] }],
    ];

    it('answers 404 {"error":"Transaction not found"} on every route for an unknown id', async () => {
      const c = fresh();
      await insert(c, { id: 'r1', a: 1 });
      for (const tx of ['2f1c6f4e-8a1b-4c3d-9e5f-0a1b2c3d4e5f', 'not-a-uuid']) {
        for (const [method, path, body] of routes(tx, c)) {
          const r = await t.request(method, path, body);
          expect(r.status, `${method} ${path}: ${r.text}`).to.equal(404);
          expect(errorBody(r), `${method} ${path}`).to.deep.equal({ error: 'Transaction not found' });
        }
      }
      expect(await value(c, 'r1', 'a')).to.equal(1);
    });

    it('answers 400 {"error":"Transaction has expired"} on every route after timeout_seconds, then 404 after cleanup', async () => {
      const c = fresh();
      await insert(c, { id: 'r1', a: 1 });
      const tx = await begin({ timeout_seconds: 10 });
      await t.request('PUT', `/api/update/${c}/r1?transaction_id=${tx}`, { a: 50 });
      t.clock.advance(9_000);
      expect((await status(tx)).status).to.equal(200);
      t.clock.advance(1_500);
      for (const [method, path, body] of routes(tx, c)) {
        const r = await t.request(method, path, body);
        expect(r.status, `${method} ${path}: ${r.text}`).to.equal(400);
        expect(errorBody(r), `${method} ${path}`).to.deep.equal({ error: 'Transaction has expired' });
      }
      const list = await t.request('GET', '/api/transactions');
      expect((list.body.transactions as Array<{ transaction_id: string }>).map((x) => x.transaction_id)).to.not.include(
        tx,
      );
      expect(t.server.db.transactions.cleanupExpired()).to.be.at.least(1);
      expectError(await status(tx), 404, 'Transaction not found');
      expectError(await commit(tx), 404, 'Transaction not found');
      expect(await value(c, 'r1', 'a')).to.equal(1);
    });

    it('counts the timeout from begin, not from the last statement', async () => {
      const c = fresh();
      const tx = await begin({ timeout_seconds: 10 });
      for (let i = 0; i < 3; i++) {
        t.clock.advance(4_000);
        const r = await t.request('POST', `/api/insert/${c}?transaction_id=${tx}`, { i });
        if (i < 2) expect(r.status, r.text).to.equal(201);
        else expectError(r, 400, 'Transaction has expired');
      }
    });
  });

  describe('isolation over HTTP', () => {
    async function account(c: string, balance: number): Promise<string> {
      return insert(c, { id: 'acct', balance });
    }

    async function readThenAdd(c: string, tx: string, amount: number): Promise<void> {
      const seen = (await value(c, 'acct', 'balance', tx)) as number;
      const r = await t.request('PUT', `/api/update/${c}/acct?transaction_id=${tx}`, { balance: seen + amount });
      expect(r.status, r.text).to.equal(200);
    }

    it('rejects a conflicting commit at ReadCommitted with 409 naming the record, applies nothing, and a retry succeeds', async () => {
      const c = fresh();
      await account(c, 100);
      const a = await begin({ isolation_level: 'ReadCommitted' });
      const b = await begin({ isolation_level: 'ReadCommitted' });
      await readThenAdd(c, a, 10);
      await readThenAdd(c, b, 20);
      await insert(c, { id: 'side-effect' }, b);
      expect((await commit(a)).status).to.equal(200);
      const r = await commit(b);
      expect(r.status, r.text).to.equal(409);
      expect(r.body.error)
        .to.be.a('string')
        .and.match(/conflict/i);
      expect(r.body.conflicts).to.be.an('array').with.length(1);
      expect(r.body.conflicts[0]).to.include({ collection: c, id: 'acct' });
      expect(await value(c, 'acct', 'balance')).to.equal(110);
      expect((await get(c, 'side-effect')).status).to.equal(404);
      const retry = await begin({ isolation_level: 'ReadCommitted' });
      await readThenAdd(c, retry, 20);
      expect((await commit(retry)).status).to.equal(200);
      expect(await value(c, 'acct', 'balance')).to.equal(130);
    });

    it('admits a lost update at ReadUncommitted: both commits succeed and the last writer wins', async () => {
      const c = fresh();
      await account(c, 100);
      const a = await begin({ isolation_level: 'ReadUncommitted' });
      const b = await begin({ isolation_level: 'ReadUncommitted' });
      await readThenAdd(c, a, 10);
      await readThenAdd(c, b, 10);
      expect((await commit(a)).status).to.equal(200);
      expect((await commit(b)).status).to.equal(200);
      expect(await value(c, 'acct', 'balance')).to.equal(110);
    });

    it('does not validate a write that a savepoint rollback undid', async () => {
      const c = fresh();
      await account(c, 100);
      const a = await begin({ isolation_level: 'ReadCommitted' });
      await insert(c, { id: 'kept' }, a);
      await savepoint(a, 'sp');
      await readThenAdd(c, a, 1);
      await rollbackTo(a, 'sp');
      await t.request('PUT', `/api/update/${c}/acct`, { balance: 500 });
      const r = await commit(a);
      expect(r.status, r.text).to.equal(200);
      expect(await value(c, 'acct', 'balance')).to.equal(500);
      expect((await get(c, 'kept')).status).to.equal(200);
    });

    it('rejects a Serializable commit when a queried collection gained a record (no phantoms)', async () => {
      const c = fresh();
      await insert(c, { id: 'd1', on_call: true });
      const tx = await begin({ isolation_level: 'Serializable' });
      expect(await ids(c, tx)).to.deep.equal(['d1']);
      await t.request('PUT', `/api/update/${c}/d1?transaction_id=${tx}`, { on_call: false });
      await insert(c, { id: 'd2', on_call: true });
      const r = await commit(tx);
      expect(r.status, r.text).to.equal(409);
      expect(await value(c, 'd1', 'on_call')).to.equal(true);
    });
  });
});
