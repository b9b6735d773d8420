/**
 * A memory-only Database (`memory: true`): everything a database does works
 * (records, batches, transactions, key-value, TTL on a ManualClock, text and
 * vector search), writes stay ordered and atomic, and nothing is written
 * anywhere: the working directory stays empty, no file descriptor stays open,
 * and the virtual directory of its small files is not on the disk.
 * Seeded ids are the same in two databases with one seed.
 */
import { existsSync, readdirSync } from 'node:fs';
import { expect } from 'chai';
import {
  Database,
  ManualClock,
  parseQuery,
  parseSearch,
  runSearch,
  type DatabaseOptions,
} from '../../lib/engine/index.js';
import { InvalidInput, NotFound, TransactionConflict, Unavailable } from '../../lib/errors.js';
import { rejection } from '../helpers/rejection.js';
import { removeDir, tempDir } from '../helpers/temp-dir.js';

const VECTORS = {
  fields: { embedding: { field_type: 'Vector', index: { type: 'vector', algorithm: 'hnsw', metric: 'cosine' } } },
};

/** The descriptors this process has open (Linux); undefined elsewhere. */
function openFiles(): number | undefined {
  return existsSync('/proc/self/fd') ? readdirSync('/proc/self/fd').length : undefined;
}

/** One of everything a database does, on `db`; returns what it read back. */
async function exercise(db: Database, clock: ManualClock): Promise<Record<string, unknown>> {
  const session = db.session(undefined);
  const ann = await db.records.insert('users', { name: 'Ann', city: 'Oslo' });
  await db.records.update('users', ann, { city: 'Bergen' });
  const bob = await db.records.insert('users', { name: 'Bob' });
  await db.records.delete('users', bob);
  const batch = await db.bulk.insertMany('users', [{ name: 'Cy' }, { name: 'Di' }]);

  const owner = { keyId: 'k', admin: false };
  const tx = db.session(owner, db.transactions.begin('ReadCommitted', undefined, owner.keyId).id);
  await tx.insert('orders', { id: 'o1', total: 5 });
  await tx.update('users', ann, { vip: true });
  const committed = await tx.commit();
  const rolledBack = db.session(owner, db.transactions.begin('ReadCommitted', undefined, owner.keyId).id);
  await rolledBack.insert('orders', { id: 'o2' });
  await rolledBack.rollback();

  await db.kv.set('greeting', 'hello');
  await db.kv.set('short', 'lived', '10s');
  await db.records.insert('sessions', { id: 's1', ttl: 60 });
  clock.advance(61_000);
  await db.records.expiry.sweep();
  await db.kv.sweep();

  await db.bulk.insertMany('docs', [
    { title: 'red shoes for running' },
    { title: 'blue hat' },
    { title: 'green shoes' },
  ]);
  const text = await runSearch(db, 'docs', parseSearch({ query: 'shoes' }));
  await db.collections.create('vecs', VECTORS);
  await db.bulk.insertMany('vecs', [
    { id: 'x', embedding: [1, 0, 0] },
    { id: 'y', embedding: [0, 1, 0] },
    { id: 'z', embedding: [0.9, 0.1, 0] },
  ]);
  const vector = await runSearch(db, 'vecs', parseSearch({ vector: [1, 0, 0], vector_k: 2 }));

  return {
    ann: db.records.findById('users', ann),
    bobGone: (() => {
      try {
        db.records.findById('users', bob);
        return false;
      } catch (err) {
        return err instanceof NotFound;
      }
    })(),
    batch: batch.successful.length,
    users: await session.count('users'),
    committed,
    orders: (await session.find('orders', parseQuery({}))).map((r) => r.id),
    greeting: db.kv.get('greeting'),
    short: db.kv.entry('short'),
    sessions: await session.count('sessions'),
    text: text.results.map((h) => h.record.title).sort(),
    vector: vector.results.map((h) => h.record.id),
  };
}

