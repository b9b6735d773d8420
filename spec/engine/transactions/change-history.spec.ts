/**
 * The change history Serializable commits check predicate reads against:
 * recording only between start and stop, lookups by collection after a seq,
 * trimming to what open reads need, and the bound that makes old reads
 * unverifiable instead of silently unchecked.
 */
import { expect } from 'chai';
import type { LoggedBatch } from '../../../lib/engine/index.js';
import type { CommitInfo } from '../../../lib/engine/write/change-feed.js';
import { ChangeHistory } from '../../../lib/engine/transactions/change-history.js';

function batch(seq: number, changes: Array<[string, string]>, dropped: string[] = []): [LoggedBatch, CommitInfo] {
  return [
    { seq, effects: dropped.map((name) => ({ kind: 'dropCollection' as const, name })) },
    {
      seq,
      changes: changes.map(([collection, id]) => ({ collection, event: 'insert' as const, id, fields: { id, seq } })),
      schemaChanged: [],
    },
  ];
}

const ids = (h: ChangeHistory, c: string, after: number) =>
  [...h.changesAfter(c, after)].map((ch) => `${ch.seq}:${ch.id}`);

describe('engine/transactions change history', () => {
  it('records nothing until started, and everything committed after the start seq once started', () => {
    const h = new ChangeHistory(100);
    h.follow(...batch(1, [['a', 'x']]));
    expect(h.size).to.equal(0);
    expect(h.covers(1)).to.equal(false);
    h.start(1);
    h.follow(
      ...batch(2, [
        ['a', 'y'],
        ['b', 'z'],
      ]),
    );
    h.follow(...batch(3, [['a', 'w']]));
    expect(h.covers(1)).to.equal(true);
    expect(h.covers(0)).to.equal(false);
    expect(ids(h, 'a', 1)).to.deep.equal(['2:y', '3:w']);
    expect(ids(h, 'a', 2)).to.deep.equal(['3:w']);
    expect(ids(h, 'b', 1)).to.deep.equal(['2:z']);
    expect(ids(h, 'c', 1)).to.deep.equal([]);
  });

  it('records a dropped collection as a change of the whole collection', () => {
    const h = new ChangeHistory(100);
    h.start(0);
    h.follow(...batch(1, [], ['a']));
    expect([...h.changesAfter('a', 0)]).to.deep.equal([{ seq: 1, id: '', dropped: true }]);
  });

  it('trims the changes no open read needs and forgets everything when stopped', () => {
    const h = new ChangeHistory(1000);
    h.start(0);
    for (let seq = 1; seq <= 200; seq++) h.follow(...batch(seq, [['a', `r${seq}`]]));
    h.trimThrough(150);
    expect(h.size).to.equal(50);
    expect(h.covers(149)).to.equal(false);
    expect(h.covers(150)).to.equal(true);
    expect(ids(h, 'a', 150)).to.have.length(50);
    expect(ids(h, 'a', 198)).to.deep.equal(['199:r199', '200:r200']);
    h.stop();
    expect(h.size).to.equal(0);
    expect(h.covers(200)).to.equal(false);
  });

  it('drops whole batches, oldest first, past its bound, so reads before them are no longer covered', () => {
    const h = new ChangeHistory(5);
    h.start(0);
    h.follow(
      ...batch(1, [
        ['a', 'x'],
        ['a', 'y'],
      ]),
    );
    h.follow(...batch(2, [['a', 'z']]));
    h.follow(
      ...batch(3, [
        ['b', 'u'],
        ['b', 'v'],
      ]),
    );
    expect(h.covers(0)).to.equal(true);
    h.follow(...batch(4, [['a', 'w']]));
    expect(h.size).to.equal(4);
    expect(h.covers(0)).to.equal(false);
    expect(h.covers(1)).to.equal(true);
    expect(ids(h, 'a', 1)).to.deep.equal(['2:z', '4:w']);
  });

  it('survives a single batch larger than its bound by dropping it whole', () => {
    const h = new ChangeHistory(3);
    h.start(0);
    h.follow(
      ...batch(1, [
        ['a', '1'],
        ['a', '2'],
        ['a', '3'],
        ['a', '4'],
      ]),
    );
    expect(h.size).to.equal(0);
    expect(h.covers(0)).to.equal(false);
    expect(h.covers(1)).to.equal(true);
  });
});
