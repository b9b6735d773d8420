/**
 * Stored-function definitions replicate with ripples: saved, replaced and deleted on one node, callable (or gone) on
 * its peer.
 */
import { expect } from 'chai';
import { ADMIN_KEY, TestServer } from '../helpers/test-server.js';

async function eventually(check: () => Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('HTTP stored functions: ripples', function () {
  this.timeout(30_000);
  let a: TestServer;
  let b: TestServer;
  beforeEach(async () => {
    a = await TestServer.start({ rippleMaxBackoffMs: 200 });
    b = await TestServer.start({ rippleMaxBackoffMs: 200 });
    a.server.ripples.setPeers([{ url: b.url, key: ADMIN_KEY }]);
  });
  afterEach(async () => {
    await a.stop();
    await b.stop();
  });

  it('saves, replaces and deletes on a peer, which recompiles', async () => {
    const def = { label: 'hello', name: 'h', functions: [{ type: 'Return', fields: { v: 1 } }] };
    expect((await a.request('POST', '/api/functions', def)).status).to.equal(200);
    await eventually(
      async () => (await b.request('POST', '/api/functions/hello', {})).status === 200,
      'the function on b',
    );
    expect((await b.request('POST', '/api/functions/hello', {})).body).to.deep.equal({ v: 1 });

    await a.request('PUT', '/api/functions/hello', { ...def, functions: [{ type: 'Return', fields: { v: 2 } }] });
    await eventually(
      async () => (await b.request('POST', '/api/functions/hello', {})).body?.v === 2,
      'the replacement on b',
    );

    await a.request('DELETE', '/api/functions/hello');
    await eventually(
      async () => (await b.request('POST', '/api/functions/hello', {})).status === 404,
      'the delete on b',
    );
  });
});
