/**
 * An insert into a collection that does not exist yet, failing after the
 * collection was decided on (a bad TTL), used to leave the new collection
 * staged in the writer's view without logging it. A later insert into the
 * same collection in the same group, or in the same bulk request, then
 * logged a put into a collection the state did not have: applying it threw
 * after the log append and the writer hung, refusing nothing and finishing
 * nothing. Now a failed insert contributes nothing.
 */
import { expect } from 'chai';
import { Database } from '../../lib/engine/index.js';
import { tempDir, removeDir } from '../helpers/temp-dir.js';

describe('regression: a failed insert into a new collection leaves nothing for the next insert', () => {
  let dir: string;
  let db: Database;
  beforeEach(async () => {
    dir = tempDir();
    db = await Database.open({ dataDir: dir });
  });
  afterEach(async () => {
    await db.close();
    removeDir(dir);
  });

  it('bulk: a bad first item does not stop the others from creating the collection', async () => {
    const result = await db.bulk.insertMany('fresh', [{ id: 'a', ttl: 'bogus' }, { id: 'b' }]);
    expect(result.successful).to.deep.equal(['b']);
    expect(result.failed.map((f) => f.index)).to.deep.equal([0]);
    expect(db.records.findById('fresh', 'b').id).to.equal('b');
  });

  it('one group: a failed insert and a good one into the same new collection', async () => {
    // The first write keeps the writer busy, so the next two form one group.
    const busy = db.records.insert('other', { id: 'x' });
    const [bad, good] = await Promise.allSettled([
      db.records.insert('fresh', { id: 'a', ttl: 'bogus' }),
      db.records.insert('fresh', { id: 'b' }),
    ]);
    await busy;
    expect(bad.status).to.equal('rejected');
    expect(good).to.deep.equal({ status: 'fulfilled', value: 'b' });
    expect(db.collections.exists('fresh')).to.equal(true);
    await db.close();
    db = await Database.open({ dataDir: dir });
    expect(db.records.findById('fresh', 'b').id).to.equal('b');
  });
});
