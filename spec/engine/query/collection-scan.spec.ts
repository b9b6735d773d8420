/**
 * CollectionScan (query/collection-scan.ts): a sliced read of a collection
 * as it was when it opened, whatever commits while it yields; and the
 * sliced query pieces over it (runQueryInSlices, SortedRows, sortInSlices).
 */
import { expect } from 'chai';
import { applyBatch } from '../../../lib/engine/write/apply-batch.js';
import { MADE_ID, type Effect } from '../../../lib/engine/write/effects.js';
import { DbState } from '../../../lib/engine/write/state.js';
import { StateJournal } from '../../../lib/engine/write/journal.js';
import { Slicer } from '../../../lib/engine/time/slices.js';
import {
  CollectionScan,
  ListSource,
  parseQuery,
  runQuery,
  runQueryInSlices,
  sortInSlices,
  SortedRows,
  parseSort,
} from '../../../lib/engine/query/index.js';
import { fieldsFromWire, type Fields } from '../../../lib/engine/values/index.js';
import { mulberry32 } from '../../helpers/seeded-random.js';

const meta = { name: 'c', createdAt: '2026-01-01T00:00:00.000Z' };
const put = (id: string, n: number, expiresAt?: number): Effect => ({
  kind: 'put',
  collection: 'c',
  id,
  fields: { id, n },
  ...(expiresAt !== undefined ? { expiresAt } : {}),
});
const del = (id: string): Effect => ({ kind: 'delete', collection: 'c', id });
/** A put under an id made for it (the writer's mark: no record holds it, nothing is looked up). */
const madePut = (id: string, n: number): Effect => ({
  ...(put(id, n) as Extract<Effect, { kind: 'put' }>),
  [MADE_ID]: true,
});

/** A slicer whose every slice is used up: the walk yields at every look at the clock. */
class EveryTurn extends Slicer {
  constructor() {
    super(1);
  }
  override due(): boolean {
    return true;
  }
}

/** Runs `write` once per turn of the event loop until `done`, so it lands between the scan's slices. */
function writeWhileScanning(write: (turn: number) => void): { stop(): void } {
  let stopped = false;
  let turn = 0;
  const tick = () => {
    if (stopped) return;
    write(turn++);
    setImmediate(tick);
  };
  setImmediate(tick);
  return {
    stop: () => {
      stopped = true;
    },
  };
}

describe('engine/query/collection-scan', () => {
  let state: DbState;
  let seq: number;
  const apply = (...effects: Effect[]) => applyBatch(state, { seq: ++seq, effects });
  const coll = () => state.collections.get('c')!;

  beforeEach(() => {
    state = new DbState();
    seq = 0;
    apply({ kind: 'createCollection', meta }, ...Array.from({ length: 20 }, (_, i) => put(`r${i}`, i)));
  });

  async function walk(scan: CollectionScan, slicer: Slicer = new EveryTurn()): Promise<Array<[unknown, unknown]>> {
    const seen: Array<[unknown, unknown]> = [];
    await scan.each((r) => {
      seen.push([r.id, r.n]);
    }, slicer);
    return seen;
  }

  const original = Array.from({ length: 20 }, (_, i) => [`r${i}`, i]);

  it(
    'sees every record as it was at the open, in insertion order, while updates, deletes, inserts and re-inserts ' +
      'commit',
    async () => {
      const scan = new CollectionScan(coll(), 0);
      const writes = writeWhileScanning((turn) => {
        if (turn === 0) apply(put('r15', 150), del('r16'), put('new1', 1));
        if (turn === 3) apply(del('r17'), put('r17', 170), del('r2'));
        if (turn === 5) apply(put('r19', 190), del('r19'), put('r18', 180), del('r18'));
      });
      const seen = await walk(scan);
      writes.stop();
      scan.close();
      expect(seen).to.deep.equal(original);
    },
  );

  it('reads one id as it was at the open, and stops keeping pre-images once closed', async () => {
    const scan = new CollectionScan(coll(), 0);
    apply(put('r1', 100), del('r2'), put('x', 1));
    expect(scan.get('r1')?.n).to.equal(1);
    expect(scan.get('r2')?.n).to.equal(2);
    expect(scan.get('x')).to.equal(undefined);
    scan.close();
    apply(put('r3', 300));
    expect(scan.get('r3')?.n).to.equal(300);
  });

  it('never shows a record put under a made id after the open, even once it is removed again', async () => {
    const scan = new CollectionScan(coll(), 0);
    apply(madePut('m1', 1), madePut('m2', 2));
    apply(del('m1'));
    expect(scan.get('m1')).to.equal(undefined);
    expect(scan.get('m2')).to.equal(undefined);
    expect((await walk(scan)).map(([id]) => id)).to.deep.equal(Array.from({ length: 20 }, (_, i) => `r${i}`));
    scan.close();
  });

  it('judges expiry once, at the clock reading it opened with', async () => {
    apply(put('t1', 1, 1_000), put('t2', 2, 5_000));
    const seen = await walk(new CollectionScan(coll(), 2_000));
    expect(seen.map(([id]) => id))
      .to.include('t2')
      .and.not.include('t1');
  });

  it('visits the records of an index plan in insertion order, as at the open', async () => {
    const scan = new CollectionScan(coll(), 0);
    apply(put('r4', 40), del('r9'));
    const seen: unknown[] = [];
    await scan.eachOf(
      new Set(['r9', 'r4', 'gone', 'r1']),
      (r) => {
        seen.push([r.id, r.n]);
      },
      new EveryTurn(),
    );
    scan.close();
    expect(seen).to.deep.equal([
      ['r1', 1],
      ['r4', 4],
      ['r9', 9],
    ]);
  });

  it('visits every entry once, expired ones too, while a visit that waits lets deletes and re-inserts commit', async () => {
    apply(put('t1', 1, 1_000));
    const expected = [...coll().records].map(([id, e]) => [id, e.fields.n]);
    const scan = new CollectionScan(coll(), 5_000);
    const seen: unknown[] = [];
    let turn = 0;
    await scan.eachEntry(async (id, e) => {
      seen.push([id, e.fields.n]);
      // A snapshot's frame write: writes commit while it waits.
      await new Promise((r) => setImmediate(r));
      turn += 1;
      if (turn === 2) apply(del('r0'), del('r1'), del('r5'), put('r5', 55));
      if (turn === 8) apply(del('r6'), del('r19'), put('z', 1));
      return true;
    }, new EveryTurn());
    scan.close();
    expect(seen).to.deep.equal(expected);
  });

  it('matches a copy taken at the open under random writes (seeded), with records a restore set back', async () => {
    for (let seed = 1; seed <= 40; seed++) {
      const rand = mulberry32(seed);
      if (seed % 2 === 0) {
        // Records deleted and set back by a checkpoint restore stand at the end of the map, out of order.
        const journal = new StateJournal();
        const gone = [...coll().records.keys()].filter(() => rand() < 0.25);
        applyBatch(state, { seq: ++seq, effects: gone.map(del) }, journal);
        journal.undoTo(state, 0, ++seq);
      }
      const expected = [...coll().inOrder()].map(([id, e]) => [id, e.fields.n]);
      const scan = new CollectionScan(coll(), 0);
      let next = 1000 + seed * 100;
      const writes = writeWhileScanning(() => {
        const ids = [...coll().records.keys()];
        const effects: Effect[] = [];
        for (let k = 0; k < 3; k++) {
          const pick = ids[Math.floor(rand() * ids.length)]!;
          const roll = rand();
          if (roll < 0.3) effects.push(put(pick, next++));
          else if (roll < 0.6 && ids.length > 1) effects.push(del(pick));
          else if (roll < 0.8) effects.push(rand() < 0.5 ? madePut(`n${next++}`, 0) : put(`n${next++}`, 0));
          else effects.push(del(pick), put(pick, next++));
        }
        // A batch cannot delete what it already deleted; keep the first effect per id.
        const seenIds = new Set<string>();
        apply(
          ...effects.filter((e) => {
            const id = (e as { id: string }).id;
            if (e.kind === 'delete' && (seenIds.has(id) || !coll().records.has(id))) return false;
            seenIds.add(id);
            return true;
          }),
        );
      });
      const seen = await walk(scan);
      writes.stop();
      scan.close();
      expect(seen, `seed ${seed}`).to.deep.equal(expected);
      state = new DbState();
      seq = 0;
      apply({ kind: 'createCollection', meta }, ...Array.from({ length: 20 }, (_, i) => put(`r${i}`, i)));
    }
  });
});

