/**
 * applyBatch (apply-batch.ts): how DbState stores applied effects — seq
 * order, version stamps, insertion order, the per-collection membership and
 * change seqs, the snapshot's undo log, and the replication origin.
 */
import { expect } from 'chai';
import { applyBatch } from '../../../lib/engine/write/apply-batch.js';
import type { Effect } from '../../../lib/engine/write/effects.js';
import { DbState } from '../../../lib/engine/write/state.js';

const meta = (name: string) => ({ name, createdAt: '2026-01-01T00:00:00.000Z' });
const put = (c: string, id: string, n: number): Effect => ({ kind: 'put', collection: c, id, fields: { id, n } });

describe('engine/apply-batch', () => {
  let state: DbState;
  beforeEach(() => {
    state = new DbState();
    applyBatch(state, {
      seq: 1,
      effects: [{ kind: 'createCollection', meta: meta('a') }, put('a', '1', 1), put('a', '2', 2)],
    });
  });
  const coll = () => state.collections.get('a')!;

  it('refuses a batch whose seq does not follow the state', () => {
    expect(() => applyBatch(state, { seq: 1, effects: [] })).to.throw(/must follow state seq 1/);
    expect(state.seq).to.equal(1);
  });

  it('stamps each record with the seq of the batch that wrote it and keeps its insertion order on update', () => {
    applyBatch(state, { seq: 2, effects: [put('a', '1', 10), put('a', '3', 3)] });
    const entries = [...coll().records].map(([id, e]) => [id, e.version, e.ord]);
    expect(entries).to.deep.equal([
      ['1', 2, 1],
      ['2', 1, 2],
      ['3', 2, 3],
    ]);
  });

  it('moves the membership seq on insert and delete only, and the change seq on every write', () => {
    applyBatch(state, { seq: 2, effects: [put('a', '1', 10)] });
    expect([coll().membershipVersion, coll().changeSeq]).to.deep.equal([1, 2]);
    applyBatch(state, { seq: 3, effects: [{ kind: 'delete', collection: 'a', id: '2' }] });
    expect([coll().membershipVersion, coll().changeSeq]).to.deep.equal([3, 3]);
    applyBatch(state, {
      seq: 4,
      effects: [{ kind: 'setCollectionMeta', meta: { ...meta('a'), indexes: [{ field: 'n', type: 'hash' }] } }],
    });
    expect([coll().membershipVersion, coll().changeSeq]).to.deep.equal([3, 4]);
  });

  it('gives a restored record a new version and a new place at the end', () => {
    applyBatch(state, { seq: 2, effects: [{ kind: 'delete', collection: 'a', id: '1', trashedAt: 50 }] });
    expect(state.trash.get('a')?.get('1')?.deletedAt).to.equal(50);
    applyBatch(state, { seq: 3, effects: [{ kind: 'restore', collection: 'a', id: '1' }] });
    expect(state.trash.get('a')?.has('1')).to.equal(false);
    expect([...coll().records].map(([id, e]) => [id, e.version, e.ord])).to.deep.equal([
      ['2', 1, 2],
      ['1', 3, 3],
    ]);
  });

  it('keeps the pre-image of each record written while a point-in-time reader is open, once, and the ids gone', () => {
    const reader = coll().openReader();
    applyBatch(state, {
      seq: 2,
      effects: [put('a', '1', 10), put('a', '1', 11), put('a', '9', 9), { kind: 'delete', collection: 'a', id: '2' }],
    });
    const undo = [...reader.before].map(([id, e]) => [id, e?.fields.n ?? null]);
    expect(undo).to.deep.equal([
      ['1', 1],
      ['9', null],
      ['2', 2],
    ]);
    expect(reader.gone).to.deep.equal(['2']);
    coll().closeReader(reader);
    applyBatch(state, { seq: 3, effects: [put('a', '1', 12)] });
    expect(reader.before.get('1')?.fields.n).to.equal(1);
  });

  it('remembers the origin seq of a batch from a replication peer', () => {
    applyBatch(state, { seq: 2, effects: [put('a', '5', 5)], origin: 'peer-1', originSeq: 40 });
    expect(state.rippleSeen.get('peer-1')).to.equal(40);
    expect(state.seq).to.equal(2);
  });

  it("drops a collection with its trash, and a kvDelete takes the key's links with it", () => {
    applyBatch(state, {
      seq: 2,
      effects: [
        { kind: 'delete', collection: 'a', id: '1', trashedAt: 1 },
        { kind: 'kvSet', key: 'k', value: 1 },
        { kind: 'kvLink', key: 'k', collection: 'a', id: '2' },
      ],
    });
    applyBatch(state, {
      seq: 3,
      effects: [
        { kind: 'dropCollection', name: 'a' },
        { kind: 'kvDelete', key: 'k' },
      ],
    });
    expect(state.collections.has('a')).to.equal(false);
    expect(state.trash.has('a')).to.equal(false);
    expect(state.kv.has('k')).to.equal(false);
    expect(state.kvLinks.has('k')).to.equal(false);
  });
});
