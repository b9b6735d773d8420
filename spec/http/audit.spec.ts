/**
 * End-to-end specs of the transaction audit trail (product.md Events 2):
 * GET /api/admin/audit lists begin, commit, rollback, conflict, expiry and
 * savepoint events with timestamps and operation counts, for admin keys
 * only, and survives a crash that tore its last line.
 */
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { TestServer } from '../helpers/test-server.js';
import { removeDir, tempDir } from '../helpers/temp-dir.js';

let counter = 0;
const fresh = (prefix = 'audit'): string => `${prefix}_${++counter}`;

describe('http audit trail', () => {
  let t: TestServer;
  before(async () => {
    t = await TestServer.start();
  });
  after(async () => {
    await t.stop();
  });

  async function begin(body: Record<string, unknown> = {}): Promise<string> {
    const r = await t.request('POST', '/api/transactions', body);
    expect(r.status, r.text).to.equal(200);
    return r.body.transaction_id;
  }

  const commit = (tx: string) => t.request('POST', `/api/transactions/${tx}/commit`);
  const rollback = (tx: string) => t.request('POST', `/api/transactions/${tx}/rollback`);
  const savepoint = (tx: string, name: string) => t.request('POST', `/api/transactions/${tx}/savepoints`, { name });
  const rollbackTo = (tx: string, name: string) =>
    t.request('POST', `/api/transactions/${tx}/savepoints/${name}/rollback`);
  const release = (tx: string, name: string) => t.request('DELETE', `/api/transactions/${tx}/savepoints/${name}`);

  async function insert(c: string, body: Record<string, unknown>, tx?: string): Promise<string> {
    const r = await t.request('POST', `/api/insert/${c}${tx ? `?transaction_id=${tx}` : ''}`, body);
    expect(r.status, r.text).to.equal(201);
    return r.body.id;
  }

  describe('GET /api/admin/audit', () => {
    it('lists begin, savepoint, commit and rollback events with timestamps and operation counts', async () => {
      const c = fresh();
      const tx = await begin({ isolation_level: 'ReadCommitted' });
      await insert(c, { id: 'a1' }, tx);
      await savepoint(tx, 'sp');
      await insert(c, { id: 'a2' }, tx);
      await rollbackTo(tx, 'sp');
      await savepoint(tx, 'sp2');
      await release(tx, 'sp2');
      await commit(tx);
      const other = await begin();
      await insert(c, { id: 'a3' }, other);
      await rollback(other);

      const r = await t.request('GET', `/api/admin/audit?transaction_id=${tx}`);
      expect(r.status, r.text).to.equal(200);
      const events = (r.body.events as Array<Record<string, unknown>>).slice().reverse();
      expect(events.map((e) => e.event)).to.deep.equal([
        'begin',
        'savepoint_create',
        'savepoint_rollback',
        'savepoint_create',
        'savepoint_release',
        'commit',
      ]);
      expect(events.map((e) => e.operations_count)).to.deep.equal([0, 1, 1, 1, 1, 1]);
      for (const e of events) {
        expect(e.transaction_id).to.equal(tx);
        expect(e.isolation_level).to.equal('ReadCommitted');
        expect(new Date(e.timestamp as string).getTime()).to.equal(t.clock.now());
      }
      expect(events[1]!.savepoint).to.equal('sp');

      const all = await t.request('GET', '/api/admin/audit?limit=50');
      const mine = (all.body.events as Array<Record<string, unknown>>).filter((e) => e.transaction_id === other);
      expect(mine.map((e) => e.event)).to.deep.equal(['rollback', 'begin']);
      expect(mine[0]!.operations_count).to.equal(1);
    });

    it('records a conflicting commit and an expiry', async () => {
      const c = fresh();
      await insert(c, { id: 'x', v: 0 });
      const a = await begin({ isolation_level: 'ReadCommitted' });
      const b = await begin({ isolation_level: 'ReadCommitted', timeout_seconds: 5 });
      await t.request('PUT', `/api/update/${c}/x?transaction_id=${a}`, { v: 1 });
      await t.request('PUT', `/api/update/${c}/x`, { v: 2 });
      expect((await commit(a)).status).to.equal(409);
      t.clock.advance(6_000);
      t.server.db.transactions.cleanupExpired();
      const events = async (tx: string) =>
        ((await t.request('GET', `/api/admin/audit?transaction_id=${tx}`)).body.events as Array<{ event: string }>).map(
          (e) => e.event,
        );
      expect(await events(a)).to.deep.equal(['commit_conflict', 'begin']);
      expect(await events(b)).to.deep.equal(['expired', 'begin']);
    });

    it('keeps listing events, and the next one, after a crash left a torn line in the audit log', async () => {
      const dir = tempDir('eddydb-audit-');
      try {
        const first = await TestServer.start({ dataDir: dir });
        const a = (await first.request('POST', '/api/transactions', {})).body.transaction_id;
        await first.stop();
        appendFileSync(path.join(dir, 'audit.log'), '{"timestamp":"2026-01-01T00:00:00.000Z","event":"beg');
        const second = await TestServer.start({ dataDir: dir });
        const b = (await second.request('POST', '/api/transactions', {})).body.transaction_id;
        const r = await second.request('GET', '/api/admin/audit');
        await second.stop();
        expect(r.status, r.text).to.equal(200);
        expect((r.body.events as Array<{ transaction_id: string }>).map((e) => e.transaction_id)).to.deep.equal([b, a]);
      } finally {
        removeDir(dir);
      }
    });

    it('is for admin keys only: other keys get 403', async () => {
      const user = await t.userToken({ name: 'auditor' });
      const r = await t.request('GET', '/api/admin/audit', undefined, { token: user });
      expect(r.status, r.text).to.equal(403);
      expect(r.body.error).to.be.a('string');
      expect((await t.request('GET', '/api/admin/audit', undefined, { token: null })).status).to.equal(401);
    });

    it('answers 400 to a bad limit', async () => {
      for (const limit of ['0', 'abc', '1.5', '100000']) {
        expect((await t.request('GET', `/api/admin/audit?limit=${limit}`)).status).to.equal(400);
      }
    });
  });
});
