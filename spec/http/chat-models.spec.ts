/**
 * GET /api/chat_models and /api/chat_models/{provider} through a real
 * server against fake vendors, every status of the provider status entry,
 * and PUT /api/config: masked keys and `provider_checks`.
 */
import { expect } from 'chai';
import { TestServer, errorBody } from '../helpers/test-server.js';
import { FAKE_OPENAI_MODELS, startFakeOpenAi } from '../helpers/fake-openai.js';
import { FAKE_ANTHROPIC_MODELS, startFakeAnthropic } from '../helpers/fake-anthropic.js';
import type { FakeVendor } from '../helpers/fake-vendor.js';
import { PERPLEXITY_MODELS } from '../../lib/chat/providers/perplexity.js';

describe('chat models and provider status (GET /api/chat_models)', function () {
  this.timeout(20_000);
  let t: TestServer;
  let openai: FakeVendor;
  let anthropic: FakeVendor;
  beforeEach(async () => {
    t = await TestServer.start();
    openai = await startFakeOpenAi();
    anthropic = await startFakeAnthropic();
  });
  afterEach(async () => {
    await t.stop();
    await openai.close();
    await anthropic.close();
  });

  it('lists empty vendor arrays and not_configured entries when nothing is configured; local is always ok', async () => {
    const r = await t.request('GET', '/api/chat_models');
    expect(r.status).to.equal(200);
    expect(r.body).to.deep.include({ openai: [], anthropic: [], perplexity: [], openai_compatible: [] });
    for (const p of ['openai', 'anthropic', 'perplexity', 'openai_compatible']) {
      expect(r.body.providers[p], p).to.deep.include({ status: 'not_configured', verified: false });
    }
    expect(r.body.providers.local).to.deep.include({ status: 'ok', verified: false, model_count: 1 });
  });

  it("lists each configured vendor's models with ok entries (perplexity: static list, unverified)", async () => {
    const put = await t.request('PUT', '/api/config', {
      openai_api_key: 'sk-openai-secret-1234',
      openai_api_url: openai.url,
      anthropic_api_key: 'sk-ant-secret-5678',
      anthropic_api_url: anthropic.url,
      perplexity_api_key: 'pplx-secret-9012',
      openai_compatible_url: openai.url.replace(/\/v1$/, ''),
    });
    expect(put.status).to.equal(200);
    const r = await t.request('GET', '/api/chat_models');
    expect(r.body.openai).to.deep.equal(FAKE_OPENAI_MODELS);
    expect(r.body.anthropic).to.deep.equal(FAKE_ANTHROPIC_MODELS);
    expect(r.body.perplexity).to.deep.equal([...PERPLEXITY_MODELS]);
    expect(r.body.openai_compatible).to.deep.equal(FAKE_OPENAI_MODELS);
    expect(r.body.providers.openai).to.deep.equal({ status: 'ok', verified: true, model_count: 2 });
    expect(r.body.providers.anthropic).to.deep.equal({ status: 'ok', verified: true, model_count: 2 });
    expect(r.body.providers.perplexity).to.deep.include({ status: 'ok', verified: false });
    expect(anthropic.requests.at(-1)!.headers['x-api-key']).to.equal('sk-ant-secret-5678');
    expect(JSON.stringify(r.body)).to.not.contain('secret');
  });

  const statuses: Array<[FakeVendor['behaviour'], string, boolean, number | undefined]> = [
    [401, 'auth_failed', true, 401],
    [403, 'permission_denied', true, 403],
    [402, 'billing', true, 402],
    ['insufficient_quota', 'billing', true, 429],
    [429, 'rate_limited', false, 429],
    [500, 'unavailable', false, 500],
    ['garbage', 'unavailable', false, 200],
    [400, 'request_error', false, 400],
  ];
  for (const [behaviour, status, verified, http] of statuses) {
    it(`reports a vendor answering ${behaviour} as ${status}, and /api/chat_models/{p} as the classified body`, async () => {
      await t.request('PUT', '/api/config', { openai_api_key: 'sk-x', openai_api_url: openai.url });
      openai.behaviour = behaviour;
      const r = await t.request('GET', '/api/chat_models');
      expect(r.status).to.equal(200);
      expect(r.body.openai).to.deep.equal([]);
      expect(r.body.providers.openai).to.deep.include({ status, verified, http_status: http });
      const one = await t.request('GET', '/api/chat_models/openai');
      expect(one.status).to.not.be.oneOf([200, 401, 403]);
      expect(one.body).to.include({ provider: 'openai', provider_status: http });
      expect(one.body.error_kind).to.equal(`provider_${status}`);
      expect(one.body.error).to.be.a('string');
      if (behaviour === 429) {
        expect(one.status).to.equal(429);
        expect(one.headers.get('retry-after')).to.equal('7');
        expect(one.body.retry_after_secs).to.equal(7);
      }
    });
  }

  it('reports unreachable when the vendor does not answer (closed port, or past provider_timeout_ms)', async () => {
    const closed = openai.url;
    await openai.close();
    await t.request('PUT', '/api/config', { openai_api_key: 'sk-x', openai_api_url: closed });
    const r = await t.request('GET', '/api/chat_models');
    expect(r.body.providers.openai).to.deep.include({ status: 'unreachable', verified: false });
    expect(r.body.providers.openai).to.not.have.property('http_status');
    openai = await startFakeOpenAi();
    openai.behaviour = 'hang';
    await t.request('PUT', '/api/config', { openai_api_url: openai.url, provider_timeout_ms: 200 });
    const one = await t.request('GET', '/api/chat_models/openai');
    expect(one.status).to.equal(502);
    expect(one.body).to.include({ error_kind: 'provider_unreachable', provider: 'openai', provider_status: null });
  });

  it(
    'answers /api/chat_models/{p} with a bare array, 404 provider_not_configured when unconfigured, non-2xx for ' +
      'unknown',
    async () => {
      await t.request('PUT', '/api/config', { anthropic_api_key: 'k', anthropic_api_url: anthropic.url });
      const ok = await t.request('GET', '/api/chat_models/anthropic');
      expect([ok.status, ok.body]).to.deep.equal([200, FAKE_ANTHROPIC_MODELS]);
      expect((await t.request('GET', '/api/chat_models/local')).body).to.deep.equal(['eddydb-local']);
      const missing = await t.request('GET', '/api/chat_models/perplexity');
      expect(missing.status).to.equal(404);
      expect(errorBody(missing)).to.deep.equal({
        error: "Provider 'perplexity' is not configured",
        error_kind: 'provider_not_configured',
        provider: 'perplexity',
        provider_status: null,
      });
      const unknown = await t.request('GET', '/api/chat_models/nope');
      expect(unknown.status).to.equal(404);
      expect((await t.request('GET', '/api/chat_models/__proto__')).status).to.equal(404);
    },
  );

  it('needs a token', async () => {
    expect((await t.request('GET', '/api/chat_models', undefined, { token: null })).status).to.equal(401);
  });
});

