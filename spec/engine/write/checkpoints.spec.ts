/**
 * Database checkpoints (checkpoints.ts) with everything derived from the
 * state following a restore: query indexes, unique checks, text and vector
 * search, TTL tracking, open transactions, point-in-time readers; and
 * durability with a data directory (the restored state survives a restart).
 */
import { expect } from 'chai';
import { Database, ManualClock, parseQuery, parseSearch, runSearch } from '../../../lib/engine/index.js';
import { Conflict, InvalidInput, NotFound } from '../../../lib/errors.js';
import { rejection } from '../../helpers/rejection.js';
import { removeDir, tempDir } from '../../helpers/temp-dir.js';

const cities = async (db: Database, city: string): Promise<string[]> =>
  (
    await db
      .session(undefined)
      .find(
        'people',
        parseQuery({ filter: { type: 'Condition', content: { field: 'city', operator: 'Eq', value: city } } }),
      )
  )
    .map((r) => String(r.name))
    .sort();

describe('engine/checkpoints', () => {
  let db: Database;
  let clock: ManualClock;
  beforeEach(async () => {
    clock = new ManualClock(Date.parse('2030-01-01T00:00:00Z'));
    db = await Database.open({ memory: true, clock });
  });
  afterEach(() => db.close());

  it('keeps query indexes true to the restored records', async () => {
    await db.collections.create('people');
    await db.collections.createIndex('people', { field: 'city', type: 'hash' });
    const ann = await db.records.insert('people', { name: 'Ann', city: 'Oslo' });
    const bob = await db.records.insert('people', { name: 'Bob', city: 'Oslo' });
    const checkpoint = db.checkpoints.take();
    await db.records.update('people', ann, { city: 'Bergen' });
    await db.records.delete('people', bob);
    await db.records.insert('people', { name: 'Cy', city: 'Oslo' });
    expect(await cities(db, 'Oslo')).to.deep.equal(['Cy']);

    await db.checkpoints.restore(checkpoint);
    expect(await cities(db, 'Oslo')).to.deep.equal(['Ann', 'Bob']);
    expect(await cities(db, 'Bergen')).to.deep.equal([]);
    expect(db.records.findById('people', bob).name).to.equal('Bob');
  });

  it('keeps unique checks true to the restored records', async () => {
    await db.collections.create('users', { fields: { email: { field_type: 'String', unique: true } } });
    const ann = await db.records.insert('users', { email: 'ann@x' });
    const checkpoint = db.checkpoints.take();
    await db.records.insert('users', { email: 'new@x' });
    await db.records.update('users', ann, { email: 'changed@x' });
    await db.checkpoints.restore(checkpoint);
    await db.records.insert('users', { email: 'new@x' });
    expect(await rejection(db.records.insert('users', { email: 'ann@x' }))).to.match(/unique/i);
    await db.records.insert('users', { email: 'changed@x' });
  });

  it('keeps text and vector search true to the restored records', async () => {
    await db.bulk.insertMany('docs', [{ title: 'red shoes' }, { title: 'blue hat' }]);
    const shoes = async () =>
      (await runSearch(db, 'docs', parseSearch({ query: 'shoes' }))).results.map((h) => h.record.title).sort();
    expect(await shoes()).to.deep.equal(['red shoes']);
    const checkpoint = db.checkpoints.take();
    await db.records.insert('docs', { title: 'green shoes' });
    expect(await shoes()).to.deep.equal(['green shoes', 'red shoes']);
    await db.collections.drop('docs');
    await db.checkpoints.restore(checkpoint);
    expect(await shoes()).to.deep.equal(['red shoes']);

    await db.collections.create('vecs', {
      fields: { embedding: { field_type: 'Vector', index: { type: 'vector', algorithm: 'hnsw', metric: 'cosine' } } },
    });
    await db.bulk.insertMany('vecs', [
      { id: 'x', embedding: [1, 0, 0] },
      { id: 'y', embedding: [0, 1, 0] },
    ]);
    const nearest = async () =>
      (await runSearch(db, 'vecs', parseSearch({ vector: [1, 0, 0], vector_k: 1 }))).results.map((h) => h.record.id);
    expect(await nearest()).to.deep.equal(['x']);
    const second = db.checkpoints.take();
    await db.records.insert('vecs', { id: 'w', embedding: [1, 0, 0.01] });
    await db.records.delete('vecs', 'x');
    expect(await nearest()).to.deep.equal(['w']);
    await db.checkpoints.restore(second);
    expect(await nearest()).to.deep.equal(['x']);
  });

  it('keeps TTL tracking true: a restored record with a TTL still expires and is swept', async () => {
    const id = await db.records.insert('sessions', { user: 'ann', ttl: 60 });
    const checkpoint = db.checkpoints.take();
    await db.records.delete('sessions', id);
    await db.records.insert('sessions', { user: 'bob', ttl: 30 });
    await db.checkpoints.restore(checkpoint);
    expect(await db.session(undefined).count('sessions')).to.equal(1);
    clock.advance(61_000);
    expect(await db.records.expiry.sweep()).to.equal(1);
    expect(db.state.collections.get('sessions')!.records.size).to.equal(0);
  });

  it('rolls back open transactions, so their commit fails instead of writing over the restored state', async () => {
    const checkpoint = db.checkpoints.take();
    const tx = db.transactions.begin('ReadCommitted', undefined);
    const session = db.session(undefined, tx.id);
    await session.insert('orders', { id: 'o1' });
    await db.checkpoints.restore(checkpoint);
    expect(await rejection(session.commit())).to.be.instanceOf(NotFound);
    expect(db.state.collections.has('orders')).to.equal(false);
  });

  it('answers finds in insertion order after a record deleted since the checkpoint is set back', async () => {
    await db.bulk.insertMany('t', [{ id: 'a' }, { id: 'b' }, { id: 'c' }]);
    const checkpoint = db.checkpoints.take();
    await db.records.delete('t', 'a');
    await db.checkpoints.restore(checkpoint);
    const ids = async () => (await db.session(undefined).find('t', parseQuery({}))).map((r) => r.id);
    expect(await ids()).to.deep.equal(['a', 'b', 'c']);
    await db.records.insert('t', { id: 'd' });
    await db.records.update('t', 'a', { n: 1 });
    expect(await ids()).to.deep.equal(['a', 'b', 'c', 'd']);
    expect([...db.records.scan('t')].map((r) => r.id)).to.deep.equal(['a', 'b', 'c', 'd']);
    await db.records.delete('t', 'a');
    await db.records.insert('t', { id: 'a' });
    expect(await ids()).to.deep.equal(['b', 'c', 'd', 'a']);
  });

  it('refuses a checkpoint of another database, a released one, and one discarded by an older restore', async () => {
    const other = await Database.open({ memory: true });
    try {
      expect(() => other.checkpoints.restore(db.checkpoints.take())).to.throw(InvalidInput, /another database/);
    } finally {
      await other.close();
    }
    const first = db.checkpoints.take();
    await db.records.insert('t', { n: 1 });
    const second = db.checkpoints.take();
    await db.checkpoints.restore(first);
    expect(() => db.checkpoints.restore(second)).to.throw(Conflict, /discarded when an older checkpoint/);
    db.checkpoints.release(first);
    expect(() => db.checkpoints.restore(first)).to.throw(Conflict, /released/);
  });

  it('journals only while a checkpoint is held, and forgets what the oldest held one does not need', async () => {
    await db.records.insert('t', { n: 1 });
    expect(db.checkpoints.journalSize).to.equal(0);
    const first = db.checkpoints.take();
    await db.records.insert('t', { n: 2 });
    const second = db.checkpoints.take();
    await db.records.insert('t', { n: 3 });
    const held = db.checkpoints.journalSize;
    db.checkpoints.release(first);
    expect(db.checkpoints.journalSize).to.be.below(held);
    db.checkpoints.release(second);
    expect(db.checkpoints.journalSize).to.equal(0);
    await db.records.insert('t', { n: 4 });
    expect(db.checkpoints.journalSize).to.equal(0);
  });
});

describe('engine/checkpoints with a data directory', () => {
  let dir: string;
  beforeEach(() => (dir = tempDir('eddydb-checkpoints-')));
  afterEach(() => removeDir(dir));

  it('makes a restore durable: after a restart the restored state is what comes back, writes after it too', async () => {
    const db = await Database.open({ dataDir: dir });
    await db.bulk.insertMany('t', [{ id: 'a' }, { id: 'b' }]);
    const checkpoint = db.checkpoints.take();
    await db.records.delete('t', 'a');
    await db.records.insert('t', { id: 'c' });
    await db.checkpoints.restore(checkpoint);
    await db.records.insert('t', { id: 'd' });
    await db.close();

    const again = await Database.open({ dataDir: dir });
    try {
      expect([...again.state.collections.get('t')!.records.keys()]).to.deep.equal(['a', 'b', 'd']);
    } finally {
      await again.close();
    }
  });
});