describe('engine/query sliced execution', () => {
  const records: Fields[] = Array.from({ length: 500 }, (_, i) =>
    fieldsFromWire({ id: `r${i}`, n: (i * 7919) % 97, s: i % 3 === 0 ? null : `s${i % 5}` }),
  );
  const queries = [
    {},
    { limit: 0 },
    { limit: 7 },
    { skip: 480, limit: 50 },
    { skip: 600 },
    { sort: [{ field: 'n', ascending: true }] },
    { sort: [{ field: 'n', ascending: false }], limit: 10 },
    { sort: [{ field: 's' }, { field: 'n', ascending: false }], skip: 3, limit: 20 },
    { sort: [{ field: 'missing' }], limit: 5 },
    {
      filter: { type: 'Condition', content: { field: 'n', operator: 'Lt', value: 20 } },
      sort: [{ field: 'n' }],
      limit: 30,
    },
    { filter: { type: 'Condition', content: { field: 'n', operator: 'Gt', value: 50 } }, skip: 2, limit: 4 },
  ];

  for (const body of queries) {
    it(`gives runQuery's answer for ${JSON.stringify(body)}`, async () => {
      const q = parseQuery(body);
      const inSlices = await runQueryInSlices(new ListSource(records), q, new EveryTurn());
      expect(inSlices.map((r) => r.id)).to.deep.equal(runQuery(records, q).map((r) => r.id));
    });
  }

  it('keeps only skip + limit rows in a sorted query with a limit, stable on ties', async () => {
    const rows = new SortedRows(parseSort([{ field: 'n' }]), 3);
    for (const r of records) rows.add(r);
    const best = await rows.sorted(new EveryTurn());
    expect(best.map((r) => [r.id, r.n])).to.deep.equal(
      runQuery(records, parseQuery({ sort: [{ field: 'n' }], limit: 3 })).map((r) => [r.id, r.n]),
    );
  });

  it('sorts in slices stably, like Array.prototype.sort, across many runs', async () => {
    const rand = mulberry32(7);
    const items = Array.from({ length: 9_000 }, (_, i) => ({ k: Math.floor(rand() * 50), i }));
    const byKey = (a: { k: number }, b: { k: number }) => a.k - b.k;
    const sorted = await sortInSlices(items, byKey, new Slicer(64));
    expect(sorted).to.deep.equal(items.slice().sort(byKey));
    expect(items[0]).to.deep.equal({ k: items[0]!.k, i: 0 }); // the input is left as it was
  });
});