describe('PUT /api/config: provider keys masked and probed on save (provider_checks)', function () {
  this.timeout(20_000);
  let t: TestServer;
  let openai: FakeVendor;
  beforeEach(async () => {
    t = await TestServer.start();
    openai = await startFakeOpenAi();
  });
  afterEach(async () => {
    await t.stop();
    await openai.close();
  });

  it('returns provider_checks for each provider whose key or URL changed, in the status-entry shape', async () => {
    const r = await t.request('PUT', '/api/config', {
      openai_api_key: 'sk-live-abcdefgh1234',
      openai_api_url: openai.url,
      perplexity_api_key: 'pplx-abcdefgh5678',
    });
    expect(r.status).to.equal(200);
    expect(r.body.provider_checks).to.deep.equal({
      openai: { status: 'ok', verified: true, model_count: 2 },
      perplexity: { status: 'ok', verified: false, model_count: PERPLEXITY_MODELS.length },
    });
    openai.behaviour = 401;
    const bad = await t.request('PUT', '/api/config', { openai_api_key: 'sk-wrong-abcdefgh0000' });
    expect(bad.status).to.equal(200);
    expect(bad.body.provider_checks.openai).to.deep.include({
      status: 'auth_failed',
      verified: true,
      http_status: 401,
    });
    const removed = await t.request('PUT', '/api/config', { openai_api_key: null, openai_api_url: null });
    expect(removed.body.provider_checks.openai).to.deep.include({ status: 'not_configured', verified: false });
    expect((await t.request('PUT', '/api/config', { use_typed_values: true })).body).to.not.have.property(
      'provider_checks',
    );
  });

  it('never returns a key in clear, in GET or PUT', async () => {
    const keys = {
      openai_api_key: 'sk-openai-abcdefgh1111',
      anthropic_api_key: 'sk-ant-abcdefgh2222',
      perplexity_api_key: 'pplx-abcdefgh3333',
      openai_compatible_api_key: 'local-abcdefgh4444',
      openai_compatible_url: openai.url,
    };
    const put = await t.request('PUT', '/api/config', { ...keys, provider_timeout_ms: 500 });
    const get = await t.request('GET', '/api/config');
    for (const body of [put.body, get.body]) {
      const text = JSON.stringify(body);
      for (const [name, key] of Object.entries(keys)) {
        if (!name.endsWith('_key')) continue;
        expect(text).to.not.contain(key);
        expect(body[name]).to.equal(`****${key.slice(-4)}`);
        expect(body[`${name}_set`]).to.equal(true);
      }
    }
    expect(get.body.openai_compatible_url).to.equal(openai.url);
  });

  it('refuses bad provider settings with 400 and changes nothing', async () => {
    for (const body of [{ anthropic_api_key: 12 }, { perplexity_api_url: 'ftp://x' }, { provider_timeout_ms: 5 }]) {
      expect((await t.request('PUT', '/api/config', body)).status, JSON.stringify(body)).to.equal(400);
    }
  });
});
