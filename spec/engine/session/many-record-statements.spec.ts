/**
 * Statements over many records (filtered update, actions and delete, upsert,
 * all-or-nothing insert and delete of lists) on both sessions: auto-commit
 * makes each one durable batch, the transaction session stages one operation
 * per record and sees its own earlier writes. Either way a statement is all
 * or nothing.
 */
import { expect } from 'chai';
import {
  Database,
  parseFilter,
  parseQuery,
  type Fields,
  type Session,
  type TransactionSession,
} from '../../../lib/engine/index.js';
import { InvalidInput, NotFound, SchemaViolation } from '../../../lib/errors.js';
import { removeDir, tempDir } from '../../helpers/temp-dir.js';

const ALL = parseQuery({});
const ids = (rows: readonly Fields[]) => rows.map((r) => r.id);

describe('engine/session statements over many records', () => {
  let dir: string;
  let db: Database;
  beforeEach(async () => {
    dir = tempDir();
    db = await Database.open({ dataDir: dir });
  });
  afterEach(async () => {
    await db.close();
    removeDir(dir);
  });

  const committed = (c: string) => [...db.records.scan(c)];
  const seed = async (s: Session) => {
    await db.collections.create('scores', { fields: { score: { field_type: 'Integer', max: 10 } } });
    await s.insertAll('scores', [
      { id: 'a', team: 'x', score: 1 },
      { id: 'b', team: 'y', score: 2 },
      { id: 'c', team: 'x', score: 8 },
    ]);
  };

  describe('auto-commit', () => {
    let s: Session;
    beforeEach(() => {
      s = db.session(undefined);
    });

    it('updates every match in one batch and returns the new fields', async () => {
      await seed(s);
      const seq = db.state.seq;
      const out = await s.updateWhere('scores', parseFilter({ field: 'team', operator: 'Eq', value: 'x' }), {
        level: 'gold',
      });
      expect(ids(out)).to.deep.equal(['a', 'c']);
      expect(out.every((r) => r.level === 'gold' && r.team === 'x')).to.equal(true);
      expect(db.state.seq).to.equal(seq + 1);
      expect(committed('scores').filter((r) => r.level === 'gold')).to.have.length(2);
    });

    it('marks every effect of a statement that bypasses ripple', async () => {
      await seed(s);
      const batches: boolean[][] = [];
      db.queue.onCommit((b) => batches.push(b.effects.map((e) => 'noRipple' in e && e.noRipple === true)));
      await s.updateWhere('scores', undefined, { x: 1 }, true);
      await s.deleteAll('scores', ['a'], true);
      await s.insertAll('scores', [{ id: 'z' }], false);
      expect(batches).to.deep.equal([[true, true, true], [true], [false]]);
    });

    it('limits the matches and matches nothing in a missing collection', async () => {
      await seed(s);
      expect(ids(await s.updateWhere('scores', undefined, { n: 1 }, false, 1))).to.deep.equal(['a']);
      expect(await s.updateWhere('nowhere', undefined, { n: 1 })).to.deep.equal([]);
      expect(await s.deleteWhere('nowhere', undefined)).to.deep.equal([]);
    });

    it('changes nothing when the third match violates the schema', async () => {
      await seed(s);
      const before = committed('scores');
      const seq = db.state.seq;
      const err = await s
        .applyActionsWhere('scores', undefined, [{ action: 'increment', field: 'score', value: 3 }])
        .catch((e: unknown) => e);
      expect(err).to.be.instanceOf(SchemaViolation);
      expect(committed('scores')).to.deep.equal(before);
      expect(db.state.seq).to.equal(seq);
    });

    it('loses no update when many statements race (matched and changed inside the writer)', async () => {
      await s.insertAll('counters', [
        { id: 'a', kind: 'hits', n: 0 },
        { id: 'b', kind: 'hits', n: 0 },
      ]);
      const hits = parseFilter({ field: 'kind', operator: 'Eq', value: 'hits' });
      await Promise.all([
        ...Array.from({ length: 40 }, () =>
          s.applyActionsWhere('counters', hits, [{ action: 'increment', field: 'n', value: 1 }]),
        ),
        ...Array.from({ length: 10 }, (_, i) => s.insert('counters', { id: `new${i}`, kind: 'hits', n: 0 })),
      ]);
      const byId = new Map(committed('counters').map((r) => [r.id, r.n]));
      expect(byId.get('a')).to.equal(40);
      expect(byId.get('b')).to.equal(40);
      expect(byId.size).to.equal(12);
    });

    it('narrows matches through a query index, seeing the writes of its own group', async () => {
      await db.collections.create('orders');
      await db.collections.createIndex('orders', { field: 'state', type: 'hash' });
      await s.insertAll(
        'orders',
        Array.from({ length: 200 }, (_, i) => ({ id: `o${i}`, state: i % 50 === 0 ? 'new' : 'done' })),
      );
      // The first write runs alone; the ones queued while it is logged form one group, in which
      // the update must see the insert, the change and the delete staged before it.
      const first = s.insert('other', {});
      const staged = s.insert('orders', { id: 'late', state: 'new' });
      const moved = s.update('orders', 'o1', { state: 'new' });
      const gone = s.delete('orders', 'o50');
      const out = await s.updateWhere('orders', parseFilter({ field: 'state', operator: 'Eq', value: 'new' }), {
        state: 'paid',
      });
      await Promise.all([first, staged, moved, gone]);
      expect(ids(out)).to.deep.equal(['o0', 'o1', 'o100', 'o150', 'late']);
      expect(committed('orders').filter((r) => r.state === 'paid')).to.have.length(5);
    });

    it('keeps a unique field unique across the matches of one statement', async () => {
      await db.collections.create('u', { fields: { code: { field_type: 'String', unique: true } } });
      await s.insertAll('u', [{ id: 'a' }, { id: 'b' }]);
      const err = await s.updateWhere('u', undefined, { code: 'same' }).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(SchemaViolation);
      expect(committed('u').some((r) => r.code !== undefined)).to.equal(false);
    });

    it('deletes matches into the trash and returns them as they were', async () => {
      await seed(s);
      const gone = await s.deleteWhere('scores', parseFilter({ field: 'score', operator: 'Lt', value: 5 }));
      expect(gone.map((r) => [r.id, r.score])).to.deep.equal([
        ['a', 1],
        ['b', 2],
      ]);
      expect(ids(committed('scores'))).to.deep.equal(['c']);
      expect(db.trash.count('scores')).to.equal(2);
    });

    it('inserts a list all or nothing', async () => {
      const rows = await s.insertAll('people', [{ name: 'Ann' }, { name: 'Bob' }]);
      expect(rows.map((r) => r.name)).to.deep.equal(['Ann', 'Bob']);
      expect(rows[0]!.id).to.be.a('string');
      const err = await s
        .insertAll('people', [
          { id: 'n1', name: 'Cy' },
          { id: rows[0]!.id, name: 'dup' },
        ])
        .catch((e: unknown) => e);
      expect((err as Error).message).to.match(/already exists/);
      expect(committed('people')).to.have.length(2);
      expect(await s.insertAll('people', [{ id: 'x' }, 'not a record']).catch((e: unknown) => e)).to.be.instanceOf(
        InvalidInput,
      );
      expect(committed('people')).to.have.length(2);
    });

    it('deletes a list all or nothing, each record once, by id or alias', async () => {
      await db.collections.create('users', { fields: { email: { field_type: 'String' } } });
      await db.collections.setPrimaryKeyAlias('users', 'email');
      await s.insertAll('users', [
        { id: 'u1', email: 'a@x' },
        { id: 'u2', email: 'b@x' },
        { id: 'u3', email: 'c@x' },
      ]);
      const err = await s.deleteAll('users', ['u1', 'missing']).catch((e: unknown) => e);
      expect(err).to.be.instanceOf(NotFound);
      expect((err as Error).message).to.match(/'missing'/);
      expect(committed('users')).to.have.length(3);
      const gone = await s.deleteAll('users', ['u1', 'b@x', 'u1']);
      expect(ids(gone)).to.deep.equal(['u1', 'u2']);
      expect(ids(committed('users'))).to.deep.equal(['u3']);
    });

    it('upserts by id: updates a live record, inserts under the id otherwise', async () => {
      const [inserted] = await s.upsert('c', { id: 'k' }, { n: 1 });
      expect(inserted).to.deep.equal({ id: 'k', n: 1 });
      const [updated] = await s.upsert('c', { id: 'k' }, { m: 2 });
      expect(updated).to.deep.equal({ id: 'k', n: 1, m: 2 });
    });

    it('upserts by filter: updates every match, inserts the record when none', async () => {
      const f = parseFilter({ field: 'sku', operator: 'Eq', value: 'p1' });
      const [first] = await s.upsert('stock', { filter: f }, { sku: 'p1', qty: 1 });
      expect(first).to.include({ sku: 'p1', qty: 1 });
      const again = await s.upsert('stock', { filter: f }, { qty: 5 });
      expect(again.map((r) => [r.id, r.qty])).to.deep.equal([[first!.id, 5]]);
      expect(committed('stock')).to.have.length(1);
    });
  });

  describe('transaction', () => {
    let tx: TransactionSession;
    beforeEach(() => {
      tx = db.session(undefined, db.transactions.begin('ReadCommitted', undefined).id);
    });

    it('filtered writes see earlier staged writes; nothing is visible before commit', async () => {
      await tx.insert('t', { id: 'a', k: 1 });
      await tx.insert('t', { id: 'b', k: 2 });
      const out = await tx.updateWhere('t', parseFilter({ field: 'k', operator: 'Gte', value: 1 }), { seen: true });
      expect(ids(out)).to.deep.equal(['a', 'b']);
      expect(ids(await tx.deleteWhere('t', parseFilter({ field: 'k', operator: 'Eq', value: 2 })))).to.deep.equal([
        'b',
      ]);
      expect(committed('t')).to.deep.equal([]);
      expect(tx.status().operations_count).to.equal(5);
      await tx.commit();
      expect(committed('t')).to.deep.equal([{ id: 'a', k: 1, seen: true }]);
    });

    it('drops every operation of a statement that fails part way, keeping earlier statements', async () => {
      await seed(db.session(undefined));
      await tx.update('scores', 'b', { note: 'kept' });
      const err = await tx
        .applyActionsWhere('scores', undefined, [{ action: 'increment', field: 'score', value: 3 }])
        .catch((e: unknown) => e);
      expect(err).to.be.instanceOf(SchemaViolation);
      expect(tx.status().operations_count).to.equal(1);
      expect((await tx.find('scores', ALL)).map((r) => r.score)).to.deep.equal([1, 2, 8]);
      expect(tx.findById('scores', 'b')).to.include({ note: 'kept' });
      await tx.insert('scores', { id: 'd', score: 0 });
      expect(ids(await tx.find('scores', ALL))).to.deep.equal(['a', 'b', 'c', 'd']);
    });

    it('inserts and deletes lists all or nothing', async () => {
      const rows = await tx.insertAll('p', [
        { id: 'a', n: 1 },
        { id: 'b', n: 2 },
      ]);
      expect(ids(rows)).to.deep.equal(['a', 'b']);
      expect(await tx.insertAll('p', [{ id: 'c' }, { id: 'a' }]).catch((e: unknown) => e)).to.be.instanceOf(Error);
      expect(tx.status().operations_count).to.equal(2);
      expect(await tx.deleteAll('p', ['a', 'zz']).catch((e: unknown) => e)).to.be.instanceOf(NotFound);
      expect(ids(await tx.deleteAll('p', ['b', 'a', 'b']))).to.deep.equal(['b', 'a']);
      expect(await tx.find('p', ALL)).to.deep.equal([]);
    });

    it('upserts against its own view', async () => {
      await tx.upsert('c', { id: 'k' }, { n: 1 });
      expect(await tx.upsert('c', { id: 'k' }, { m: 2 })).to.deep.equal([{ id: 'k', n: 1, m: 2 }]);
      const f = parseFilter({ field: 'n', operator: 'Eq', value: 1 });
      expect(ids(await tx.upsert('c', { filter: f }, { o: 3 }))).to.deep.equal(['k']);
      await tx.commit();
      expect(committed('c')).to.deep.equal([{ id: 'k', n: 1, m: 2, o: 3 }]);
    });

    it('refuses an unknown transaction for every statement', async () => {
      tx.rollback();
      for (const p of [
        tx.updateWhere('t', undefined, {}),
        tx.deleteWhere('t', undefined),
        tx.insertAll('t', [{}]),
        tx.deleteAll('t', ['a']),
        tx.upsert('t', { id: 'a' }, {}),
        tx.applyActionsWhere('t', undefined, []),
      ]) {
        expect(await p.catch((e: unknown) => e)).to.be.instanceOf(NotFound);
      }
    });
  });
});
