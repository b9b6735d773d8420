/**
 * WorkingView (working-view.ts): the writer's view of committed state plus
 * the group's staged effects. Committed state never changes through it;
 * reads see staged writes over committed ones; a fork can be discarded.
 */
import { expect } from 'chai';
import { applyBatch } from '../../../lib/engine/write/apply-batch.js';
import type { Effect } from '../../../lib/engine/write/effects.js';
import { DbState } from '../../../lib/engine/write/state.js';
import { WorkingView } from '../../../lib/engine/write/working-view.js';

const meta = (name: string) => ({ name, createdAt: '2026-01-01T00:00:00.000Z' });
const put = (c: string, id: string, n: number): Effect => ({ kind: 'put', collection: c, id, fields: { id, n } });
const ids = (v: WorkingView, c: string) => [...v.records(c)].map(([id]) => id);

describe('engine/working-view', () => {
  let state: DbState;
  let view: WorkingView;
  beforeEach(() => {
    state = new DbState();
    applyBatch(state, {
      seq: 1,
      effects: [{ kind: 'createCollection', meta: meta('a') }, put('a', '1', 1), put('a', '2', 2), put('a', '3', 3)],
    });
    view = new WorkingView(state, 2);
  });

  it('reads committed state while nothing is staged', () => {
    expect(view.record('a', '1')?.fields).to.deep.equal({ id: '1', n: 1 });
    expect(ids(view, 'a')).to.deep.equal(['1', '2', '3']);
    expect(view.collectionNames()).to.deep.equal(['a']);
  });

  it('shows staged writes over committed ones and leaves the committed state alone', () => {
    view.stage([put('a', '2', 20), { kind: 'delete', collection: 'a', id: '3', trashedAt: 5 }, put('a', '4', 4)]);
    expect(view.record('a', '2')?.fields.n).to.equal(20);
    expect(view.record('a', '3')).to.equal(undefined);
    expect(view.trashed('a', '3')?.deletedAt).to.equal(5);
    expect(ids(view, 'a'), 'committed order first, new records after').to.deep.equal(['1', '2', '4']);
    expect([...state.collections.get('a')!.records.keys()]).to.deep.equal(['1', '2', '3']);
    expect(state.collections.get('a')!.records.get('2')?.fields.n).to.equal(2);
    expect(state.trash.size).to.equal(0);
  });

  it('hides the committed records of a collection dropped in the group, also once it is created again', () => {
    view.stage([{ kind: 'dropCollection', name: 'a' }]);
    expect(view.collection('a')).to.equal(undefined);
    expect(view.collectionNames()).to.deep.equal([]);
    view.stage([{ kind: 'createCollection', meta: meta('a') }, put('a', '9', 9)]);
    expect(ids(view, 'a')).to.deep.equal(['9']);
    expect(view.record('a', '1')).to.equal(undefined);
    expect(view.droppedHere('a')).to.equal(true);
  });

  it('forks a copy that can be discarded: staging into the fork leaves the view as it was', () => {
    view.stage([put('a', '1', 10)]);
    const fork = view.fork();
    fork.stage([
      put('a', '1', 100),
      { kind: 'kvSet', key: 'k', value: 1 },
      { kind: 'createCollection', meta: meta('b') },
    ]);
    expect(fork.record('a', '1')?.fields.n).to.equal(100);
    expect(view.record('a', '1')?.fields.n).to.equal(10);
    expect(view.kvEntry('k')).to.equal(undefined);
    expect(view.collection('b')).to.equal(undefined);
    expect(fork.collection('b')).to.not.equal(undefined);
  });

  it('adopts what a fork staged, as if the view had staged it (a large batch stages chunk by chunk into a fork)', () => {
    view.stage([put('a', '1', 10)]);
    const fork = view.fork();
    fork.stage([
      put('a', '2', 20),
      { kind: 'delete', collection: 'a', id: '3', trashedAt: 5 },
      put('a', '5', 5),
      { kind: 'kvSet', key: 'k', value: 1 },
      { kind: 'createCollection', meta: meta('b') },
    ]);
    expect(view.adopt(fork)).to.equal(true);
    expect(view.record('a', '1')?.fields.n, 'staged before the fork').to.equal(10);
    expect(view.record('a', '2')?.fields.n).to.equal(20);
    expect(view.record('a', '3')).to.equal(undefined);
    expect(view.trashed('a', '3')?.deletedAt).to.equal(5);
    expect(ids(view, 'a')).to.deep.equal(['1', '2', '5']);
    expect(view.kvEntry('k')?.value).to.equal(1);
    expect(view.collection('b')).to.not.equal(undefined);
    expect(
      [...view.changedImages('a')].map(([id, f]) => `${id}:${String(f.n)}`),
      'replaced images kept',
    ).to.include.members(['1:1', '1:10', '2:20']);
    // The fork, were it used again, must not write into the maps the view took over.
    fork.stage([put('a', '2', 200), put('a', '6', 6)]);
    expect(view.record('a', '2')?.fields.n).to.equal(20);
    expect(view.record('a', '6')).to.equal(undefined);
  });

  it('refuses to adopt a fork when the view staged since, or a fork of another view: the caller stages instead', () => {
    const fork = view.fork();
    fork.stage([put('a', '4', 4)]);
    view.stage([put('a', '5', 5)]);
    expect(view.adopt(fork)).to.equal(false);
    expect(view.record('a', '4')).to.equal(undefined);
    const other = new WorkingView(state, 2);
    const otherFork = other.fork();
    otherFork.stage([put('a', '7', 7)]);
    expect(view.adopt(otherFork)).to.equal(false);
    expect(view.record('a', '7')).to.equal(undefined);
    expect(view.adopt(view.fork()), 'a fresh fork of this view').to.equal(true);
    expect(view.record('a', '5')?.fields.n).to.equal(5);
  });

  it('hides every committed KV key after kvClear, but not keys set after it', () => {
    const withKv = new DbState();
    applyBatch(withKv, { seq: 1, effects: [{ kind: 'kvSet', key: 'old', value: 1 }] });
    const v = new WorkingView(withKv, 2);
    v.stage([{ kind: 'kvClear' }, { kind: 'kvSet', key: 'new', value: 2 }]);
    expect(v.kvEntry('old')).to.equal(undefined);
    expect(v.kvEntry('new')?.value).to.equal(2);
    expect(withKv.kv.get('old')?.value).to.equal(1);
  });

  it('lists every image of the records staged writes changed: committed, staged and replaced', () => {
    view.stage([put('a', '1', 10)]);
    view.stage([put('a', '1', 11), { kind: 'delete', collection: 'a', id: '2' }, put('a', '5', 5)]);
    const images = [...view.changedImages('a')].map(([id, f]) => `${id}:${f.n}`);
    expect(images.sort()).to.deep.equal(['1:1', '1:10', '1:11', '2:2', '5:5']);
  });

  it('merges staged config over the committed config', () => {
    view.stage([
      { kind: 'config', values: { a: 1 } },
      { kind: 'config', values: { b: 2 } },
    ]);
    expect(view.currentConfig()).to.deep.equal({ a: 1, b: 2 });
    expect(state.config).to.deep.equal({});
  });
});
