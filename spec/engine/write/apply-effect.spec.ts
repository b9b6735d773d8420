/**
 * applyEffect over its two targets: every effect, applied to DbState by
 * applyBatch and staged into a WorkingView over an equal state, leaves the
 * same readable result. That is what lets an operation trust what it reads
 * of its group's earlier writes.
 */
import { expect } from 'chai';
import { applyBatch } from '../../../lib/engine/write/apply-batch.js';
import type { Effect } from '../../../lib/engine/write/effects.js';
import { DbState } from '../../../lib/engine/write/state.js';
import { WorkingView } from '../../../lib/engine/write/working-view.js';

const meta = (name: string, extra: object = {}) => ({ name, createdAt: '2026-01-01T00:00:00.000Z', ...extra });
const put = (
  c: string,
  id: string,
  fields: object = {},
  ttl: { expiresAt?: number; slidingMs?: number } = {},
): Effect => ({ kind: 'put', collection: c, id, fields: { id, ...fields }, ...ttl }) as Effect;
const apiKey = (id: string) => ({ id, name: id, hash: '00', admin: false, created_at: '2026-01-01T00:00:00.000Z' });

/** What the database holds before each case. */
const SETUP: Effect[] = [
  { kind: 'createCollection', meta: meta('a') },
  { kind: 'createCollection', meta: meta('b') },
  put('a', '1', { n: 1 }),
  put('a', '2', { n: 2 }, { expiresAt: 5_000, slidingMs: 1_000 }),
  put('a', '3', { n: 3 }),
  { kind: 'delete', collection: 'a', id: '3', trashedAt: 100 },
  put('b', '1', { m: 1 }),
  { kind: 'kvSet', key: 'k1', value: 1 },
  { kind: 'kvSet', key: 'k2', value: 'two', expiresAt: 9_000 },
  { kind: 'kvLink', key: 'k1', collection: 'a', id: '1' },
  { kind: 'keyPut', key: apiKey('key1') },
  { kind: 'config', values: { max_batch_size: 10 } },
];

const CASES: Array<[string, Effect[]]> = [
  ['createCollection of a new collection', [{ kind: 'createCollection', meta: meta('c') }]],
  [
    'createCollection of an existing collection (no change)',
    [{ kind: 'createCollection', meta: meta('a', { indexes: [{ field: 'n', type: 'hash' }] }) }],
  ],
  ['setCollectionMeta', [{ kind: 'setCollectionMeta', meta: meta('a', { indexes: [{ field: 'n', type: 'hash' }] }) }]],
  ['setCollectionMeta of a missing collection (no change)', [{ kind: 'setCollectionMeta', meta: meta('zz') }]],
  ['dropCollection (records and trash go)', [{ kind: 'dropCollection', name: 'a' }]],
  [
    'dropCollection, then create it again and put',
    [{ kind: 'dropCollection', name: 'a' }, { kind: 'createCollection', meta: meta('a') }, put('a', '9')],
  ],
  ['put of a new record', [put('a', '9', { n: 9 })]],
  ['put replacing a record, with a TTL', [put('a', '1', { n: 10 }, { expiresAt: 7_000 })]],
  ['put dropping a TTL', [put('a', '2', { n: 20 })]],
  ['delete into the trash', [{ kind: 'delete', collection: 'a', id: '1', trashedAt: 200 }]],
  ['delete without trash', [{ kind: 'delete', collection: 'a', id: '2' }]],
  ['delete of a missing record (no change)', [{ kind: 'delete', collection: 'a', id: '404', trashedAt: 200 }]],
  [
    'delete, then put the same id again',
    [{ kind: 'delete', collection: 'a', id: '1', trashedAt: 200 }, put('a', '1', { n: 11 })],
  ],
  ['restore', [{ kind: 'restore', collection: 'a', id: '3' }]],
  ['restore of a record not in the trash (no change)', [{ kind: 'restore', collection: 'a', id: '1' }]],
  [
    'restore after its collection was dropped (no change)',
    [
      { kind: 'dropCollection', name: 'a' },
      { kind: 'restore', collection: 'a', id: '3' },
    ],
  ],
  ['purge', [{ kind: 'purge', collection: 'a', id: '3' }]],
  [
    'kvSet',
    [
      { kind: 'kvSet', key: 'k3', value: 3 },
      { kind: 'kvSet', key: 'k1', value: 'one', expiresAt: 8_000 },
    ],
  ],
  ['kvDelete', [{ kind: 'kvDelete', key: 'k1' }]],
  ['kvClear, then kvSet', [{ kind: 'kvClear' }, { kind: 'kvSet', key: 'k2', value: 2 }]],
  [
    'kvLink and kvUnlink',
    [
      { kind: 'kvLink', key: 'k2', collection: 'b', id: '1' },
      { kind: 'kvUnlink', key: 'k1', collection: 'a', id: '1' },
    ],
  ],
  [
    'keyPut',
    [
      { kind: 'keyPut', key: apiKey('key2') },
      { kind: 'keyPut', key: { ...apiKey('key1'), admin: true } },
    ],
  ],
  ['keyDelete', [{ kind: 'keyDelete', id: 'key1' }]],
  ['config (merged into the stored config)', [{ kind: 'config', values: { default_isolation_level: 'Serializable' } }]],
];

