/**
 * Serializable validates the predicates of its reads: a
 * find records (collection, filter), a search or an unfiltered find the
 * whole collection, a join its target collections; commit is rejected when
 * a record committed after the read matches a predicate before or after its
 * change. Covers the three anomalies the issue found (predicate write skew,
 * update into a predicate, write skew through search), the absence of false
 * positives for disjoint predicates, and the bounded change history.
 */
import { expect } from 'chai';
import { Database, ManualClock, parseQuery, parseSearch, runSearch } from '../../../lib/engine/index.js';
import { Conflict, type TransactionConflict } from '../../../lib/errors.js';
import { tempDir, removeDir } from '../../helpers/temp-dir.js';

type Level = 'ReadUncommitted' | 'ReadCommitted' | 'RepeatableRead' | 'Serializable';
type Outcome = 'committed' | 'conflict';

const eq = (field: string, value: unknown) => parseQuery({ filter: { field, operator: 'Eq', value } });

describe('engine/transactions predicate reads at Serializable', () => {
  let dir: string;
  let db: Database;
  const open = async (opts: { serializableHistoryLimit?: number } = {}) => {
    dir = tempDir();
    db = await Database.open({ dataDir: dir, clock: new ManualClock(), settings: { durability: 'none' }, ...opts });
  };
  beforeEach(() => open());
  afterEach(async () => {
    await db.close();
    removeDir(dir);
  });

  const txm = () => db.transactions;
  let lastConflict: Conflict | undefined;
  async function commitOrConflict(id: string): Promise<Outcome> {
    try {
      await txm().commit(id);
      return 'committed';
    } catch (err) {
      if (err instanceof Conflict) {
        lastConflict = err;
        return 'conflict';
      }
      throw err;
    }
  }
  const conflicts = () => (lastConflict as TransactionConflict).conflicts;
  const activeCount = async (c: string) => (await db.records.find(c, eq('active', true))).length;

  async function seedFlags(c: string, ids: string[]): Promise<void> {
    for (const id of ids) await db.records.insert(c, { id, active: false });
  }

  /** (a) Each transaction finds `active == true`, sees none, and activates a different record. */
  async function predicateWriteSkew(level: Level): Promise<Outcome[]> {
    await seedFlags('flags', ['a', 'b']);
    const t1 = txm().begin(level, undefined),
      t2 = txm().begin(level, undefined);
    expect(txm().find(t1.id, 'flags', eq('active', true))).to.deep.equal([]);
    expect(txm().find(t2.id, 'flags', eq('active', true))).to.deep.equal([]);
    txm().stageUpdate(t1.id, 'flags', 'a', { active: true });
    txm().stageUpdate(t2.id, 'flags', 'b', { active: true });
    return [await commitOrConflict(t1.id), await commitOrConflict(t2.id)];
  }

  it('rejects predicate write skew: the second activation conflicts, naming the record the first one changed', async () => {
    expect(await predicateWriteSkew('Serializable')).to.deep.equal(['committed', 'conflict']);
    expect(conflicts()).to.deep.include.members([{ collection: 'flags', id: 'a', reason: conflicts()[0]!.reason }]);
    expect(conflicts()[0]!.reason).to.match(/matches a query/);
    expect(await activeCount('flags')).to.equal(1);
  });

  it('still admits predicate write skew at RepeatableRead (phantoms remain possible there)', async () => {
    expect(await predicateWriteSkew('RepeatableRead')).to.deep.equal(['committed', 'committed']);
    expect(await activeCount('flags')).to.equal(2);
  });

  it('rejects an update that moves another record into the predicate after the read (b)', async () => {
    await db.records.insert('items', { id: 'r1', cat: 'x' });
    await db.records.insert('items', { id: 'r2', cat: 'y' });
    const t1 = txm().begin('Serializable', undefined);
    expect(
      txm()
        .find(t1.id, 'items', eq('cat', 'x'))
        .map((r) => r.id),
    ).to.deep.equal(['r1']);
    await db.records.update('items', 'r2', { cat: 'x' });
    txm().stageInsert(t1.id, 'summary', { cat: 'x', count: 1 });
    expect(await commitOrConflict(t1.id)).to.equal('conflict');
    expect(conflicts()).to.have.length(1);
    expect(conflicts()[0]).to.include({ collection: 'items', id: 'r2' });
    expect(await db.records.count('summary')).to.equal(0);
  });

  it('rejects an update that moves a record out of the predicate after the read', async () => {
    await db.records.insert('items', { id: 'r1', cat: 'x' });
    const t1 = txm().begin('Serializable', undefined);
    expect(txm().find(t1.id, 'items', eq('cat', 'x'))).to.have.length(1);
    await db.records.update('items', 'r1', { cat: 'y' });
    txm().stageInsert(t1.id, 'summary', { count: 1 });
    expect(await commitOrConflict(t1.id)).to.equal('conflict');
  });

  it('rejects a delete of a record that matched the predicate', async () => {
    await db.records.insert('items', { id: 'r1', cat: 'x' });
    const t1 = txm().begin('Serializable', undefined);
    txm().find(t1.id, 'items', eq('cat', 'x'));
    await db.records.delete('items', 'r1');
    txm().stageInsert(t1.id, 'summary', { count: 1 });
    expect(await commitOrConflict(t1.id)).to.equal('conflict');
    expect(conflicts()[0]).to.include({ collection: 'items', id: 'r1' });
  });

  it('rejects write skew through search: a search reads the whole collection (c)', async () => {
    await db.records.insert('rota', { id: 'ann', status: 'resting' });
    await db.records.insert('rota', { id: 'bo', status: 'resting' });
    const onDuty = parseSearch({ query: 'duty' });
    const t1 = txm().begin('Serializable', undefined),
      t2 = txm().begin('Serializable', undefined);
    expect((await runSearch(db, 'rota', onDuty, txm().recordsOf(t1.id, 'rota'))).results).to.deep.equal([]);
    expect((await runSearch(db, 'rota', onDuty, txm().recordsOf(t2.id, 'rota'))).results).to.deep.equal([]);
    txm().stageUpdate(t1.id, 'rota', 'ann', { status: 'on duty' });
    txm().stageUpdate(t2.id, 'rota', 'bo', { status: 'on duty' });
    expect([await commitOrConflict(t1.id), await commitOrConflict(t2.id)]).to.deep.equal(['committed', 'conflict']);
    expect(conflicts()[0]).to.include({ collection: 'rota', id: 'ann' });
    expect((await runSearch(db, 'rota', onDuty)).results).to.have.length(1);
  });

  it('does not conflict when a concurrent insert or update does not match the predicate', async () => {
    await db.records.insert('items', { id: 'r1', cat: 'x' });
    await db.records.insert('items', { id: 'r2', cat: 'y' });
    const t1 = txm().begin('Serializable', undefined);
    expect(txm().find(t1.id, 'items', eq('cat', 'x'))).to.have.length(1);
    await db.records.insert('items', { id: 'r3', cat: 'y' });
    await db.records.update('items', 'r2', { cat: 'z' });
    await db.records.delete('items', 'r3');
    txm().stageInsert(t1.id, 'summary', { cat: 'x', count: 1 });
    expect(await commitOrConflict(t1.id)).to.equal('committed');
  });

  it('treats an unfiltered find as a read of the whole collection', async () => {
    await db.records.insert('items', { id: 'r1', cat: 'x' });
    const t1 = txm().begin('Serializable', undefined);
    expect(txm().find(t1.id, 'items', parseQuery({}))).to.have.length(1);
    await db.records.update('items', 'r1', { note: 'touched' });
    txm().stageInsert(t1.id, 'summary', { count: 1 });
    expect(await commitOrConflict(t1.id)).to.equal('conflict');
    expect(conflicts()[0]).to.include({ collection: 'items', id: 'r1' });
  });

  it('treats a join as a read of the whole target collection', async () => {
    await db.records.insert('orders', { id: 'o1', customer: 'c1' });
    await db.records.insert('customers', { id: 'c1', name: 'Ada' });
    const t1 = txm().begin('Serializable', undefined);
    const joined = parseQuery({
      filter: { field: 'id', operator: 'Eq', value: 'o1' },
      join: { collections: ['customers'], local_field: 'customer', foreign_field: 'id', as_field: 'who' },
    });
    expect(txm().find(t1.id, 'orders', joined)).to.have.length(1);
    await db.records.insert('customers', { id: 'c2', name: 'Bea' });
    txm().stageUpdate(t1.id, 'orders', 'o1', { checked: true });
    expect(await commitOrConflict(t1.id)).to.equal('conflict');
    expect(conflicts()[0]).to.include({ collection: 'customers', id: 'c2' });
  });

  it('sees a matching change committed ahead of it in the same writer group', async () => {
    await seedFlags('flags', ['a', 'b']);
    const t1 = txm().begin('Serializable', undefined),
      t2 = txm().begin('Serializable', undefined);
    txm().find(t1.id, 'flags', eq('active', true));
    txm().find(t2.id, 'flags', eq('active', true));
    txm().stageUpdate(t1.id, 'flags', 'a', { active: true });
    txm().stageUpdate(t2.id, 'flags', 'b', { active: true });
    // The unrelated insert holds the writer, so both commits queue into the next group together.
    const busy = db.records.insert('other', { n: 1 });
    const outcomes = await Promise.all([
      commitOrConflict(t1.id),
      commitOrConflict(t2.id),
      busy.then(() => 'committed' as const),
    ]);
    expect(outcomes).to.deep.equal(['committed', 'conflict', 'committed']);
    expect(await activeCount('flags')).to.equal(1);
  });

  it('sees a matching version that a later commit in the same group overwrote', async () => {
    await seedFlags('flags', ['a']);
    const t1 = txm().begin('Serializable', undefined);
    txm().find(t1.id, 'flags', eq('active', true));
    txm().stageInsert(t1.id, 'log', { saw: 'none active' });
    const on = txm().begin('ReadCommitted', undefined),
      off = txm().begin('ReadUncommitted', undefined);
    txm().stageUpdate(on.id, 'flags', 'a', { active: true });
    txm().stageUpdate(off.id, 'flags', 'a', { active: false });
    const busy = db.records.insert('other', { n: 1 });
    const outcomes = await Promise.all([
      commitOrConflict(on.id),
      commitOrConflict(off.id),
      commitOrConflict(t1.id),
      busy.then(() => 'committed' as const),
    ]);
    expect(outcomes).to.deep.equal(['committed', 'committed', 'conflict', 'committed']);
    expect(conflicts()[0]).to.include({ collection: 'flags', id: 'a' });
  });

  it('conflicts when a queried collection is dropped after the read', async () => {
    await db.records.insert('items', { id: 'r1', cat: 'y' });
    const t1 = txm().begin('Serializable', undefined);
    txm().find(t1.id, 'items', eq('cat', 'x'));
    await db.collections.drop('items');
    txm().stageInsert(t1.id, 'summary', { count: 0 });
    expect(await commitOrConflict(t1.id)).to.equal('conflict');
    expect(conflicts()[0]).to.include({ collection: 'items' });
  });

  it('collapses many distinct predicates on one collection into a whole-collection read, staying correct', async () => {
    await db.records.insert('items', { id: 'r1', n: -1 });
    const t1 = txm().begin('Serializable', undefined);
    for (let i = 0; i < 200; i++) txm().find(t1.id, 'items', eq('n', i));
    await db.records.insert('items', { id: 'r2', n: 150 });
    txm().stageInsert(t1.id, 'summary', { count: 0 });
    expect(await commitOrConflict(t1.id)).to.equal('conflict');
  });

  it('fails the commit with 409 when the change history bound was exceeded since its read, and recovers after', async () => {
    await db.close();
    removeDir(dir);
    await open({ serializableHistoryLimit: 5 });
    await seedFlags('flags', ['a']);
    const t1 = txm().begin('Serializable', undefined);
    txm().find(t1.id, 'flags', eq('active', true));
    for (let i = 0; i < 10; i++) await db.records.insert('noise', { i });
    txm().stageUpdate(t1.id, 'flags', 'a', { active: true });
    expect(await commitOrConflict(t1.id)).to.equal('conflict');
    expect(conflicts()[0]!.collection).to.equal('flags');
    expect(conflicts()[0]!.reason).to.match(/history/);
    expect(await activeCount('flags')).to.equal(0);
    const retry = txm().begin('Serializable', undefined);
    txm().find(retry.id, 'flags', eq('active', true));
    txm().stageUpdate(retry.id, 'flags', 'a', { active: true });
    expect(await commitOrConflict(retry.id)).to.equal('committed');
  });

  it('keeps no change history once no Serializable transaction with predicate reads is open', async () => {
    await seedFlags('flags', ['a']);
    const t1 = txm().begin('Serializable', undefined),
      t2 = txm().begin('Serializable', undefined),
      t3 = txm().begin('Serializable', 1);
    for (const t of [t1, t2, t3]) txm().find(t.id, 'flags', eq('active', true));
    await db.records.insert('noise', { i: 1 });
    expect(txm().changeHistorySize).to.equal(1);
    await txm().commit(t1.id);
    txm().rollback(t2.id);
    expect(txm().changeHistorySize).to.be.greaterThan(0);
    (db.clock as ManualClock).advance(2000);
    txm().cleanupExpired();
    expect(txm().changeHistorySize).to.equal(0);
    await db.records.insert('noise', { i: 2 });
    expect(txm().changeHistorySize).to.equal(0);
  });
});