describe('engine: a memory-only database', () => {
  let cwd: string;
  let home: string;
  let db: Database | undefined;
  beforeEach(() => {
    home = process.cwd();
    cwd = tempDir('eddydb-memory-cwd-');
    process.chdir(cwd);
  });
  afterEach(async () => {
    await db?.close();
    db = undefined;
    process.chdir(home);
    removeDir(cwd);
  });

  it('does what a database does: records, batches, transactions, key-value, TTL, text and vector search', async () => {
    const clock = new ManualClock(Date.parse('2026-03-01T00:00:00Z'));
    db = await Database.open({ memory: true, clock });
    const seen = await exercise(db, clock);
    expect(seen.ann).to.include({ name: 'Ann', city: 'Bergen', vip: true });
    expect(seen).to.deep.include({
      bobGone: true,
      batch: 2,
      users: 3,
      committed: 2,
      orders: ['o1'],
      greeting: 'hello',
      short: undefined,
      sessions: 0,
      text: ['green shoes', 'red shoes for running'],
      vector: ['x', 'z'],
    });
  });

  it('writes nothing: the working directory stays empty, no descriptor stays open, no directory appears', async () => {
    // A first run loads what any run loads (modules, the vector addon), so the second measures the database alone.
    // At most: a socket of an earlier spec may still be closing meanwhile.
    const warm = await Database.open({ memory: true });
    await exercise(warm, new ManualClock());
    await warm.close({ snapshot: true });
    const before = openFiles();

    const clock = new ManualClock();
    db = await Database.open({ memory: true, clock });
    await exercise(db, clock);
    expect(await db.snapshot()).to.deep.equal({ name: 'memory', seq: db.state.seq, bytes: 0 });
    expect(openFiles() ?? 0, 'descriptors while open').to.be.at.most(before ?? 0);
    await db.close({ snapshot: true });
    db = undefined;

    expect(readdirSync(cwd)).to.deep.equal([]);
    expect(openFiles() ?? 0, 'descriptors after close').to.be.at.most(before ?? 0);
    expect(existsSync('/eddydb-memory')).to.equal(false);
  });

  it('says what it is: no data directory, durability memory, lock none, nothing recovered', async () => {
    db = await Database.open({ memory: true });
    expect(db.memory).to.equal(true);
    expect(db.dataDir).to.equal(undefined);
    expect(db.durability).to.equal('memory');
    expect(db.lockMechanism).to.equal('none');
    expect(db.recovery).to.include({ snapshot: null, replayedBatches: 0, droppedFrames: 0, salvaged: false });
    expect(db.replication.nodeId).to.be.a('string').with.length.above(0);
    expect(db.secrets.jwtKey).to.have.length(32);
  });

  it('refuses a data directory given with memory, saying which to drop', async () => {
    const options = { memory: true, dataDir: cwd } as unknown as DatabaseOptions;
    const err = await rejection(Database.open(options));
    expect(err.message).to.equal(
      'a memory-only database takes no dataDir: drop dataDir, or drop memory to keep data there',
    );
    expect(readdirSync(cwd)).to.deep.equal([]);
  });

  it('refuses to read its log for ripples, saying why', async () => {
    db = await Database.open({ memory: true });
    await db.records.insert('t', { a: 1 });
    const err = await rejection(db.readLog(0, 10));
    expect(err).to.be.instanceOf(Unavailable);
    expect(err.message).to.equal('ripples need a data directory; this database is memory-only');
  });

  it('keeps writes ordered and atomic: acknowledged in order, a refused write or commit leaves nothing', async () => {
    db = await Database.open({ memory: true });
    const order: number[] = [];
    const writes = Array.from({ length: 50 }, (_, n) => db!.records.insert('t', { n }).then(() => order.push(n)));
    const refused = db.write(() => {
      throw new InvalidInput('refused on purpose');
    });
    await Promise.all(writes);
    expect(await rejection(refused)).to.be.instanceOf(InvalidInput);
    expect(order).to.deep.equal(Array.from({ length: 50 }, (_, n) => n));

    const owner = { keyId: 'k', admin: false };
    const serial = db.session(owner, db.transactions.begin('Serializable', undefined, owner.keyId).id);
    expect(await serial.count('t')).to.equal(50);
    await serial.insert('staged', { id: 'a' });
    await serial.insert('staged', { id: 'b' });
    await db.records.insert('t', { n: 50 });
    expect(await rejection(serial.commit())).to.be.instanceOf(TransactionConflict);
    expect(db.state.collections.has('staged'), 'nothing of the failed commit').to.equal(false);
    expect(await db.session(undefined).count('t')).to.equal(51);
  });

  it('makes the same ids from the same seed in two databases, and other ids from another seed', async () => {
    const idsOf = async (seed: string) => {
      const one = await Database.open({ memory: true, idSeed: seed });
      try {
        const ids = [await one.records.insert('t', { a: 1 })];
        ids.push(...(await one.bulk.insertMany('t', [{ a: 2 }, { a: 3 }])).successful);
        return ids;
      } finally {
        await one.close();
      }
    };
    const first = await idsOf('fixture');
    expect(await idsOf('fixture')).to.deep.equal(first);
    const other = await idsOf('other');
    expect(other.filter((id) => first.includes(id))).to.deep.equal([]);
  });

  it('repeats the ids made after a save once the generator is loaded back', async () => {
    db = await Database.open({ memory: true, idSeed: 'repeat' });
    await db.records.insert('t', { a: 1 });
    const saved = db.ids.save();
    const after = [await db.records.insert('t', { a: 2 }), await db.records.insert('t', { a: 3 })];
    await db.records.delete('t', after[0]!);
    await db.records.delete('t', after[1]!);
    db.ids.load(saved);
    expect([await db.records.insert('t', { a: 2 }), await db.records.insert('t', { a: 3 })]).to.deep.equal(after);
  });

  it('shares nothing between two memory-only databases', async () => {
    db = await Database.open({ memory: true });
    const other = await Database.open({ memory: true });
    try {
      await db.records.insert('t', { id: 'only-here' });
      expect(other.state.collections.has('t')).to.equal(false);
      expect(other.secrets.jwtKey.equals(db.secrets.jwtKey)).to.equal(false);
    } finally {
      await other.close();
    }
  });
});
