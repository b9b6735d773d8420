import { expect } from 'chai';
import { TestServer } from '../helpers/test-server.js';
import { startFakeOpenAi, type FakeProvider } from '../helpers/fake-openai.js';

describe('embeddings (POST /api/embed)', () => {
  let t: TestServer;
  let fake: FakeProvider;
  beforeEach(async () => {
    t = await TestServer.start();
    fake = await startFakeOpenAi();
  });
  afterEach(async () => {
    await t.stop();
    await fake.close();
  });

  it('serves deterministic offline embeddings when no provider is configured', async () => {
    const a = await t.request('POST', '/api/embed', { text: 'the quick brown fox' });
    expect(a.status).to.equal(200);
    expect(a.body.dimensions).to.equal(384);
    expect(a.body.embeddings).to.have.length(1);
    expect(a.body.embeddings[0]).to.have.length(384);
    const b = await t.request('POST', '/api/embed', { texts: ['the quick brown fox', 'tax law'] });
    expect(b.body.embeddings[0]).to.deep.equal(a.body.embeddings[0]);
    expect(fake.requests).to.have.length(0);
  });

  it('uses the OpenAI-compatible provider once configured, and never shows the key in clear', async () => {
    const put = await t.request('PUT', '/api/config', {
      openai_api_key: 'sk-test-secret-1234',
      openai_api_url: fake.url,
    });
    expect(put.status).to.equal(200);
    expect(JSON.stringify(put.body)).to.not.include('sk-test-secret');
    const r = await t.request('POST', '/api/embed', { texts: ['a', 'bbb'], model: 'text-embedding-3-small' });
    expect(r.body).to.deep.include({ model: 'text-embedding-3-small', dimensions: 8 });
    expect(fake.requests[0]!.headers.authorization).to.equal('Bearer sk-test-secret-1234');
    const cfg = await t.request('GET', '/api/config');
    expect(cfg.body.openai_api_key).to.equal('****1234');
    expect(cfg.body.openai_api_key_set).to.equal(true);
  });

  it('classifies provider failures without ever answering 401 or 403', async () => {
    await t.request('PUT', '/api/config', { openai_api_key: 'sk-x', openai_api_url: fake.url });
    const cases: Array<[FakeProvider['behaviour'], number, string]> = [
      [401, 502, 'provider_auth_failed'],
      [403, 502, 'provider_permission_denied'],
      [402, 402, 'provider_billing'],
      [429, 429, 'provider_rate_limited'],
      [500, 502, 'provider_unavailable'],
      ['garbage', 502, 'provider_unavailable'],
    ];
    for (const [behaviour, status, kind] of cases) {
      fake.behaviour = behaviour;
      const r = await t.request('POST', '/api/embed', { text: 'x' });
      expect(r.status, String(behaviour)).to.equal(status);
      expect(r.body.error_kind).to.equal(kind);
      expect(r.body.provider).to.equal('openai');
    }
    fake.behaviour = 429;
    expect((await t.request('POST', '/api/embed', { text: 'x' })).body.retry_after_secs).to.equal(7);
    await fake.close();
    const down = await t.request('POST', '/api/embed', { text: 'x' });
    expect(down.status).to.equal(502);
    expect(down.body.error_kind).to.equal('provider_unreachable');
  });

  it('rejects bad bodies with 400', async () => {
    for (const body of [
      {},
      { text: 1 },
      { texts: 'a' },
      { text: 'a', texts: ['b'] },
      { texts: [] },
      { text: 'a', extra: 1 },
    ]) {
      expect((await t.request('POST', '/api/embed', body)).status, JSON.stringify(body)).to.equal(400);
    }
  });
});
