/**
 * A put whose id the id generator just made carries MADE_ID (effects.ts):
 * no record can hold that id, so the change feed and the appliers skip
 * looking it up. The mark is only a shortcut: a marked put must be
 * described and applied exactly as the same put unmarked, and the log
 * (which never holds the mark) must replay to the same state.
 */
import { expect } from 'chai';
import { Database, type LoggedBatch } from '../../../lib/engine/index.js';
import type { CommitInfo } from '../../../lib/engine/write/change-feed.js';
import { MADE_ID } from '../../../lib/engine/write/effects.js';
import { removeDir, tempDir } from '../../helpers/temp-dir.js';

interface Seen {
  batch: LoggedBatch;
  info: CommitInfo;
}

/** Each stored record of `c` as [id, version, insertion order], in stored order. */
function entries(db: Database, c: string): Array<[string, number, number | undefined]> {
  return [...db.state.collections.get(c)!.records].map(([id, e]) => [id, e.version, e.ord]);
}

describe('engine: puts of made ids (MADE_ID)', () => {
  let dir: string;
  let db: Database;
  let seen: Seen[];
  const open = async () => {
    db = await Database.open({ dataDir: dir, settings: { durability: 'none' } });
    seen = [];
    db.onCommit((batch, info) => seen.push({ batch, info }));
  };
  beforeEach(async () => {
    dir = tempDir();
    await open();
  });
  afterEach(async () => {
    await db.close();
    removeDir(dir);
  });

  const puts = () => seen.flatMap((s) => s.batch.effects).filter((e) => e.kind === 'put');

  it('marks the puts of made ids, and only those', async () => {
    await db.records.insert('plain', { a: 1 });
    await db.records.insert('plain', { id: 'named', a: 2 });
    await db.records.insert('plain', { a: 3, ttl: 3600 });
    await db.bulk.insertMany('plain', [{ a: 4 }, { id: 'named-2', a: 5 }, { a: 6, ttl: 60 }]);
    await db.records.update('plain', 'named', { a: 7 });
    expect(
      puts().map((e) => [e.kind === 'put' && (e.fields.a as unknown), e.kind === 'put' && e[MADE_ID] === true]),
    ).to.deep.equal([
      [1, true],
      [2, false],
      [3, true],
      [4, true],
      [5, false],
      [6, true],
      [7, false],
    ]);
  });

  it('describes marked puts as inserts, as the lookup would', async () => {
    const id = await db.records.insert('c', { a: 1 });
    await db.records.update('c', id, { a: 2 });
    const changes = seen.flatMap((s) => s.info.changes);
    expect(changes.map((c) => [c.event, c.id, c.before?.a])).to.deep.equal([
      ['insert', id, undefined],
      ['update', id, 1],
    ]);
  });

  it('lists the changes of a batch in its order, marked puts among the others, made when first read', async () => {
    await db.bulk.insertMany('c', [{ id: 'old', n: 0 }]);
    const res = await db.bulk.run('c', [
      { kind: 'insert', body: { n: 1 } },
      { kind: 'update', id: 'old', body: { n: 2 } },
      { kind: 'insert', body: { id: 'named', n: 3 } },
      { kind: 'insert', body: { n: 4 } },
      { kind: 'delete', id: 'missing' },
      { kind: 'delete', id: 'named' },
      { kind: 'insert', body: { n: 5 } },
    ]);
    expect(res.failed.map((f) => f.index)).to.deep.equal([4]);
    const info = seen.at(-1)!.info;
    const changes = info.changes;
    expect(info.changes, 'made once').to.equal(changes);
    expect(changes.map((c) => [c.event, c.fields?.n ?? null, c.before?.n ?? null])).to.deep.equal([
      ['insert', 1, null],
      ['update', 2, 0],
      ['insert', 3, null],
      ['insert', 4, null],
      // 'named' was absent before the batch: its delete there is no change (the images are those before it).
      ['insert', 5, null],
    ]);
  });

  it('keeps insertion order and membership as unmarked puts do, and the log replays to the same state', async () => {
    await db.records.insert('c', { id: 'first', n: 0 });
    const made = [await db.records.insert('c', { n: 1 })];
    made.push(...(await db.bulk.insertMany('c', [{ n: 2 }, { n: 3 }])).successful);
    await db.records.insert('c', { id: 'last', n: 4 });
    await db.records.update('c', made[0]!, { n: 10 });
    const live = entries(db, 'c');
    expect(live.map(([id]) => id)).to.deep.equal(['first', ...made, 'last']);
    expect(live.map(([, , ord]) => ord)).to.deep.equal([1, 2, 3, 4, 5]);
    const membership = db.state.collections.get('c')!.membershipVersion;
    await db.close();
    await open();
    expect(puts()).to.have.length(0);
    expect(entries(db, 'c')).to.deep.equal(live);
    expect(db.state.collections.get('c')!.membershipVersion).to.equal(membership);
  });
});
