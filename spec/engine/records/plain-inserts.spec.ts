/**
 * A plain insert body (no `id`, `ttl` or `ttl_update_on_access`) is made
 * into its stored record ahead, with its new id, in one object
 * (Records.makeNew), and staged as made into an existing collection without
 * a schema (Records.insertMade). Everything else takes the general path
 * (prepare, then insertInto). Both must store exactly the same record and
 * refuse exactly the same bodies, single inserts and bulk alike.
 */
import { expect } from 'chai';
import { Database, Tagged, type Fields } from '../../../lib/engine/index.js';
import type { Effect } from '../../../lib/engine/write/effects.js';
import { removeDir, tempDir } from '../../helpers/temp-dir.js';

const nested = (levels: number): unknown => (levels === 0 ? 1 : { n: nested(levels - 1) });

const BODIES: Array<Record<string, unknown>> = [
  {},
  { name: 'Ann', age: 31, active: true, score: 1.5, nothing: null },
  { when: '2026-01-02T03:04:05Z', plain: 'not a date' },
  {
    typed: { type: 'Integer', value: 5 },
    dec: { type: 'Decimal', value: '1.50' },
    s: { type: 'String', value: '2026-01-02T03:04:05Z' },
  },
  { nested: { a: [1, 'two', { b: null }] }, list: ['x', 'y'] },
  { bin: Buffer.from('abc'), big: 12345678901234567n },
  { zeta: 1, alpha: 2, mid: 3 },
];

const HOSTILE: unknown[] = [
  { constructor: 1 },
  { ok: 1, prototype: 2 },
  JSON.parse('{"a": 1, "__proto__": {"x": 1}}'),
  { deep: nested(70) },
  { bad: Number.NaN },
  'not an object',
];

/** The record without its id, and its keys in order. */
function body(rec: Fields): { keys: string[]; fields: Record<string, unknown> } {
  const { id: _id, ...fields } = rec;
  return { keys: Object.keys(rec), fields };
}

describe('engine/records plain inserts made ahead', () => {
  let dir: string;
  let db: Database;
  beforeEach(async () => {
    dir = tempDir();
    db = await Database.open({ dataDir: dir, settings: { durability: 'none' } });
  });
  afterEach(async () => {
    await db.close();
    removeDir(dir);
  });

  it('stores what the general path stores, keys in the same order, frozen', async () => {
    await db.records.insert('c', { first: true });
    for (const [i, b] of BODIES.entries()) {
      const made = db.records.findById('c', await db.records.insert('c', b));
      // A body naming its id takes the general path.
      const general = db.records.findById('c', await db.records.insert('c', { ...b, id: `general-${i}` }));
      expect(body(made).keys).to.deep.equal(['id', ...Object.keys(b)]);
      expect(body(made).keys).to.deep.equal(body(general).keys);
      expect(body(made).fields).to.deep.equal(body(general).fields);
      expect(Object.isFrozen(made)).to.equal(true);
    }
    expect(
      db.records.findById('c', await db.records.insert('c', { when: '2026-01-02T03:04:05Z' })).when,
    ).to.be.instanceOf(Tagged);
  });

  it('refuses what the general path refuses, with the same message, and stores nothing', async () => {
    await db.records.insert('c', { first: true });
    for (const b of HOSTILE) {
      const made = await db.records.insert('c', b).then(
        () => 'stored',
        (err: Error) => err.message,
      );
      const general = await db.records.insert('c', typeof b === 'object' ? { id: 'x', ...(b as object) } : b).then(
        () => 'stored',
        (err: Error) => err.message,
      );
      expect(made, JSON.stringify(b)).not.to.equal('stored');
      // (An own __proto__ member cannot be spread into a general-path body: checked against its known message.)
      if (typeof b === 'object' && b !== null && Object.hasOwn(b, '__proto__'))
        expect(made).to.equal("Forbidden field name '__proto__' at top level");
      else expect(made).to.equal(general);
    }
    expect(await db.records.count('c')).to.equal(1);
  });

  it('creates a missing collection, and goes through a schema where there is one', async () => {
    const id = await db.records.insert('fresh', { a: 1 });
    expect(db.records.findById('fresh', id)).to.deep.equal({ id, a: 1 });
    await db.collections.create('typed', { fields: { when: { field_type: 'String' } } });
    const tid = await db.records.insert('typed', { when: '2026-01-02T03:04:05Z' });
    expect(db.records.findById('typed', tid).when, 'a declared String keeps the ISO text').to.equal(
      '2026-01-02T03:04:05Z',
    );
    await db.collections.create('aliased', { fields: { email: { field_type: 'String' } }, primary_key_alias: 'email' });
    expect(await db.records.insert('aliased', { email: 'ann@example.com' })).to.equal('ann@example.com');
  });

  it('a record made before its collection got a schema is inserted through the schema', async () => {
    await db.records.insert('late', { first: true });
    const body = { when: '2026-01-02T03:04:05Z' };
    const record = db.records.makeNew('late', body)!;
    expect(record.when, 'made for a collection without a schema').to.be.instanceOf(Tagged);
    await db.collections.updateSchema('late', { fields: { when: { field_type: 'String' } } });
    const id = await db.write((view) => {
      const effects: Effect[] = [];
      return { effects, result: db.records.insertMade(view, 'late', record, body, effects) };
    });
    expect(id).to.equal(record.id);
    expect(db.records.findById('late', id).when, 'a declared String keeps the ISO text').to.equal(
      '2026-01-02T03:04:05Z',
    );
    expect(db.records.makeNew('late', body), 'none is made while the collection has a schema').to.equal(undefined);
  });

  it('bulk: an item failing in the writer is reported under the id it named, a typed one unwrapped', async () => {
    await db.records.insert('dup', { id: 'taken', n: 0 });
    const res = await db.bulk.insertMany('dup', [
      { id: { type: 'String', value: 'taken' }, n: 1 },
      { id: 'taken', n: 2 },
      { n: 3 },
    ]);
    expect(res.successful).to.have.length(1);
    expect(res.failed.map((f) => [f.index, f.id])).to.deep.equal([
      [0, 'taken'],
      [1, 'taken'],
    ]);
  });

  it('bulk: plain and instruction bodies side by side; a failing plain item is reported without an id', async () => {
    await db.records.insert('b', { first: true });
    const res = await db.bulk.insertMany('b', [
      { a: 1 },
      { id: 'named', a: 2 },
      { constructor: 3 },
      { a: 4, ttl: '1h' },
    ]);
    expect(res.successful).to.have.length(3);
    expect(res.successful[1]).to.equal('named');
    expect(res.failed).to.deep.equal([
      { index: 2, id: null, error: "Forbidden field name 'constructor' at top level" },
    ]);
    expect(db.records.findById('b', res.successful[0]!)).to.deep.equal({ id: res.successful[0], a: 1 });
    expect(Object.keys(db.records.findById('b', res.successful[2]!))).to.deep.equal(['id', 'a', 'ttl']);
    const fresh = await db.bulk.insertMany('new-coll', [{ a: 1 }, { a: 2 }]);
    expect(fresh.successful.map((i) => db.records.findById('new-coll', i).a)).to.deep.equal([1, 2]);
  });
});
