/**
 * RecordTable (record-table.ts): a collection's records in slots by
 * insertion ordinal, answering the same entries a Map of entry objects did,
 * in insertion order, for less memory; and the compaction that renumbers
 * them once deletes have left more empty slots than records, never while a
 * reader, a checkpoint's journal or a walk holds ords.
 */
import { expect } from 'chai';
import { applyBatch } from '../../../../lib/engine/write/apply-batch.js';
import type { Effect } from '../../../../lib/engine/write/effects.js';
import { StateJournal } from '../../../../lib/engine/write/journal.js';
import { RecordTable } from '../../../../lib/engine/write/table/record-table.js';
import { DbState, type RecordEntry } from '../../../../lib/engine/write/state.js';
import { heapPerRecord } from '../../../helpers/heap.js';

const meta = { name: 'a', createdAt: '2026-01-01T00:00:00.000Z' };
const put = (id: string, n = 0): Effect => ({ kind: 'put', collection: 'a', id, fields: { id, n } });
const del = (id: string): Effect => ({ kind: 'delete', collection: 'a', id });

/** A state with collection `a` holding `n` records r0..r(n-1), inserted at seq 1. */
function filled(n: number): DbState {
  const state = new DbState();
  applyBatch(state, {
    seq: 1,
    effects: [{ kind: 'createCollection', meta }, ...Array.from({ length: n }, (_, i) => put(`r${i}`, i))],
  });
  return state;
}

describe('engine/write/record-table', () => {
  it('answers the entries it was given, with their ord, version and TTL, in slot order', () => {
    const table = new RecordTable();
    table.set('b', { fields: { id: 'b' }, version: 3, ord: 2 });
    table.set('a', { fields: { id: 'a' }, version: 4, ord: 1, expiresAt: 99, slidingMs: 10 });
    table.set('x', { fields: { id: 'not-x' }, version: 5, ord: 3 });
    expect(table.size).to.equal(3);
    expect(table.get('a')).to.deep.equal({ fields: { id: 'a' }, version: 4, ord: 1, expiresAt: 99, slidingMs: 10 });
    expect(table.get('b')).to.deep.equal({ fields: { id: 'b' }, version: 3, ord: 2 });
    expect([...table.keys()], 'an id other than its fields.id is kept').to.deep.equal(['a', 'b', 'x']);
    expect(table.fieldsOf('x')).to.deep.equal({ id: 'not-x' });
    table.set('a', { fields: { id: 'a', n: 1 }, version: 6, ord: 1 });
    expect(table.get('a'), 'an update without a TTL drops it').to.deep.equal({
      fields: { id: 'a', n: 1 },
      version: 6,
      ord: 1,
    });
    expect(table.delete('b')).to.equal(true);
    expect(table.delete('b')).to.equal(false);
    expect([...table].map(([id, e]) => [id, e.ord])).to.deep.equal([
      ['a', 1],
      ['x', 3],
    ]);
    expect(table.get('b')).to.equal(undefined);
    expect(table.has('x')).to.equal(true);
  });

  it('refuses to put a record in a slot another record stands in', () => {
    const table = new RecordTable();
    table.set('a', { fields: { id: 'a' }, version: 1, ord: 1 });
    expect(() => table.set('b', { fields: { id: 'b' }, version: 1, ord: 1 })).to.throw(/slot 1 holds another record/);
  });

  it('sees a record written during a walk as the walk reaches it, as a Map does', () => {
    const table = new RecordTable();
    for (let i = 1; i <= 3; i++) table.set(`r${i}`, { fields: { id: `r${i}` }, version: 1, ord: i });
    const seen: string[] = [];
    for (const [id] of table) {
      seen.push(id);
      if (id === 'r1') {
        table.delete('r2');
        table.set('r4', { fields: { id: 'r4' }, version: 2, ord: 4 });
      }
    }
    expect(seen).to.deep.equal(['r1', 'r3', 'r4']);
  });

  it('keeps a record in less memory than a Map of entry objects', () => {
    const n = 100_000;
    const fields = Array.from({ length: n }, (_, i) => Object.freeze({ id: `record-${i}` }));
    const asTable = heapPerRecord(1, () => {
      const table = new RecordTable();
      for (let i = 0; i < n; i++) table.put(fields[i]!.id, fields[i]!, 7, i + 1, undefined, undefined);
      return table;
    });
    const asMap = heapPerRecord(1, () => {
      const map = new Map<string, RecordEntry>();
      for (let i = 0; i < n; i++) map.set(fields[i]!.id, { fields: fields[i]!, version: 7, ord: i + 1 });
      return map;
    });
    // The entry object (48 bytes) against two array slots (16, and the arrays' spare room).
    expect((asMap - asTable) / n).to.be.greaterThan(20);
  });

  it('renumbers the records in order once deletes left more empty slots than records', () => {
    const state = filled(10_000);
    const coll = state.collections.get('a')!;
    applyBatch(state, { seq: 2, effects: Array.from({ length: 9_000 }, (_, i) => del(`r${i}`)) });
    // Once, at the 5,001st delete (5,001 empty slots against 4,999 records): 4,999 slots since.
    expect(coll.lastOrd).to.equal(4_999);
    const left = [...coll.records];
    expect(left.map(([id, e]) => [id, e.fields.n])).to.deep.equal(
      Array.from({ length: 1_000 }, (_, i) => [`r${9_000 + i}`, 9_000 + i]),
    );
    expect(left.map(([, e]) => e.ord)).to.deep.equal(Array.from({ length: 1_000 }, (_, i) => 4_000 + i));
    applyBatch(state, { seq: 3, effects: [put('new')] });
    expect(coll.records.get('new')?.ord).to.equal(5_000);
    expect([...coll.records.keys()].at(-1)).to.equal('new');
  });

  it('does not renumber while a reader is open, a checkpoint holds the journal or a walk is under way', () => {
    const deletes = Array.from({ length: 9_000 }, (_, i) => del(`r${i}`));
    const withReader = filled(10_000);
    const reader = withReader.collections.get('a')!.openReader();
    applyBatch(withReader, { seq: 2, effects: deletes });
    expect(withReader.collections.get('a')!.lastOrd).to.equal(10_000);
    withReader.collections.get('a')!.closeReader(reader);
    applyBatch(withReader, { seq: 3, effects: [del('r9000')] });
    expect(withReader.collections.get('a')!.lastOrd, 'the next delete once it closed').to.equal(999);

    const withJournal = filled(10_000);
    applyBatch(withJournal, { seq: 2, effects: deletes }, new StateJournal());
    expect(withJournal.collections.get('a')!.lastOrd).to.equal(10_000);

    const walked = filled(10_000);
    const walk = walked.collections.get('a')!.records.entries();
    walk.next();
    applyBatch(walked, { seq: 2, effects: deletes });
    expect(walked.collections.get('a')!.lastOrd).to.equal(10_000);
    walk.return!(undefined);
    applyBatch(walked, { seq: 3, effects: [del('r9000')] });
    expect(walked.collections.get('a')!.lastOrd).to.equal(999);
  });
});
