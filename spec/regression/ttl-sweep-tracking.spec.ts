/**
 * The TTL sweeper visits only records that carry a TTL. It must still find
 * records loaded at startup, TTLs added or removed by updates, and forget
 * records that were deleted.
 */
import { expect } from 'chai';
import { TestServer, errorBody } from '../helpers/test-server.js';

describe('regression: the TTL sweeper tracks exactly the records that carry a TTL', () => {
  let t: TestServer;
  afterEach(async () => {
    await t.stop();
  });

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
    expect(errorBody(await t.request('GET', '/api/find/s/old'))).to.deep.equal({ error: 'Record has been deleted' });
  });
});

describe('regression: the TTL sweeper scans a large collection without holding the event loop', () => {
  let t: TestServer;
  afterEach(async () => {
    await t.stop();
  });

  it('lets other work run while it indexes 100,000 recovered records, and keeps the writes made meanwhile', async function () {
    this.timeout(60_000);
    t = await TestServer.start();
    for (let b = 0; b < 10; b++) {
      const inserts = Array.from({ length: 10_000 }, (_, i) => ({
        data: { id: `r${b * 10_000 + i}`, n: i, ...(i % 2 === 0 ? { ttl: '10m' } : {}) },
      }));
      expect((await t.request('POST', '/api/batch/insert/big', { inserts })).status).to.equal(201);
    }
    const dir = t.dataDir;
    const now = t.clock.now();
    await t.stop({ keepData: true });
    t = await TestServer.start({ dataDir: dir });
    t.clock.set(now);

    let turns = 0;
    let sweeping = true;
    const spin = () => {
      turns++;
      if (sweeping) setImmediate(spin);
    };
    setImmediate(spin);
    // The first sweep indexes what recovery loaded; these writes arrive while it does.
    const first = t.server.db.records.expiry.sweep();
    const writes = Promise.all([
      t.request('PUT', '/api/update/big/r99998', { ttl: null }),
      t.request('DELETE', '/api/delete/big/r99996'),
      t.request('POST', '/api/insert/big', { id: 'late', ttl: '1m' }),
    ]);
    expect(await first).to.equal(0);
    sweeping = false;
    expect((await writes).map((r) => r.status)).to.deep.equal([200, 200, 201]);
    expect(turns).to.be.greaterThan(1);

    t.clock.advance(11 * 60_000);
    expect(await t.server.db.records.expiry.sweep()).to.equal(50_000 - 2 + 1);
    expect((await t.request('GET', '/api/find/big/r99998')).status).to.equal(200);
    expect(errorBody(await t.request('GET', '/api/find/big/r0'))).to.deep.equal({ error: 'Record has been deleted' });
    expect((await t.request('GET', '/api/find/big/r1')).status).to.equal(200);
  });
});
