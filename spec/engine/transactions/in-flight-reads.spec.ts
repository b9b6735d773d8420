/**
 * A transaction that reads a record while a commit to it is in flight (logged,
 * its fsync not returned) waits for that commit and observes its result, rather
 * than a version already being replaced that would make its own commit conflict.
 */
import { expect } from 'chai';
import { Database } from '../../../lib/engine/index.js';
import { FaultyFs } from '../../helpers/faulty-fs.js';
import { tempDir, removeDir } from '../../helpers/temp-dir.js';

describe('engine/transactions reads of records with a commit in flight', () => {
  let dir: string;
  let fs: FaultyFs;
  let db: Database;
  let id: string;
  beforeEach(async () => {
    dir = tempDir();
    fs = new FaultyFs();
    db = await Database.open({ dataDir: dir, fs });
    id = await db.records.insert('accounts', { balance: 100 });
  });
  afterEach(async () => {
    await db.close();
    removeDir(dir);
  });

  const balance = (fields: Record<string, unknown>) => fields.balance as number;

  async function transfer(level: 'Serializable' | 'ReadCommitted' | 'ReadUncommitted', amount: number) {
    const tx = db.transactions.begin(level, undefined);
    const session = db.session(undefined, tx.id);
    await session.writesSettled('accounts', id);
    const before = balance(session.findById('accounts', id));
    await session.update('accounts', id, { balance: before + amount });
    return { tx, before };
  }

  it('waits for the commit in flight, then observes its result and commits', async () => {
    const first = await transfer('Serializable', -10);
    const release = fs.holdSyncs();
    const committing = db.transactions.commit(first.tx.id);
    await new Promise((r) => setTimeout(r, 20)); // the commit's group is now logged, its fsync held
    const second = db.transactions.begin('Serializable', undefined);
    const session = db.session(undefined, second.id);
    let settled = false;
    const waiting = session.writesSettled('accounts', id);
    expect(waiting, 'a commit to the record is in flight').to.be.instanceOf(Promise);
    void waiting!.then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(settled, 'still waiting while the fsync is held').to.equal(false);
    release();
    await committing;
    await waiting;
    const seen = balance(session.findById('accounts', id));
    expect(seen).to.equal(90);
    await session.update('accounts', id, { balance: seen + 5 });
    await db.transactions.commit(second.id);
    expect(balance(db.records.findById('accounts', id))).to.equal(95);
  });

  it('does not wait for a record nothing is writing, one already observed, or at ReadUncommitted', async () => {
    const tx = db.transactions.begin('Serializable', undefined);
    expect(db.session(undefined, tx.id).writesSettled('accounts', id)).to.equal(undefined);
    const other = await transfer('Serializable', 1);
    const release = fs.holdSyncs();
    const committing = db.transactions.commit(other.tx.id);
    await new Promise((r) => setTimeout(r, 20));
    const reader = db.transactions.begin('Serializable', undefined);
    db.session(undefined, reader.id).findById('accounts', id); // observed before: waiting would change nothing
    expect(db.session(undefined, reader.id).writesSettled('accounts', id)).to.equal(undefined);
    const dirty = db.transactions.begin('ReadUncommitted', undefined);
    expect(db.session(undefined, dirty.id).writesSettled('accounts', id)).to.equal(undefined);
    expect(db.session(undefined, tx.id).writesSettled('accounts', 'no such id')).to.equal(undefined);
    release();
    await committing;
  });

  it('lets a waiting read go on when the commit in flight fails', async () => {
    const first = await transfer('Serializable', -10);
    const release = fs.holdSyncs();
    fs.failSyncs = true;
    const committing = db.transactions.commit(first.tx.id).catch((err: unknown) => err);
    await new Promise((r) => setTimeout(r, 20));
    const second = db.transactions.begin('Serializable', undefined);
    const waiting = db.session(undefined, second.id).writesSettled('accounts', id);
    expect(waiting).to.be.instanceOf(Promise);
    release();
    expect(await committing).to.be.instanceOf(Error);
    await waiting; // settles: the failed group is told like an applied one
    fs.failSyncs = false;
  });
});
