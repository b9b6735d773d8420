/** Health, tokens, keys, config, snapshots, audit, ripples, the document itself: answers against the document. */
import { expect } from 'chai';
import { ADMIN_KEY } from '../../../helpers/test-server.js';
import { startTestServer } from '../../../../lib/testing/index.js';
import type { Exchanges } from '../exchanges.js';

export function systemAnswers(h: Exchanges): void {
  describe('system', () => {
    it('health, with and without an admin token', async () => {
      await h.call('GET', '/api/health', undefined, { token: null, expect: 200 });
      await h.call('GET', '/api/health', undefined, { expect: 200 });
      await h.call('GET', '/api/openapi.json', undefined, { token: null, expect: 200 });
      await h.call('GET', '/api/health/live', undefined, { token: null, expect: 200 });
      await h.call('GET', '/api/health/ready', undefined, { token: null, expect: 200 });
      h.assertClean();
    });

    it('tokens: granted, refused, malformed', async () => {
      await h.call('POST', '/api/auth/token', { api_key: ADMIN_KEY }, { token: null, expect: 200 });
      await h.call('POST', '/api/auth/token', { api_key: 'wrong' }, { token: null, expect: 401 });
      await h.call('POST', '/api/auth/token', { key: 'x' }, { token: null, expect: 400 });
      await h.call('GET', '/api/config', undefined, { token: null, expect: 401 });
      await h.call('GET', '/api/config', undefined, { token: 'not-a-token', expect: 401 });
      h.assertClean();
    });

    it('keys: create, list, update, revoke, and a user refused an admin route', async () => {
      const created = await h.call(
        'POST',
        '/api/auth/keys',
        {
          name: 'reader',
          collection_permissions: { users: { read: true, write: false }, '*': ['read'] },
          kv_permissions: { read: true, write: true, prefixes: ['app:'] },
          rate_limit: 0,
        },
        { expect: 201 },
      );
      await h.call('POST', '/api/auth/keys', {}, { expect: 201 });
      await h.call('POST', '/api/auth/keys', { name: 5 }, { expect: 400 });
      await h.call('GET', '/api/auth/keys', undefined, { expect: 200 });
      await h.call('PUT', `/api/auth/keys/${created.body.id}`, { name: 'reader2', admin: false }, { expect: 200 });
      await h.call('PUT', '/api/auth/keys/nope', { name: 'x' }, { expect: 404 });
      const token = await h.t.tokenFor(created.body.key);
      await h.call('GET', '/api/auth/keys', undefined, { token, expect: 403 });
      const me = await h.call('GET', '/api/auth/me', undefined, { token, expect: 200 });
      expect(me.body).to.include({ id: created.body.id, name: 'reader2', admin: false });
      expect(me.body).to.not.have.property('key');
      await h.call('GET', '/api/auth/me', undefined, { expect: 200 });
      await h.call('GET', '/api/auth/me', undefined, { token: null, expect: 401 });
      await h.call('DELETE', `/api/auth/keys/${created.body.id}`, undefined, { expect: 200 });
      h.assertClean();
    });

    it('config: read, change, refuse an unknown key', async () => {
      const config = await h.call('GET', '/api/config', undefined, { expect: 200 });
      expect(config.body.use_typed_values).to.equal(true);
      await h.call('PUT', '/api/config', { rate_limit_window_secs: 60, openai_api_key: null }, { expect: 200 });
      await h.call('PUT', '/api/config', { durable_operations: true }, { expect: 200 });
      await h.call('PUT', '/api/config', { no_such_setting: 1 }, { expect: 400 });
      h.assertClean();
    });

    it('snapshot, audit trail, ripples', async () => {
      await h.call('POST', '/api/admin/snapshot', undefined, { expect: 200 });
      const backup = await h.download('/api/admin/backup');
      expect(backup.status).to.equal(200);
      expect(backup.bytes).to.be.greaterThan(0);
      const metrics = await h.download('/metrics');
      expect(metrics.status).to.equal(200);
      await h.call('GET', '/api/admin/audit?limit=5', undefined, { expect: 200 });
      await h.call('GET', '/api/admin/audit?limit=0', undefined, { expect: 400 });
      await h.call('GET', '/api/ripple/status', undefined, { expect: 200 });
      await h.call('POST', '/api/ripple/resync', {}, { expect: 200 });
      await h.call('POST', '/api/ripple/resync', { peer: 'http://127.0.0.1:1' }, { expect: 404 });
      await h.call('POST', '/api/ripple/apply', { batches: [] }, { expect: 200 });
      await h.call('POST', '/api/ripple/apply', {}, { expect: 400 });
      h.assertClean();
    });

    it('test control answers 404 on a server that is not a test server', async () => {
      await h.call('POST', '/api/testing/reset', undefined, { expect: 404 });
      await h.call('POST', '/api/testing/checkpoints', undefined, { expect: 404 });
      await h.call('POST', '/api/testing/checkpoints/c1/restore', undefined, { expect: 404 });
      await h.call('GET', '/api/testing/clock', undefined, { expect: 404 });
      await h.call('POST', '/api/testing/clock', { advance: '1m' }, { expect: 404 });
      h.assertClean();
    });

    it('test control on a test server: checkpoint, restore, clock, reset', async () => {
      const server = await startTestServer();
      try {
        const target = { url: server.url, token: await server.token() };
        const taken = await h.call('POST', '/api/testing/checkpoints', undefined, { target, expect: 201 });
        await h.call('POST', `/api/testing/checkpoints/${taken.body.checkpoint_id}/restore`, undefined, {
          target,
          expect: 200,
        });
        await h.call('POST', '/api/testing/checkpoints/nope/restore', undefined, { target, expect: 404 });
        await h.call('GET', '/api/testing/clock', undefined, { target, expect: 200 });
        await h.call('POST', '/api/testing/clock', { advance: '10m', freeze: true }, { target, expect: 200 });
        await h.call('POST', '/api/testing/clock', { advance: 1, set: 2 }, { target, expect: 400 });
        await h.call('POST', '/api/testing/reset', undefined, { target, expect: 200 });
      } finally {
        await server.close();
      }
      h.assertClean();
    });

    it('a path no route serves, and a method a path does not take', async () => {
      await h.call('GET', '/api/no/such/route', undefined, { expect: 404 });
      await h.call('PATCH', '/api/health', undefined, { expect: 405 });
      h.assertClean();
    });
  });
}
