/**
 * The test control a test server serves over the wire (POST /api/testing/...),
 * for tests that reach the server by URL alone: reset, named checkpoints and
 * the clock; refused to non-admins, and a 404 on any other server.
 */
import { expect } from 'chai';
import { fixtureCall } from '../helpers/fixture-call.js';
import { startTestServer, type TestServer } from '../../lib/testing.js';
import { TestServer as PlainServer } from '../helpers/test-server.js';

const call = fixtureCall;

const count = async (t: TestServer, collection: string) =>
  ((await call(t, 'POST', `/api/find/${collection}`, {})).body as unknown[]).length;

describe('eddydb/testing: test control over the wire', function () {
  this.timeout(20_000);
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer({
      seed: { collections: { items: [{ n: 1 }] } },
      clock: { frozen: true, start: '2030-01-01T00:00:00Z' },
    });
  });
  afterEach(() => t.close());

  it('resets by URL, from a request that is itself in flight', async () => {
    await call(t, 'POST', '/api/insert/items', { n: 2 });
    expect(await call(t, 'POST', '/api/testing/reset')).to.deep.equal({ status: 200, body: { reset: true } });
    expect(await count(t, 'items')).to.equal(1);
  });

  it('takes named checkpoints and restores them; an unknown or discarded one is a 404', async () => {
    const first = await call(t, 'POST', '/api/testing/checkpoints');
    expect(first.status).to.equal(201);
    await call(t, 'POST', '/api/insert/items', { n: 2 });
    const second = (await call(t, 'POST', '/api/testing/checkpoints')).body.checkpoint_id as string;
    await call(t, 'POST', '/api/insert/items', { n: 3 });
    expect((await call(t, 'POST', `/api/testing/checkpoints/${second}/restore`)).status).to.equal(200);
    expect(await count(t, 'items')).to.equal(2);
    const id = first.body.checkpoint_id as string;
    expect((await call(t, 'POST', `/api/testing/checkpoints/${id}/restore`)).body).to.deep.equal({ restored: id });
    expect(await count(t, 'items')).to.equal(1);
    const gone = await call(t, 'POST', `/api/testing/checkpoints/${second}/restore`);
    expect(gone.status).to.equal(404);
    expect(gone.body.error).to.match(/No checkpoint/);
  });

  it('reads and moves the clock: advance, set, freeze; a bad duration is a 400', async () => {
    expect((await call(t, 'GET', '/api/testing/clock')).body).to.deep.equal({
      now: '2030-01-01T00:00:00.000Z',
      frozen: true,
    });
    const token = await t.token();
    const { body } = await call(t, 'POST', '/api/insert/items', { n: 2, ttl: '10m' }, token);
    const moved = await call(t, 'POST', '/api/testing/clock', { advance: '11m' }, token);
    expect(moved.body).to.deep.equal({ now: '2030-01-01T00:11:00.000Z', frozen: true });
    expect((await call(t, 'GET', `/api/find/items/${body.id}`, undefined, token)).status).to.equal(404);
    const set = await call(t, 'POST', '/api/testing/clock', { set: '2031-06-01T12:00:00Z', freeze: false });
    expect(set.body.frozen).to.equal(false);
    expect(Date.parse(set.body.now)).to.be.at.least(Date.parse('2031-06-01T12:00:00Z'));
    const bad = await call(t, 'POST', '/api/testing/clock', { advance: 'soon' });
    expect(bad.status).to.equal(400);
    expect(bad.body.error).to.match(/cannot read the duration "soon"/);
    expect((await call(t, 'POST', '/api/testing/clock', { advance: '1m', set: 0 })).status).to.equal(400);
    expect((await call(t, 'POST', '/api/testing/clock', { later: '1m' })).status).to.equal(400);
  });

  it('refuses a caller that is not an admin', async () => {
    const key = await call(t, 'POST', '/api/auth/keys', { name: 'reader' });
    const token = await t.token(key.body.key as string);
    expect((await call(t, 'POST', '/api/testing/reset', undefined, token)).status).to.equal(403);
  });

  it('is a 404 on a server that is not a test server', async () => {
    const plain = await PlainServer.start({ memory: true });
    try {
      const answer = await plain.request('POST', '/api/testing/reset');
      expect(answer.status).to.equal(404);
      expect(answer.body.error).to.match(/served only by a test server/);
    } finally {
      await plain.stop();
    }
  });
});
