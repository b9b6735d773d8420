/**
 * The orchestrator probes over real HTTP: `GET /api/health/live` answers
 * 200 while the process serves; `GET /api/health/ready` answers 200 when
 * the server can take traffic and 503 naming what is not ready (storage
 * read-only after a failure, a server shutting down), with no token and
 * a small body that names no collection.
 */
import { expect } from 'chai';
import { TestServer } from '../helpers/test-server.js';
import { FaultyFs } from '../helpers/faulty-fs.js';

const READY_CHECKS = { recovery: 'done', storage: 'writable', search_indexes: 'ready', shutdown: 'no', auth: 'ready' };

describe('health probes for orchestrators', () => {
  it('answers live and ready without a token, in small bodies', async () => {
    const t = await TestServer.start({ memory: true });
    try {
      const live = await t.request('GET', '/api/health/live', undefined, { token: null });
      expect(live.status).to.equal(200);
      expect(live.body).to.deep.equal({ status: 'live' });
      const ready = await t.request('GET', '/api/health/ready', undefined, { token: null });
      expect(ready.status).to.equal(200);
      expect(ready.body).to.deep.equal({ status: 'ready', checks: READY_CHECKS });
      expect(ready.text.length).to.be.below(200);
      // A bad token is no reason to fail a probe.
      const withBadToken = await t.request('GET', '/api/health/ready', undefined, { token: 'not-a-token' });
      expect(withBadToken.status).to.equal(200);
    } finally {
      await t.stop();
    }
  });

  it('counts search indexes still building as ready', async () => {
    const t = await TestServer.start({ memory: true });
    try {
      await t.request('POST', '/api/batch/insert/docs', {
        inserts: Array.from({ length: 50 }, (_, i) => ({ data: { title: `red shoes ${i}` } })),
      });
      const search = await t.request('POST', '/api/search/docs', { query: 'shoes' });
      expect(search.status).to.equal(200);
      const ready = await t.request('GET', '/api/health/ready', undefined, { token: null });
      expect(ready.status).to.equal(200);
      expect(ready.body.checks.search_indexes).to.be.oneOf(['ready', 'building']);
    } finally {
      await t.stop();
    }
  });

  it('is not ready while storage is read-only after a failure, and ready again once repaired', async () => {
    const fs = new FaultyFs();
    const t = await TestServer.start({ fs, healRetryMs: 20, healRetryMaxMs: 20 });
    try {
      fs.failSyncs = true;
      const refused = await t.request('POST', '/api/insert/items', { n: 1 });
      expect(refused.status).to.equal(503);
      const ready = await t.request('GET', '/api/health/ready', undefined, { token: null });
      expect(ready.status).to.equal(503);
      expect(ready.body).to.deep.equal({
        status: 'not_ready',
        checks: { ...READY_CHECKS, storage: 'read-only' },
        reasons: ['storage is read-only after a storage failure; writes are refused until it is repaired'],
      });
      const live = await t.request('GET', '/api/health/live', undefined, { token: null });
      expect(live.status).to.equal(200);
      fs.failSyncs = false;
      let again = ready;
      for (let i = 0; i < 100 && again.status !== 200; i++) {
        await new Promise((r) => setTimeout(r, 20));
        again = await t.request('GET', '/api/health/ready', undefined, { token: null });
      }
      expect(again.status, 'ready once the storage is repaired').to.equal(200);
    } finally {
      fs.failSyncs = false;
      await t.stop();
    }
  });

  it('is not ready once the server begins to shut down', async () => {
    const t = await TestServer.start({ memory: true });
    const closing = t.server.close();
    try {
      // The request goes through the same dispatcher as HTTP: the listener is closing, so it is called directly.
      const ready = await t.server.dispatcher.handle({ method: 'GET', url: '/api/health/ready', headers: {} });
      expect(ready.status).to.equal(503);
      const body = JSON.parse(String(ready.body)) as Record<string, unknown>;
      expect(body.checks).to.deep.include({ shutdown: 'closing' });
      expect(body.reasons).to.deep.equal(['the server is shutting down']);
    } finally {
      await closing;
    }
  });
});
