/**
 * POST /api/chat/complete and /api/chat/complete/stream through a real
 * server: the default `local` provider, a fake vendor, classified errors
 * (whole, and as SSE error frames), heartbeats as comments, and a client
 * that goes away cancelling the upstream request.
 */
import { expect } from 'chai';
import WebSocket from 'ws';
import { TestServer, errorBody } from '../helpers/test-server.js';
import { startFakeOpenAi } from '../helpers/fake-openai.js';
import { startFakeAnthropic } from '../helpers/fake-anthropic.js';
import type { FakeVendor } from '../helpers/fake-vendor.js';
import { postChatSse, startChatStreamServers, until } from '../helpers/chat-sse.js';

describe('raw completion (POST /api/chat/complete)', function () {
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

  it('answers with the offline local provider when none is configured', async () => {
    const r = await t.request('POST', '/api/chat/complete', {
      system_prompt: 'Context:\n- the sky is blue',
      message: 'What colour is the sky?',
    });
    expect(r.status).to.equal(200);
    expect(r.body.content).to.equal('Question: What colour is the sky?\nContext:\n- the sky is blue');
    expect(r.body).to.include({ provider: 'local', model: 'eddydb-local' });
  });

  it('goes to the first configured provider by default, or the one named, with the model and max_tokens given', async () => {
    await t.request('PUT', '/api/config', { openai_api_key: 'sk-x', openai_api_url: openai.url });
    openai.reply = 'Paris.';
    const r = await t.request('POST', '/api/chat/complete', {
      system_prompt: 'Be brief.',
      message: 'Capital of France?',
      model: 'fake-gpt-large',
      max_tokens: 20,
    });
    expect(r.status).to.equal(200);
    expect(r.body.content).to.equal('Paris.');
    expect(r.body.token_usage.total_tokens).to.be.greaterThan(0);
    const sent = openai.requests.at(-1)!.body;
    expect(sent.messages).to.deep.equal([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Capital of France?' },
    ]);
    expect(sent).to.include({ model: 'fake-gpt-large', max_tokens: 20 });
    const local = await t.request('POST', '/api/chat/complete', {
      system_prompt: '',
      message: 'hi',
      provider: 'local',
    });
    expect(local.body.content).to.equal('Question: hi\nNo context was found.');
  });

  it('refuses an unconfigured or unknown provider with 400 provider_not_configured', async () => {
    for (const provider of ['anthropic', 'nope']) {
      const r = await t.request('POST', '/api/chat/complete', { system_prompt: 's', message: 'm', provider });
      expect(r.status).to.equal(400);
      expect(errorBody(r)).to.deep.equal({
        error: `Provider '${provider}' is not configured`,
        error_kind: 'provider_not_configured',
        provider,
        provider_status: null,
      });
    }
  });

  it('renders provider failures as the classified body, never 401/403', async () => {
    await t.request('PUT', '/api/config', { openai_api_key: 'sk-x', openai_api_url: openai.url });
    const cases: Array<[FakeVendor['behaviour'], number, string]> = [
      [401, 502, 'provider_auth_failed'],
      [403, 502, 'provider_permission_denied'],
      [402, 402, 'provider_billing'],
      ['insufficient_quota', 402, 'provider_billing'],
      [429, 429, 'provider_rate_limited'],
      [500, 502, 'provider_unavailable'],
      ['garbage', 502, 'provider_unavailable'],
      [400, 400, 'provider_request_error'],
    ];
    for (const [behaviour, status, kind] of cases) {
      openai.behaviour = behaviour;
      const r = await t.request('POST', '/api/chat/complete', { system_prompt: 's', message: 'm' });
      expect(r.status, String(behaviour)).to.equal(status);
      expect(r.body, String(behaviour)).to.include({ error_kind: kind, provider: 'openai' });
      if (behaviour === 429) expect([r.headers.get('retry-after'), r.body.retry_after_secs]).to.deep.equal(['7', 7]);
    }
  });

  it('refuses bad bodies with 400', async () => {
    for (const body of [
      {},
      { message: '' },
      { message: 5 },
      { message: 'x', max_tokens: 0 },
      { message: 'x', extra: 1 },
      { message: 'x', provider: 3 },
      [1],
    ]) {
      expect((await t.request('POST', '/api/chat/complete', body)).status, JSON.stringify(body)).to.equal(400);
    }
  });
});

