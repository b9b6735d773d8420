/**
 * The cached view of an open transaction (transactions/cached-view.ts): it
 * holds while the operation list and the collections those operations wrote
 * are unchanged, whatever is committed elsewhere.
 */
import { expect } from 'chai';
import { applyBatch } from '../../../lib/engine/write/apply-batch.js';
import type { Effect } from '../../../lib/engine/write/effects.js';
import { DbState } from '../../../lib/engine/write/state.js';
import { CachedView } from '../../../lib/engine/transactions/cached-view.js';
import { WorkingView } from '../../../lib/engine/write/working-view.js';
import { Database, ManualClock, parseQuery } from '../../../lib/engine/index.js';
import { tempDir, removeDir } from '../../helpers/temp-dir.js';

const meta = (name: string) => ({ name, createdAt: '2026-01-01T00:00:00.000Z' });
const put = (c: string, id: string, n: number): Effect => ({ kind: 'put', collection: c, id, fields: { id, n } });

describe('engine/transactions cached view', () => {
  describe('CachedView', () => {
    let state: DbState;
    const commit = (...effects: Effect[]) => applyBatch(state, { seq: state.seq + 1, effects });
    /** A view whose operations (the token `ops`) wrote collection `a`. */
    const viewWritingA = (ops: object) => {
      const cached = new CachedView(state, new WorkingView(state, state.seq + 1), ops);
      cached.cover('a');
      return cached;
    };

    beforeEach(() => {
      state = new DbState();
      commit(
        { kind: 'createCollection', meta: meta('a') },
        { kind: 'createCollection', meta: meta('b') },
        put('a', '1', 1),
      );
    });

    it('stays current across commits to a collection the operations did not write', () => {
      const ops = {};
      const cached = viewWritingA(ops);
      commit(put('b', '1', 1));
      commit({ kind: 'createCollection', meta: meta('c') }, put('c', '1', 1));
      commit({ kind: 'kvSet', key: 'k', value: 1 });
      expect(cached.isCurrent(ops)).to.equal(true);
    });

    for (const [what, effect] of [
      ['a record inserted', put('a', '2', 2)],
      ['a record updated', put('a', '1', 5)],
      ['a record deleted', { kind: 'delete', collection: 'a', id: '1', trashedAt: 0 }],
      [
        'its meta changed',
        { kind: 'setCollectionMeta', meta: { ...meta('a'), indexes: [{ field: 'n', type: 'hash' }] } },
      ],
      ['the collection dropped', { kind: 'dropCollection', name: 'a' }],
    ] as Array<[string, Effect]>) {
      it(`goes stale when a collection the operations wrote has ${what}`, () => {
        const ops = {};
        const cached = viewWritingA(ops);
        commit(effect);
        expect(cached.isCurrent(ops)).to.equal(false);
      });
    }

    it('goes stale when a collection the operations wrote, absent at replay, is created', () => {
      const ops = {};
      const cached = new CachedView(state, new WorkingView(state, state.seq + 1), ops);
      cached.cover('new');
      expect(cached.isCurrent(ops)).to.equal(true);
      commit({ kind: 'createCollection', meta: meta('new') });
      expect(cached.isCurrent(ops)).to.equal(false);
    });

    it('goes stale when the collection is dropped and created again', () => {
      const ops = {};
      const cached = viewWritingA(ops);
      commit({ kind: 'dropCollection', name: 'a' });
      commit({ kind: 'createCollection', meta: meta('a') });
      expect(cached.isCurrent(ops)).to.equal(false);
    });

    it('is current only for the operation list it replayed; extend adopts a longer one', () => {
      const ops = {},
        longer = {};
      const cached = viewWritingA(ops);
      expect(cached.isCurrent(longer)).to.equal(false);
      cached.extend(longer, 'b');
      expect(cached.isCurrent(longer)).to.equal(true);
      expect(cached.isCurrent(ops)).to.equal(false);
      commit(put('b', '2', 2));
      expect(cached.isCurrent(longer)).to.equal(false);
    });
  });

  describe('in a transaction', () => {
    let dir: string;
    let db: Database;
    beforeEach(async () => {
      dir = tempDir();
      db = await Database.open({ dataDir: dir, clock: new ManualClock() });
    });
    afterEach(async () => {
      await db.close();
      removeDir(dir);
    });

    const cachedOf = (txId: string) => db.transactions.get(txId).view;

    it('keeps its view across a commit to another collection, and sees that commit', async () => {
      await db.records.insert('other', { id: 'o1', n: 1 });
      const tx = db.transactions.begin('ReadCommitted', undefined);
      db.transactions.stageInsert(tx.id, 'mine', { id: 'm1', n: 1 });
      const before = cachedOf(tx.id);
      expect(before).to.not.equal(undefined);
      await db.records.insert('other', { id: 'o2', n: 2 });
      const seen = db.transactions.find(tx.id, 'other', parseQuery({})).map((r) => r.id);
      expect(seen).to.deep.equal(['o1', 'o2']);
      expect(db.transactions.findById(tx.id, 'mine', 'm1').n).to.equal(1);
      expect(cachedOf(tx.id)).to.equal(before);
    });

    it('replays its operations after a commit to a collection it wrote', async () => {
      await db.records.insert('mine', { id: 'm1', n: 1, tag: 'x' });
      const tx = db.transactions.begin('ReadUncommitted', undefined);
      db.transactions.stageUpdate(tx.id, 'mine', 'm1', { n: 2 });
      const before = cachedOf(tx.id);
      await db.records.update('mine', 'm1', { tag: 'y' });
      // The staged merge is replayed onto the newly committed record.
      expect(db.transactions.findById(tx.id, 'mine', 'm1')).to.include({ n: 2, tag: 'y' });
      expect(cachedOf(tx.id)).to.not.equal(before);
    });

    it('drops a staged insert whose id another commit took meanwhile', async () => {
      const tx = db.transactions.begin('ReadUncommitted', undefined);
      db.transactions.stageInsert(tx.id, 'mine', { id: 'm1', n: 1 });
      await db.records.insert('mine', { id: 'm1', n: 9 });
      expect(db.transactions.findById(tx.id, 'mine', 'm1').n).to.equal(9);
    });
  });
});