function stateWith(effects: Effect[]): DbState {
  const state = new DbState();
  applyBatch(state, { seq: 1, effects });
  return state;
}

/** Everything a reader can see through a WorkingView, in a comparable form. */
function readable(v: WorkingView) {
  const byId = <T extends [string, ...unknown[]]>(rows: T[]) => rows.sort((x, y) => (x[0] < y[0] ? -1 : 1));
  const names = ['a', 'b', 'c', 'zz'];
  return {
    collections: v
      .collectionNames()
      .sort()
      .map((n) => v.collection(n)),
    records: names.map((n) => byId([...v.records(n)].map(([id, e]) => [id, e.fields, e.expiresAt, e.slidingMs]))),
    trash: names.map((n) => byId([...v.trashedRecords(n)].map(([id, t]) => [id, t.entry.fields, t.deletedAt]))),
    keys: ['key1', 'key2'].map((id) => v.key(id) ?? null),
    kv: ['k1', 'k2', 'k3'].map((k) => v.kvEntry(k) ?? null),
    config: v.currentConfig(),
  };
}

describe('engine/apply-effect', () => {
  for (const [what, effects] of CASES) {
    it(`${what}: the state and a working view read the same`, () => {
      const applied = stateWith(SETUP);
      applyBatch(applied, { seq: 2, effects });
      const staged = new WorkingView(stateWith(SETUP), 2);
      staged.stage(effects);
      expect(readable(staged)).to.deep.equal(readable(new WorkingView(applied, 3)));
    });
  }

  it('stamps a staged record with the seq its batch will carry, as the state does when applied', () => {
    const applied = stateWith(SETUP);
    applyBatch(applied, { seq: 2, effects: [put('a', '9')] });
    const staged = new WorkingView(stateWith(SETUP), 2);
    staged.stage([put('a', '9')]);
    expect(staged.record('a', '9')?.version).to.equal(2);
    expect(applied.collections.get('a')?.records.get('9')?.version).to.equal(2);
  });

  it('keeps KV links in the state only (no operation reads them inside the writer)', () => {
    const applied = stateWith(SETUP);
    applyBatch(applied, {
      seq: 2,
      effects: [
        { kind: 'kvLink', key: 'k2', collection: 'b', id: '1' },
        { kind: 'kvUnlink', key: 'k1', collection: 'a', id: '1' },
      ],
    });
    expect([...applied.kvLinks]).to.deep.equal([['k2', new Set(['b\u00001'])]]);
    applyBatch(applied, { seq: 3, effects: [{ kind: 'kvDelete', key: 'k2' }] });
    expect(applied.kvLinks.size).to.equal(0);
  });

  it('refuses to apply a put into a missing collection to the state', () => {
    expect(() => applyBatch(new DbState(), { seq: 1, effects: [put('nope', '1')] })).to.throw(
      /missing collection nope/,
    );
  });
});