describe('raw completion stream (POST /api/chat/complete/stream)', function () {
  this.timeout(20_000);
  let t: TestServer;
  let openai: FakeVendor;
  let token: string;
  beforeEach(async () => {
    ({ t, openai, token } = await startChatStreamServers());
  });
  afterEach(async () => {
    await t.stop();
    await openai.close();
  });
  const url = () => `${t.url}/api/chat/complete/stream`;

  it('streams {token} data frames then {content, done: true}, from the local provider', async () => {
    const s = postChatSse(url(), token, { system_prompt: 'Context:\n- water is wet', message: 'Is water wet?' });
    await s.ended;
    expect(s.status).to.equal(200);
    expect(s.headers['content-type']).to.match(/^text\/event-stream/);
    const tokens = s.data.filter((d) => 'token' in d).map((d) => d.token);
    const done = s.data.at(-1);
    expect(done).to.include({ done: true, content: 'Question: Is water wet?\nContext:\n- water is wet' });
    expect(tokens.join('')).to.equal(done.content);
    expect(tokens.length).to.equal(done.content.split(/\s+/).length);
  });

  it("streams a vendor's tokens, with heartbeats as comment lines that clients skip", async () => {
    await t.request('PUT', '/api/config', { openai_api_key: 'sk-x', openai_api_url: openai.url });
    openai.reply = 'slow words arrive one by one';
    openai.tokenDelayMs = 40;
    const s = postChatSse(url(), token, { system_prompt: 's', message: 'm' });
    await s.ended;
    expect(
      s.data
        .filter((d) => 'token' in d)
        .map((d) => d.token)
        .join(''),
    ).to.equal('slow words arrive one by one');
    expect(s.data.at(-1)).to.include({ content: 'slow words arrive one by one', done: true, provider: 'openai' });
    expect(s.comments.length).to.be.greaterThan(0);
    expect(s.data.every((d) => 'token' in d || 'content' in d)).to.equal(true);
  });

  it('ends with an error frame carrying the classified fields when the provider fails', async () => {
    await t.request('PUT', '/api/config', { openai_api_key: 'sk-x', openai_api_url: openai.url });
    const cases: Array<[FakeVendor['behaviour'], string, number | null]> = [
      [401, 'provider_auth_failed', 401],
      [429, 'provider_rate_limited', 429],
      ['insufficient_quota', 'provider_billing', 429],
      ['broken_stream', 'provider_unavailable', 200],
      ['truncated_stream', 'provider_unavailable', 200],
    ];
    for (const [behaviour, kind, providerStatus] of cases) {
      openai.behaviour = behaviour;
      const s = postChatSse(url(), token, { system_prompt: 's', message: 'm' });
      await s.ended;
      expect(s.status, String(behaviour)).to.equal(200);
      const last = s.data.at(-1);
      expect(last, String(behaviour)).to.include({
        error_kind: kind,
        provider: 'openai',
        provider_status: providerStatus,
      });
      expect(last.error).to.be.a('string');
      if (behaviour === 429) expect(last.retry_after_secs).to.equal(7);
      expect(s.data.some((d) => d.done)).to.equal(false);
    }
  });

  it('answers an unconfigured provider or a bad body with a non-2xx before streaming', async () => {
    const s = postChatSse(url(), token, { system_prompt: 's', message: 'm', provider: 'anthropic' });
    await s.ended;
    expect(s.status).to.equal(400);
    expect(JSON.parse(s.text)).to.include({ error_kind: 'provider_not_configured', provider: 'anthropic' });
    const bad = postChatSse(url(), token, { system_prompt: 's' });
    await bad.ended;
    expect(bad.status).to.equal(400);
  });

  it('cancels the upstream request when the client disconnects mid-stream (openai and anthropic)', async () => {
    const anthropic = await startFakeAnthropic();
    try {
      await t.request('PUT', '/api/config', {
        openai_api_key: 'sk-x',
        openai_api_url: openai.url,
        anthropic_api_key: 'k',
        anthropic_api_url: anthropic.url,
      });
      for (const [provider, fake] of [
        ['openai', openai],
        ['anthropic', anthropic],
      ] as const) {
        fake.reply = Array.from({ length: 200 }, (_, i) => `w${i}`).join(' ');
        fake.tokenDelayMs = 20;
        const s = postChatSse(url(), token, { system_prompt: 's', message: 'm', provider });
        await until(() => s.data.length >= 2);
        s.close();
        await fake.waitAborted(1);
        expect(fake.aborted, provider).to.equal(1);
      }
    } finally {
      await anthropic.close();
    }
  });

  it('needs a token', async () => {
    const s = postChatSse(url(), 'not-a-token', { message: 'm' });
    await s.ended;
    expect(s.status).to.equal(401);
  });
});

describe('WebSocket RawComplete', function () {
  this.timeout(20_000);
  let t: TestServer;
  beforeEach(async () => {
    t = await TestServer.start();
  });
  afterEach(async () => {
    await t.stop();
  });

  /** Sends one frame and resolves with the first reply. */
  async function ask(frame: unknown): Promise<any> {
    const ws = new WebSocket(`${t.url.replace('http', 'ws')}/api/ws`, {
      headers: { authorization: `Bearer ${await t.adminToken()}` },
    });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const reply = new Promise<any>((resolve) => ws.once('message', (d: Buffer) => resolve(JSON.parse(d.toString()))));
    ws.send(JSON.stringify(frame));
    try {
      return await reply;
    } finally {
      ws.close();
    }
  }

  it('answers Success {content} for the payload form (TS/Go/Kotlin) and the flattened form (Rust)', async () => {
    const nested = await ask({
      type: 'RawComplete',
      messageId: 'm1',
      payload: { system_prompt: 's', message: 'ping' },
    });
    expect(nested).to.deep.include({ type: 'Success', messageId: 'm1' });
    expect(nested.payload.data.content).to.equal('Question: ping\nNo context was found.');
    const flat = await ask({ type: 'RawComplete', system_prompt: 's', message: 'pong' });
    expect(flat.type).to.equal('Success');
    expect(flat.payload.data.content).to.equal('Question: pong\nNo context was found.');
  });

  it('answers an Error frame with the provider failure status for an unconfigured provider', async () => {
    const r = await ask({
      type: 'RawComplete',
      messageId: 'm2',
      payload: { system_prompt: 's', message: 'x', provider: 'anthropic' },
    });
    expect(r).to.deep.include({ type: 'Error', code: 400, messageId: 'm2' });
  });
});
