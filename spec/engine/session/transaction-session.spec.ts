/**
 * The transaction session, directly on a Database: staged writes, read your
 * own writes, ownership checked when the session opens, savepoints, commit
 * and rollback.
 */
import { expect } from 'chai';
import {
  Database,
  isTransactionSession,
  ManualClock,
  parseFilter,
  parseQuery,
  parseSearch,
  type TransactionSession,
} from '../../../lib/engine/index.js';
import { InvalidInput, MESSAGES, NotFound, TransactionConflict } from '../../../lib/errors.js';
import { removeDir, tempDir } from '../../helpers/temp-dir.js';
import { rejection } from '../../helpers/rejection.js';

describe('engine/session transaction', () => {
  const ann = { keyId: 'ann', admin: false };
  const bob = { keyId: 'bob', admin: false };
  let dir: string;
  let db: Database;
  let clock: ManualClock;
  let tx: TransactionSession;
  beforeEach(async () => {
    dir = tempDir();
    clock = new ManualClock();
    db = await Database.open({ dataDir: dir, clock });
    tx = db.session(ann, db.transactions.begin('ReadCommitted', undefined, ann.keyId).id);
  });
  afterEach(async () => {
    await db.close();
    removeDir(dir);
  });

  it('is a transaction session naming its transaction', () => {
    expect(isTransactionSession(tx)).to.equal(true);
    expect(isTransactionSession(db.session(ann))).to.equal(false);
  });

  it('reads its own writes; nobody else sees them before commit', async () => {
    const id = await tx.insert('users', { name: 'Ann', visits: 1 });
    expect(tx.findById('users', id)).to.include({ name: 'Ann' });
    expect(await tx.find('users', parseQuery({}))).to.have.length(1);
    expect(() => db.session(undefined).findById('users', id)).to.throw(NotFound);
    await tx.update('users', id, { name: 'Annie' });
    expect(await tx.applyActions('users', id, [{ action: 'increment', field: 'visits', value: 1 }])).to.include({
      name: 'Annie',
      visits: 2,
    });
    expect(tx.status().operations_count).to.equal(3);
    expect(await tx.commit()).to.equal(3);
    expect(db.records.findById('users', id)).to.include({ name: 'Annie', visits: 2 });
  });

  it('searches its own records, staged ones included', async () => {
    await db.session(undefined).insert('docs', { id: 'a', title: 'red shoes' });
    await tx.insert('docs', { id: 'b', title: 'blue shoes' });
    await tx.delete('docs', 'a');
    const { results } = await tx.search('docs', parseSearch({ query: 'shoes' }));
    expect(results.map((r) => r.record.id)).to.deep.equal(['b']);
  });

  it('counts and lists distinct values over its own view, staged writes included', async () => {
    await db.session(undefined).insert('users', { id: 'a', city: 'Oslo', age: 30 });
    await tx.insert('users', { id: 'b', city: 'Bergen', age: 20 });
    await tx.delete('users', 'a');
    expect(await tx.count('users')).to.equal(1);
    expect(await db.session(undefined).count('users')).to.equal(1);
    expect(await tx.distinct('users', 'city')).to.deep.equal(['Bergen']);
    expect(await tx.distinct('users', 'city', parseFilter({ field: 'age', operator: 'Gt', value: 25 }))).to.deep.equal(
      [],
    );
    expect(await rejection(tx.distinct('users', ''))).to.be.instanceOf(InvalidInput);
  });

  it('fails a Serializable commit after a concurrent insert into a collection it counted', async () => {
    const serial = db.session(ann, db.transactions.begin('Serializable', undefined, ann.keyId).id);
    expect(await serial.count('users')).to.equal(0);
    await serial.insert('audit', { note: 'saw no users' });
    await db.session(undefined).insert('users', { id: 'z' });
    expect(await rejection(serial.commit())).to.be.instanceOf(TransactionConflict);
  });

  it('refuses another key with the message of an unknown transaction, and lets an admin in', async () => {
    expect(() => db.session(bob, tx.transactionId)).to.throw(NotFound, MESSAGES.transactionNotFound);
    const admin = db.session({ keyId: 'root', admin: true }, tx.transactionId);
    await admin.insert('users', { id: 'x' });
    expect(tx.findById('users', 'x')).to.include({ id: 'x' });
  });

  it('reports an unknown transaction at its first statement, and an expired one as invalid', async () => {
    const ghost = db.session(ann, 'no-such-transaction');
    expect(() => ghost.findById('users', 'x')).to.throw(NotFound, MESSAGES.transactionNotFound);
    const short = db.session(ann, db.transactions.begin('ReadCommitted', 1, ann.keyId).id);
    clock.advance(5_000);
    expect(() => short.status()).to.throw(InvalidInput, MESSAGES.transactionExpired);
  });

  it('rolls back to a savepoint, releases one, and rolls the whole transaction back', async () => {
    await tx.insert('users', { id: 'a' });
    expect(await tx.savepoint('sp1')).to.equal('sp1');
    await tx.insert('users', { id: 'b' });
    await tx.insert('users', { id: 'c' });
    expect(await tx.rollbackTo('sp1')).to.equal(2);
    expect(() => tx.findById('users', 'b')).to.throw(NotFound);
    await tx.release('sp1');
    const gone = await rejection(tx.rollbackTo('sp1'));
    expect(gone).to.be.instanceOf(NotFound);
    expect(gone.message).to.equal("Savepoint 'sp1' not found");
    expect(tx.rollback()).to.equal(1);
    expect(() => tx.status()).to.throw(NotFound, MESSAGES.transactionNotFound);
    expect(await db.records.count('users')).to.equal(0);
  });

  it('stages many writes, reporting a failing item alone', async () => {
    await tx.insert('users', { id: 'a' });
    const res = await tx.writeMany('users', [
      { kind: 'update', id: 'a', body: { name: 'Ann' } },
      { kind: 'update', id: 'missing', body: { name: 'X' } },
      { kind: 'delete', id: 'a' },
    ]);
    expect(res.successful).to.deep.equal(['a', 'a']);
    expect(res.failed).to.deep.equal([{ index: 1, id: 'missing', error: MESSAGES.recordNotFound }]);
  });

  it('fails a whole batch for an unknown transaction', async () => {
    const ghost = db.session(ann, 'no-such-transaction');
    let err: unknown;
    try {
      await ghost.writeMany('users', [{ kind: 'insert', body: {} }]);
    } catch (e) {
      err = e;
    }
    expect(err).to.be.instanceOf(NotFound);
  });
});
