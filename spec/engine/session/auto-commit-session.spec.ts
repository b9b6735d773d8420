/** The auto-commit session, directly on a Database: each statement is durable on its own. */
import { expect } from 'chai';
import { Database, parseFilter, parseQuery, parseSearch, type Session } from '../../../lib/engine/index.js';
import { NotFound } from '../../../lib/errors.js';
import { removeDir, tempDir } from '../../helpers/temp-dir.js';

describe('engine/session auto-commit', () => {
  let dir: string;
  let db: Database;
  let s: Session;
  beforeEach(async () => {
    dir = tempDir();
    db = await Database.open({ dataDir: dir });
    s = db.session({ keyId: 'k1', admin: false });
  });
  afterEach(async () => {
    await db.close();
    removeDir(dir);
  });

  it('has no transaction and is the same for every caller', () => {
    expect(s.transactionId).to.equal(undefined);
    expect(db.session(undefined)).to.equal(s);
  });

  it('inserts, reads, updates, applies actions and deletes, each visible to every reader at once', async () => {
    const id = await s.insert('users', { name: 'Ann', visits: 1 });
    expect(db.records.findById('users', id)).to.include({ name: 'Ann' });
    expect(await s.update('users', id, { name: 'Annie' })).to.include({ name: 'Annie', visits: 1 });
    expect(await s.applyActions('users', id, [{ action: 'increment', field: 'visits', value: 2 }])).to.include({
      visits: 3,
    });
    expect(s.findById('users', id)).to.include({ name: 'Annie', visits: 3 });
    expect(await s.delete('users', id)).to.equal(id);
    expect(() => s.findById('users', id)).to.throw(NotFound);
  });

  it('finds with a filter and a projection', async () => {
    await s.insert('users', { id: 'a', name: 'Ann', age: 30 });
    await s.insert('users', { id: 'b', name: 'Bob', age: 20 });
    const rows = await s.find(
      'users',
      parseQuery({ filter: { field: 'age', operator: 'Gt', value: 25 }, select_fields: ['name'] }),
    );
    expect(rows).to.deep.equal([{ id: 'a', name: 'Ann' }]);
  });

  it("counts live records and lists distinct values, sorted, among the filter's matches", async () => {
    await s.insert('users', { id: 'a', city: 'Oslo', age: 30 });
    await s.insert('users', { id: 'b', city: 'Bergen', age: 20 });
    await s.insert('users', { id: 'c', city: 'Oslo', age: 40 });
    expect(await s.count('users')).to.equal(3);
    expect(await s.count('nobody')).to.equal(0);
    expect(await s.distinct('users', 'city')).to.deep.equal(['Bergen', 'Oslo']);
    expect(await s.distinct('users', 'city', parseFilter({ field: 'age', operator: 'Gt', value: 25 }))).to.deep.equal([
      'Oslo',
    ]);
  });

  it('writes many records, reporting a failing item alone', async () => {
    const res = await s.writeMany('users', [
      { kind: 'insert', body: { id: 'a', name: 'Ann' } },
      { kind: 'insert', body: 'not a record' },
      { kind: 'insert', body: { id: 'b', name: 'Bob' } },
    ]);
    expect(res.successful).to.deep.equal(['a', 'b']);
    expect(res.failed.map((f) => f.error)).to.deep.equal(['Record must be a JSON object']);
    expect(await db.records.count('users')).to.equal(2);
  });

  it('searches committed records', async () => {
    await s.insert('docs', { id: 'a', title: 'red shoes' });
    await s.insert('docs', { id: 'b', title: 'blue hat' });
    const { results, total } = await s.search('docs', parseSearch({ query: 'shoes' }));
    expect(total).to.equal(1);
    expect(results[0]!.record.id).to.equal('a');
  });
});
