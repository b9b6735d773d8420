/**
 * Correctness under concurrency, at the engine: the anomalies each isolation
 * level admits or prevents (product.md isolation rules 3-6), and savepoints.
 */
import { expect } from 'chai';
import { Database, ManualClock, parseQuery } from '../../../lib/engine/index.js';
import { Conflict, InvalidInput, NotFound } from '../../../lib/errors.js';
import { tempDir, removeDir } from '../../helpers/temp-dir.js';
import { rejection } from '../../helpers/rejection.js';

type Level = 'ReadUncommitted' | 'ReadCommitted' | 'RepeatableRead' | 'Serializable';

describe('engine/transactions isolation', () => {
  let dir: string;
  let db: Database;
  let clock: ManualClock;
  beforeEach(async () => {
    dir = tempDir();
    clock = new ManualClock();
    db = await Database.open({ dataDir: dir, clock });
  });
  afterEach(async () => {
    await db.close();
    removeDir(dir);
  });

  const txm = () => db.transactions;
  const balance = (id: string) => db.records.findById('accounts', id).balance as number;

  async function commitOrConflict(id: string): Promise<'committed' | 'conflict'> {
    try {
      await txm().commit(id);
      return 'committed';
    } catch (err) {
      if (err instanceof Conflict) return 'conflict';
      throw err;
    }
  }

  /** Two transactions read x, each writes x = read + 10; both try to commit. */
  async function lostUpdate(level: Level): Promise<{ final: number; outcomes: string[] }> {
    await db.records.insert('accounts', { id: 'x', balance: 100 });
    const a = txm().begin(level, undefined),
      b = txm().begin(level, undefined);
    const ra = txm().findById(a.id, 'accounts', 'x').balance as number;
    const rb = txm().findById(b.id, 'accounts', 'x').balance as number;
    txm().stageUpdate(a.id, 'accounts', 'x', { balance: ra + 10 });
    txm().stageUpdate(b.id, 'accounts', 'x', { balance: rb + 10 });
    const outcomes = [await commitOrConflict(a.id), await commitOrConflict(b.id)];
    return { final: balance('x'), outcomes };
  }

  it('admits a lost update at ReadUncommitted (last writer wins)', async () => {
    const { final, outcomes } = await lostUpdate('ReadUncommitted');
    expect(outcomes).to.deep.equal(['committed', 'committed']);
    expect(final).to.equal(110);
  });

  for (const level of ['ReadCommitted', 'RepeatableRead', 'Serializable'] as const) {
    it(`prevents a lost update at ${level}: the second commit is a 409 and applies nothing`, async () => {
      const { final, outcomes } = await lostUpdate(level);
      expect(outcomes).to.deep.equal(['committed', 'conflict']);
      expect(final).to.equal(110);
    });
  }

  /** Two doctors on call; each transaction checks (by query) that two are on call and takes itself off. */
  async function writeSkew(level: Level): Promise<number> {
    await db.records.insert('doctors', { id: 'alice', on_call: true });
    await db.records.insert('doctors', { id: 'bob', on_call: true });
    const onCall = parseQuery({ filter: { field: 'on_call', operator: 'Eq', value: true } });
    const a = txm().begin(level, undefined),
      b = txm().begin(level, undefined);
    expect(txm().find(a.id, 'doctors', onCall)).to.have.length(2);
    expect(txm().find(b.id, 'doctors', onCall)).to.have.length(2);
    txm().stageUpdate(a.id, 'doctors', 'alice', { on_call: false });
    txm().stageUpdate(b.id, 'doctors', 'bob', { on_call: false });
    await commitOrConflict(a.id);
    await commitOrConflict(b.id);
    return (await db.records.find('doctors', onCall)).length;
  }

  for (const level of ['ReadUncommitted', 'ReadCommitted', 'RepeatableRead'] as const) {
    it(`admits write skew at ${level}`, async () => {
      expect(await writeSkew(level)).to.equal(0);
    });
  }

  it('prevents write skew at Serializable', async () => {
    expect(await writeSkew('Serializable')).to.equal(1);
  });

  /** A transaction counts matching rows, another inserts a matching row and commits, the first writes and commits. */
  async function phantom(level: Level): Promise<'committed' | 'conflict'> {
    await db.records.insert('orders', { id: 'o1', total: 50 });
    const big = parseQuery({ filter: { field: 'total', operator: 'Gt', value: 10 } });
    const a = txm().begin(level, undefined);
    expect(txm().find(a.id, 'orders', big)).to.have.length(1);
    await db.records.insert('orders', { id: 'o2', total: 70 });
    txm().stageInsert(a.id, 'summary', { count: 1 });
    return commitOrConflict(a.id);
  }

  it('does not catch a phantom at RepeatableRead', async () => {
    expect(await phantom('RepeatableRead')).to.equal('committed');
  });

  it('catches a phantom at Serializable', async () => {
    expect(await phantom('Serializable')).to.equal('conflict');
  });

  it('rejects at RepeatableRead when a record read by id changed (non-repeatable read)', async () => {
    await db.records.insert('accounts', { id: 'x', balance: 1 });
    const a = txm().begin('RepeatableRead', undefined);
    txm().findById(a.id, 'accounts', 'x');
    await db.records.update('accounts', 'x', { balance: 2 });
    txm().stageInsert(a.id, 'log', { note: 'saw x' });
    expect(await commitOrConflict(a.id)).to.equal('conflict');
  });

  it('keeps the total under concurrent transfers at Serializable, retrying conflicts', async () => {
    const N = 5;
    for (let i = 0; i < N; i++) await db.records.insert('accounts', { id: `a${i}`, balance: 100 });
    let conflicts = 0;
    const transfer = async (from: string, to: string, amount: number) => {
      for (;;) {
        const t = txm().begin('Serializable', undefined);
        const f = txm().findById(t.id, 'accounts', from).balance as number;
        const g = txm().findById(t.id, 'accounts', to).balance as number;
        await new Promise((r) => setImmediate(r));
        txm().stageUpdate(t.id, 'accounts', from, { balance: f - amount });
        txm().stageUpdate(t.id, 'accounts', to, { balance: g + amount });
        if ((await commitOrConflict(t.id)) === 'committed') return;
        conflicts += 1;
      }
    };
    const jobs = Array.from({ length: 60 }, (_, k) =>
      transfer(`a${k % N}`, `a${((k % N) + 1 + (k % (N - 1))) % N}`, 1 + (k % 7)),
    );
    await Promise.all(jobs);
    const total = Array.from({ length: N }, (_, i) => balance(`a${i}`)).reduce((s, b) => s + b, 0);
    expect(total).to.equal(N * 100);
    expect(conflicts).to.be.greaterThan(0);
  });

  it('rewinds exactly to a savepoint, and later savepoints are dropped', async () => {
    const t = txm().begin('ReadCommitted', undefined);
    txm().stageInsert(t.id, 'items', { id: 'one' });
    await txm().createSavepoint(t.id, 'sp1');
    txm().stageInsert(t.id, 'items', { id: 'two' });
    await txm().createSavepoint(t.id, 'sp2');
    txm().stageUpdate(t.id, 'items', 'one', { touched: true });
    expect(await txm().rollbackToSavepoint(t.id, 'sp1')).to.equal(2);
    expect(txm().status(t.id).operations_count).to.equal(1);
    expect(await rejection(txm().rollbackToSavepoint(t.id, 'sp2'))).to.be.instanceOf(NotFound);
    expect(txm().findById(t.id, 'items', 'one').touched).to.equal(undefined);
    expect(() => txm().findById(t.id, 'items', 'two')).to.throw(NotFound);
    await txm().commit(t.id);
    expect(await db.records.count('items')).to.equal(1);
  });

  it('hides staged writes from other readers until commit, and shows them to its own reads', async () => {
    const t = txm().begin('ReadUncommitted', undefined);
    const id = txm().stageInsert(t.id, 'items', { name: 'staged' });
    expect(() => db.records.findById('items', id)).to.throw(NotFound);
    expect(txm().findById(t.id, 'items', id).name).to.equal('staged');
    expect(txm().find(t.id, 'items', parseQuery({}))).to.have.length(1);
    await txm().commit(t.id);
    expect(db.records.findById('items', id).name).to.equal('staged');
  });

  it('expires after timeout_seconds on the clock and is removed by the cleanup', async () => {
    const t = txm().begin(undefined, 10);
    clock.advance(11_000);
    expect(() => txm().get(t.id)).to.throw(InvalidInput, 'Transaction has expired');
    expect(txm().cleanupExpired()).to.equal(1);
    expect(() => txm().get(t.id)).to.throw(NotFound, 'Transaction not found');
  });

  it('uses the default_isolation_level setting and rejects unknown levels', async () => {
    expect(txm().begin(undefined, undefined).level).to.equal('ReadUncommitted');
    await db.updateSettings({ default_isolation_level: 'Serializable' });
    expect(txm().begin(undefined, undefined).level).to.equal('Serializable');
    expect(() => txm().begin('Snapshot' as Level, undefined)).to.throw(InvalidInput, 'Invalid isolation level');
  });

  it('commits as one durable unit that survives a restart', async () => {
    const t = txm().begin('Serializable', undefined);
    for (let i = 0; i < 50; i++) txm().stageInsert(t.id, 'bulk', { i });
    await txm().commit(t.id);
    await db.close();
    db = await Database.open({ dataDir: dir, clock });
    expect(await db.records.count('bulk')).to.equal(50);
  });
});
