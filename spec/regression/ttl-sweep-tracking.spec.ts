/**
 * The TTL sweeper visits only records that carry a TTL. It must still find
 * records loaded at startup, TTLs added or removed by updates, and forget
 * records that were deleted.
 */
import { expect } from 'chai';
import { TestServer } from '../helpers/test-server.js';

describe('regression: the TTL sweeper tracks exactly the records that carry a TTL', () => {
  let t: TestServer;
  afterEach(async () => { await t.stop(); });

  it('sweeps records recovered at startup, TTLs set or cleared by update, and skips deleted ones', async () => {
    t = await TestServer.start();
    await t.request('POST', '/api/insert/s', { id: 'old', ttl: '1m' });
    await t.request('POST', '/api/insert/s', { id: 'plain' });
    await t.request('POST', '/api/insert/s', { id: 'cleared', ttl: '1m' });
    await t.request('POST', '/api/insert/s', { id: 'gone', ttl: '1m' });
    const dir = t.dataDir;
    const now = t.clock.now();
    await t.stop({ keepData: true });
    t = await TestServer.start({ dataDir: dir });
    t.clock.set(now);
    await t.request('PUT', '/api/update/s/plain', { ttl: '1m' });
    await t.request('PUT', '/api/update/s/cleared', { ttl: null });
    await t.request('DELETE', '/api/delete/s/gone');
    t.clock.advance(61_000);
    expect(await t.server.db.records.expiry.sweep()).to.equal(2);
    const left = (await t.request('POST', '/api/find/s', {})).body.map((r: { id: string }) => r.id);
    expect(left).to.deep.equal(['cleared']);
    expect((await t.request('GET', '/api/find/s/old')).body).to.deep.equal({ error: 'Record has been deleted' });
  });
});
