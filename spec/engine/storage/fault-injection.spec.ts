import { expect } from 'chai';
import { Database } from '../../../lib/engine/index.js';
import { Unavailable } from '../../../lib/errors.js';
import { FaultyFs } from '../../helpers/faulty-fs.js';
import { TestServer } from '../../helpers/test-server.js';
import { tempDir, removeDir } from '../../helpers/temp-dir.js';

describe('engine/storage on a failing disk', () => {
  let dir: string;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => removeDir(dir));

  for (const fault of ['failWrites', 'failSyncs'] as const) {
    it(`turns read-only instead of acknowledging when ${fault === 'failWrites' ? 'an append' : 'an fsync'} fails`, async () => {
      const fs = new FaultyFs();
      const db = await Database.open({ dataDir: dir, fs });
      const kept = await db.records.insert('items', { n: 1 });
      fs[fault] = true;
      let err: unknown;
      try {
        await db.records.insert('items', { n: 2 });
      } catch (e) {
        err = e;
      }
      expect(err).to.be.instanceOf(Unavailable);
      expect(db.readOnly).to.equal(true);
      // The failed write is not visible, and later writes are refused until a repair succeeds (the first retry is 1 s
      // away).
      expect(await db.records.count('items')).to.equal(1);
      fs[fault] = false;
      let again: unknown;
      try {
        await db.records.insert('items', { n: 3 });
      } catch (e) {
        again = e;
      }
      expect(again).to.be.instanceOf(Unavailable);
      expect(db.records.findById('items', kept).n).to.equal(1);
      await db.close();
      const reopened = await Database.open({ dataDir: dir });
      expect(await reopened.records.count('items'), 'the rejected write is not recovered').to.equal(1);
      expect(reopened.records.findById('items', kept).n).to.equal(1);
      await reopened.close();
    });
  }

  it('answers writes with 503 {code, message} and reports degraded health over HTTP', async () => {
    const fs = new FaultyFs();
    const t = await TestServer.start({ fs });
    try {
      const ok = await t.request('POST', '/api/insert/items', { n: 1 });
      expect(ok.status).to.equal(201);
      fs.failSyncs = true;
      const bad = await t.request('POST', '/api/insert/items', { n: 2 });
      expect(bad.status).to.equal(503);
      expect(bad.body).to.have.property('code', 503);
      expect(bad.body.message).to.match(/read-only/);
      const health = await t.request('GET', '/api/health');
      expect(health.status).to.equal(200);
      expect(health.body.status).to.equal('degraded');
      expect(health.body.read_only).to.equal(true);
      const read = await t.request('GET', `/api/find/items/${ok.body.id}`);
      expect(read.status).to.equal(200);
    } finally {
      fs.failSyncs = false;
      await t.stop();
    }
  });
});
