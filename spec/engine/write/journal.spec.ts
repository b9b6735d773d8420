/**
 * The state journal (journal.ts): batches applied with a journal can be
 * undone to any earlier position, leaving the state exactly as it was there
 * (records, their order and counters, trash, key-value entries and links,
 * keys, config, replication origins), whatever the batches did meanwhile.
 * The diff it returns leads from the state before the restore to the state
 * after it.
 */
import { expect } from 'chai';
import { applyBatch } from '../../../lib/engine/write/apply-batch.js';
import type { Effect } from '../../../lib/engine/write/effects.js';
import { StateJournal } from '../../../lib/engine/write/journal.js';
import { DbState } from '../../../lib/engine/write/state.js';
import { mulberry32 } from '../../helpers/seeded-random.js';

const meta = (name: string, note = 0) => ({ name, createdAt: '2026-01-01T00:00:00.000Z', ...(note ? { note } : {}) });

const sorted = <V>(map: ReadonlyMap<string, V>): Array<[string, V]> =>
  [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/**
 * Everything a restore must bring back, as plain data. Seq and change stamps move forward by design; records keep
 * their exact order (unsorted finds show it), the other maps their content (their listings sort or do not promise an
 * order).
 */
function picture(state: DbState): unknown {
  return {
    collections: sorted(state.collections).map(([name, coll]) => ({
      name,
      meta: coll.meta,
      records: [...coll.inOrder()].map(([id, entry]) => [id, entry]),
      lastOrd: coll.lastOrd,
      expiringRecords: coll.expiringRecords,
    })),
    trash: sorted(state.trash).map(([name, map]) => [name, sorted(map)]),
    keys: sorted(state.keys),
    config: state.config,
    kv: sorted(state.kv),
    kvLinks: sorted(state.kvLinks).map(([key, links]) => [key, [...links].sort()]),
    rippleSeen: sorted(state.rippleSeen),
  };
}

/** A random effect that applies once the batch's earlier effects have (puts only into existing collections). */
function randomEffect(live: Set<string>, random: () => number): Effect {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const names = ['a', 'b', 'c'];
  const existing = [...live];
  const id = `r${Math.floor(random() * 12)}`;
  const roll = random();
  if (existing.length === 0 || roll < 0.06) {
    const name = pick(names);
    live.add(name);
    return { kind: 'createCollection', meta: meta(name) };
  }
  const collection = pick(existing);
  if (roll < 0.09) {
    live.delete(collection);
    return { kind: 'dropCollection', name: collection };
  }
  if (roll < 0.12) return { kind: 'setCollectionMeta', meta: meta(collection, Math.ceil(random() * 9)) };
  if (roll < 0.45) {
    const ttl = random() < 0.2 ? { expiresAt: 1_000 + Math.floor(random() * 1000) } : {};
    return { kind: 'put', collection, id, fields: { id, n: Math.floor(random() * 100) }, ...ttl };
  }
  if (roll < 0.6)
    return { kind: 'delete', collection, id, ...(random() < 0.4 ? { trashedAt: Math.floor(random() * 1000) } : {}) };
  if (roll < 0.65) return { kind: 'restore', collection, id };
  if (roll < 0.68) return { kind: 'purge', collection, id };
  const key = `k${Math.floor(random() * 6)}`;
  if (roll < 0.78) return { kind: 'kvSet', key, value: Math.floor(random() * 50) };
  if (roll < 0.82) return { kind: 'kvDelete', key };
  if (roll < 0.83) return { kind: 'kvClear' };
  if (roll < 0.88) return { kind: 'kvLink', key, collection, id };
  if (roll < 0.91) return { kind: 'kvUnlink', key, collection, id };
  const keyId = `key${Math.floor(random() * 3)}`;
  if (roll < 0.95)
    return {
      kind: 'keyPut',
      key: { id: keyId, name: keyId, hash: String(random()), admin: false, created_at: '2026-01-01' },
    };
  if (roll < 0.97) return { kind: 'keyDelete', id: keyId };
  return { kind: 'config', values: { [`s${Math.floor(random() * 3)}`]: Math.floor(random() * 9) } };
}

/** Applies random batches to `state` (with the journal) and the same ones to `mirror` (without). */
function applyRandom(
  state: DbState,
  journal: StateJournal | undefined,
  random: () => number,
  batches: number,
  mirror?: DbState,
): void {
  for (let b = 0; b < batches; b++) {
    const live = new Set(state.collections.keys());
    const effects = Array.from({ length: 1 + Math.floor(random() * 4) }, () => randomEffect(live, random));
    const origin = random() < 0.2 ? { origin: 'peer', originSeq: state.seq * 10 } : {};
    applyBatch(state, { seq: state.seq + 1, effects, ...origin }, journal);
    if (mirror) applyBatch(mirror, { seq: mirror.seq + 1, effects, ...origin });
  }
}

/**
 * What the diff must lead to: records by id (a put lands at the end), without the config (an effect merges into it,
 * so the diff cannot remove a setting; nothing derived follows the config through effects).
 */
function content(state: DbState): unknown {
  const picked = picture(state) as { collections: Array<{ records: Array<[string, { fields: unknown }]> }> };
  return {
    ...picked,
    config: undefined,
    rippleSeen: undefined,
    collections: picked.collections.map((c) => ({
      ...c,
      lastOrd: undefined,
      records: c.records.map(([id, e]) => [id, e.fields]).sort(),
    })),
    trash: undefined,
  };
}

/** Effects that build `state`'s collections and key-value entries from nothing (to start a mirror). */
function diffFrom(_empty: DbState, state: DbState): Effect[] {
  const effects: Effect[] = [];
  for (const [name, coll] of state.collections) {
    effects.push({ kind: 'createCollection', meta: coll.meta });
    for (const [id, entry] of coll.records)
      effects.push({
        kind: 'put',
        collection: name,
        id,
        fields: entry.fields,
        ...(entry.expiresAt !== undefined ? { expiresAt: entry.expiresAt } : {}),
      });
  }
  for (const [key, entry] of state.kv) effects.push({ kind: 'kvSet', key, value: entry.value });
  for (const [key, links] of state.kvLinks)
    for (const member of links) {
      const [collection, id] = member.split('\u0000') as [string, string];
      effects.push({ kind: 'kvLink', key, collection, id });
    }
  for (const key of state.keys.values()) effects.push({ kind: 'keyPut', key });
  return effects;
}

describe('engine/journal', () => {
  it('undoes seeded random batches back to each checkpoint, exactly', () => {
    for (let seed = 1; seed <= 150; seed++) {
      const random = mulberry32(seed);
      const state = new DbState();
      applyRandom(state, undefined, random, 20);
      const journal = new StateJournal();
      const first = journal.position;
      const atFirst = picture(state);
      applyRandom(state, journal, random, 15);
      const second = journal.position;
      const atSecond = picture(state);
      const mirror = new DbState();
      applyBatch(mirror, { seq: state.seq, effects: diffFrom(new DbState(), state) });
      applyRandom(state, journal, random, 15, mirror);

      const restored = journal.undoTo(state, second, state.seq + 1);
      expect(picture(state), `seed ${seed}, second checkpoint`).to.deep.equal(atSecond);
      applyBatch(mirror, { seq: state.seq, effects: restored.effects });
      expect(content(mirror), `seed ${seed}, the diff`).to.deep.equal(content(state));
      applyRandom(state, journal, random, 10);
      journal.undoTo(state, first, state.seq + 1);
      expect(picture(state), `seed ${seed}, first checkpoint`).to.deep.equal(atFirst);
      expect(journal.size).to.equal(0);
    }
  });

  it('puts a deleted record back in its place, not at the end', () => {
    const state = new DbState();
    const put = (id: string): Effect => ({ kind: 'put', collection: 'a', id, fields: { id } });
    applyBatch(state, {
      seq: 1,
      effects: [{ kind: 'createCollection', meta: meta('a') }, put('1'), put('2'), put('3')],
    });
    const journal = new StateJournal();
    applyBatch(state, { seq: 2, effects: [{ kind: 'delete', collection: 'a', id: '2' }, put('4')] }, journal);
    journal.undoTo(state, 0, 3);
    const coll = state.collections.get('a')!;
    expect([...coll.inOrder()].map(([id]) => id)).to.deep.equal(['1', '2', '3']);
    // Its slot was left empty by the delete: it stands there again, and nothing else moved.
    expect([...coll.records.keys()]).to.deep.equal(['1', '2', '3']);
    expect(coll.records.get('2')?.ord).to.equal(2);
    expect(state.seq).to.equal(3);
  });

  it('tells what changed as effects and a change feed, leading from the state before to the state after', () => {
    const state = new DbState();
    applyBatch(state, {
      seq: 1,
      effects: [
        { kind: 'createCollection', meta: meta('a') },
        { kind: 'put', collection: 'a', id: '1', fields: { id: '1', n: 1 } },
        { kind: 'put', collection: 'a', id: '2', fields: { id: '2', n: 2 } },
        { kind: 'kvSet', key: 'k', value: 1 },
      ],
    });
    const journal = new StateJournal();
    applyBatch(
      state,
      {
        seq: 2,
        effects: [
          { kind: 'put', collection: 'a', id: '1', fields: { id: '1', n: 10 } },
          { kind: 'delete', collection: 'a', id: '2' },
          { kind: 'put', collection: 'a', id: '3', fields: { id: '3', n: 3 } },
          { kind: 'createCollection', meta: meta('b') },
          { kind: 'put', collection: 'b', id: 'x', fields: { id: 'x' } },
          { kind: 'kvSet', key: 'k', value: 2 },
          { kind: 'kvSet', key: 'new', value: 3 },
        ],
      },
      journal,
    );
    const restored = journal.undoTo(state, 0, 3);
    const byId = (changes: typeof restored.changes) =>
      [...changes].map((c) => `${c.collection}/${c.id}:${c.event}`).sort();
    expect(byId(restored.changes)).to.deep.equal(['a/1:update', 'a/2:insert', 'a/3:delete', 'b/x:delete']);
    expect(restored.effects.map((e) => e.kind).sort()).to.deep.equal(
      ['delete', 'dropCollection', 'kvDelete', 'kvSet', 'put', 'put'].sort(),
    );
    expect(restored.changes.find((c) => c.id === '1')).to.deep.include({
      fields: { id: '1', n: 1 },
      before: { id: '1', n: 10 },
    });
  });

  it('brings a dropped collection back whole and announces its records as inserted', () => {
    const state = new DbState();
    const puts: Effect[] = Array.from({ length: 5 }, (_, i) => ({
      kind: 'put',
      collection: 'a',
      id: `${i}`,
      fields: { id: `${i}` },
    }));
    applyBatch(state, { seq: 1, effects: [{ kind: 'createCollection', meta: meta('a') }, ...puts] });
    const original = state.collections.get('a');
    const journal = new StateJournal();
    applyBatch(state, { seq: 2, effects: [{ kind: 'dropCollection', name: 'a' }] }, journal);
    applyBatch(state, { seq: 3, effects: [{ kind: 'createCollection', meta: meta('a') }, puts[0]!] }, journal);
    const restored = journal.undoTo(state, 0, 4);
    expect(state.collections.get('a')).to.equal(original);
    expect(restored.effects.map((e) => e.kind)).to.deep.equal([
      'dropCollection',
      'createCollection',
      'put',
      'put',
      'put',
      'put',
      'put',
    ]);
    expect(restored.schemaChanged).to.deep.equal(['a']);
  });

  it('sets many deleted records back in their slots, with a reader open', () => {
    const state = new DbState();
    const ids = Array.from({ length: 200 }, (_, i) => `r${i}`);
    applyBatch(state, {
      seq: 1,
      effects: [
        { kind: 'createCollection', meta: meta('a') },
        ...ids.map((id): Effect => ({ kind: 'put', collection: 'a', id, fields: { id } })),
      ],
    });
    const coll = state.collections.get('a')!;
    const journal = new StateJournal();
    const deletes = ids.filter((_, i) => i % 2 === 0);
    applyBatch(
      state,
      { seq: 2, effects: deletes.map((id): Effect => ({ kind: 'delete', collection: 'a', id })) },
      journal,
    );
    const reader = coll.openReader();
    journal.undoTo(state, 0, 3);
    expect([...coll.inOrder()].map(([id]) => id)).to.deep.equal(ids);
    expect([...coll.records].map(([, e]) => e.ord)).to.deep.equal(ids.map((_, i) => i + 1));
    coll.closeReader(reader);
    expect([...coll.records.keys()]).to.deep.equal(ids);
  });

  it('forgets what no checkpoint needs', () => {
    const state = new DbState();
    const journal = new StateJournal();
    applyBatch(state, { seq: 1, effects: [{ kind: 'kvSet', key: 'a', value: 1 }] }, journal);
    const later = journal.position;
    applyBatch(state, { seq: 2, effects: [{ kind: 'kvSet', key: 'a', value: 2 }] }, journal);
    journal.forgetBefore(later);
    expect(journal.size).to.equal(2);
    expect(() => journal.undoTo(state, 0, 3)).to.throw(/forgotten/);
    journal.undoTo(state, later, 3);
    expect(state.kv.get('a')).to.deep.equal({ value: 1 });
  });
});
