/**
 * The Chat and Embed function steps over HTTP through a real server, with
 * the providers configured through PUT /api/config pointing at a fake
 * OpenAI on loopback: the request the vendor gets, the record the step
 * yields, provider failures as the step failure body with the classified
 * status, and a call's time limit cancelling the upstream request.
 */
import { expect } from 'chai';
import { startFakeOpenAi } from '../helpers/fake-openai.js';
import type { FakeVendor } from '../helpers/fake-vendor.js';
import { bare, TestServer, errorBody } from '../helpers/test-server.js';

describe('HTTP: Chat and Embed function steps', function () {
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

  const define = async (label: string, functions: unknown[], parameters: Record<string, unknown> = {}) => {
    const r = await t.request('POST', '/api/functions', { label, name: label, parameters, functions });
    expect(r.status, r.text).to.equal(200);
  };

  it('answers with the offline local provider when none is configured', async () => {
    await define('ask', [{ type: 'Chat', messages: [{ role: 'user', content: '{{q}}' }] }], { q: { required: true } });
    const r = await t.request('POST', '/api/functions/ask', { q: 'hello there' });
    expect(r.status).to.equal(200);
    expect(r.body.records.map(bare)).to.deep.equal([
      { response: 'Question: hello there\nNo context was found.', tokens_used: 9 },
    ]);
  });

  it('sends Chat to the configured provider with model, temperature and max_tokens, and yields {response, tokens_used}', async () => {
    await t.request('PUT', '/api/config', { openai_api_key: 'sk-test', openai_api_url: openai.url });
    openai.reply = 'Paris.';
    await define(
      'capital',
      [
        {
          type: 'Chat',
          model: 'fake-gpt-small',
          temperature: 0.1,
          max_tokens: 20,
          messages: [
            { role: 'system', content: 'Be brief.' },
            { role: 'user', content: 'Capital of {{country}}?' },
          ],
        },
      ],
      { country: { required: true } },
    );
    const r = await t.request('POST', '/api/functions/capital', { country: 'France' });
    expect(r.status, r.text).to.equal(200);
    const sent = openai.requests.at(-1)!;
    expect(sent.path).to.equal('/v1/chat/completions');
    expect(sent.headers.authorization).to.equal('Bearer sk-test');
    expect(sent.body.messages).to.deep.equal([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Capital of France?' },
    ]);
    expect(sent.body).to.include({ model: 'fake-gpt-small', temperature: 0.1, max_tokens: 20 });
    const promptTokens = JSON.stringify(sent.body.messages).length; // how the fake counts
    expect(r.body.records.map(bare)).to.deep.equal([{ response: 'Paris.', tokens_used: promptTokens + 1 }]);
    expect(r.text).not.to.include('sk-test');
  });

  it('embeds through the configured OpenAI-compatible embedder and answers Vector values', async () => {
    await t.request('PUT', '/api/config', { openai_api_key: 'sk-test', openai_api_url: openai.url });
    await t.request('POST', '/api/insert/docs', { text: 'abc' });
    await t.request('POST', '/api/insert/docs', { text: 'abcdef' });
    await define('embed_docs', [
      { type: 'FindAll', collection: 'docs' },
      { type: 'Embed', input_field: 'text', output_field: 'vec', model: 'fake-embed' },
    ]);
    const r = await t.request('POST', '/api/functions/embed_docs', {});
    expect(r.status, r.text).to.equal(200);
    const sent = openai.requests.filter((q) => q.path === '/v1/embeddings');
    expect(sent).to.have.length(1); // all texts in one request
    expect(sent[0]!.body.model).to.equal('fake-embed');
    expect([...sent[0]!.body.input].sort()).to.deep.equal(['abc', 'abcdef']);
    const byText = Object.fromEntries(r.body.records.map((rec: Record<string, any>) => [bare(rec).text, rec.vec]));
    // the fake's vectors: ((length + i) % 5) / 5 over 8 dimensions
    const expected = (n: number) => Array.from({ length: 8 }, (_, i) => ((n + i) % 5) / 5);
    expect(byText.abc).to.deep.equal({ type: 'Vector', value: expected(3) });
    expect(byText.abcdef).to.deep.equal({ type: 'Vector', value: expected(6) });

    await define('embed_texts', [{ type: 'Embed', texts: '{{texts}}' }], { texts: { required: true } });
    const go = await t.request('POST', '/api/functions/embed_texts', { texts: ['ab', 'abcd'] });
    expect(go.body.records.map(bare)).to.deep.equal([
      { text: 'ab', embedding: expected(2) },
      { text: 'abcd', embedding: expected(4) },
    ]);
  });

  it('renders a provider failure as the step failure with the classified status and details, never 401/403', async () => {
    await t.request('PUT', '/api/config', { openai_api_key: 'sk-test', openai_api_url: openai.url });
    await define('ask', [{ type: 'Chat', messages: [{ role: 'user', content: 'x' }] }]);
    await define('vec', [{ type: 'Embed', texts: ['x'] }]);
    const cases: Array<[FakeVendor['behaviour'], number, string]> = [
      [401, 502, 'provider_auth_failed'],
      [403, 502, 'provider_permission_denied'],
      [402, 402, 'provider_billing'],
      [429, 429, 'provider_rate_limited'],
      [500, 502, 'provider_unavailable'],
      ['garbage', 502, 'provider_unavailable'],
      [400, 400, 'provider_request_error'],
    ];
    for (const [behaviour, status, kind] of cases) {
      openai.behaviour = behaviour;
      for (const [label, type] of [
        ['ask', 'Chat'],
        ['vec', 'Embed'],
      ] as const) {
        const r = await t.request('POST', `/api/functions/${label}`, {});
        const what = `${type} ${String(behaviour)}`;
        expect(r.status, what).to.equal(status);
        expect(r.body, what).to.include({ error: true, operation_index: 0, operation_type: type });
        expect(r.body.message, what).to.be.a('string');
        expect(r.body.details, what).to.include({ error_kind: kind, provider: 'openai' });
        if (behaviour === 429) {
          expect(r.body.details, what).to.include({ provider_status: 429, retry_after_secs: 7 });
          expect(r.headers.get('retry-after'), what).to.equal('7');
        }
      }
    }
  });

  it('names an unconfigured provider in a 400 step failure', async () => {
    await define('ask', [{ type: 'Chat', provider: 'anthropic', messages: [{ role: 'user', content: 'x' }] }]);
    const r = await t.request('POST', '/api/functions/ask', {});
    expect(r.status).to.equal(400);
    expect(errorBody(r)).to.deep.equal({
      error: true,
      operation_index: 0,
      operation_type: 'Chat',
      message: "Provider 'anthropic' is not configured",
      details: { error_kind: 'provider_not_configured', provider: 'anthropic', provider_status: null },
    });
  });

  it('refuses a bad Chat or Embed at save with 400, and in a transactional function', async () => {
    const bad = await t.request('POST', '/api/functions', {
      label: 'b',
      name: 'b',
      functions: [{ type: 'Chat', messages: [{ role: 'robot', content: 'x' }] }],
    });
    expect(bad.status).to.equal(400);
    expect(bad.body.error).to.match(/messages\[0\]\.role/);
    const tx = await t.request('POST', '/api/functions', {
      label: 't',
      name: 't',
      transaction_config: { enabled: true, auto_rollback: true },
      functions: [{ type: 'Embed', input_field: 'x' }],
    });
    expect(tx.status).to.equal(400);
    const proto = await t.request('POST', '/api/functions', {
      label: 'p',
      name: 'p',
      functions: [{ type: 'Embed', input_field: 'x', output_field: '__proto__' }],
    });
    expect(proto.status).to.equal(400);
  });

  it('ends a call at its time limit and cancels the provider or embedder request', async () => {
    await t.request('PUT', '/api/config', {
      openai_api_key: 'sk-test',
      openai_api_url: openai.url,
      function_timeout_ms: 300,
    });
    openai.behaviour = 'hang';
    await define('ask', [{ type: 'Chat', messages: [{ role: 'user', content: 'x' }] }]);
    const started = Date.now();
    const r = await t.request('POST', '/api/functions/ask', {});
    expect(r.status).to.be.within(400, 599);
    expect(JSON.stringify(r.body)).to.match(/time limit of 300 ms/);
    expect(Date.now() - started).to.be.lessThan(5_000);
    await openai.waitAborted(1);
    await define('vec', [{ type: 'Embed', texts: ['x'] }]);
    const embed = await t.request('POST', '/api/functions/vec', {});
    expect(JSON.stringify(embed.body)).to.match(/time limit of 300 ms/);
    await openai.waitAborted(2);
  });
});
