/** The anthropic adapter against a fake Messages API: the contract, and the request it sends. */
import { expect } from 'chai';
import { ANTHROPIC_VERSION, AnthropicProvider } from '../../../lib/chat/providers/anthropic.js';
import { FAKE_ANTHROPIC_MODELS, startFakeAnthropic } from '../../helpers/fake-anthropic.js';
import { HELLO, providerContract } from '../../helpers/provider-contract.js';
import type { FakeVendor } from '../../helpers/fake-vendor.js';

providerContract({
  name: 'anthropic',
  startFake: () => startFakeAnthropic(),
  provider: (url, t) => new AnthropicProvider('sk-ant-test', url, t),
  chatPath: '/v1/messages',
  model: 'claude-fake-haiku',
});

describe('anthropic: the wire request', () => {
  let fake: FakeVendor;
  beforeEach(async () => {
    fake = await startFakeAnthropic();
  });
  afterEach(async () => {
    await fake.close();
  });

  it('sends x-api-key and anthropic-version, the system prompt top-level, max_tokens, tools with input_schema', async () => {
    const p = new AnthropicProvider('sk-ant-test', fake.url, 2_000);
    await p.complete({
      ...HELLO,
      model: 'claude-fake-haiku',
      tools: [{ name: 'lookup', description: 'd', parameters: { type: 'object' } }],
      toolChoice: { type: 'required' },
    });
    const r = fake.requests.at(-1)!;
    expect(r.headers['x-api-key']).to.equal('sk-ant-test');
    expect(r.headers['anthropic-version']).to.equal(ANTHROPIC_VERSION);
    expect(r.headers.authorization).to.equal(undefined);
    expect(r.body.system).to.equal('Be brief.');
    expect(r.body.messages).to.deep.equal([{ role: 'user', content: [{ type: 'text', text: 'Say hello' }] }]);
    expect(r.body.max_tokens).to.equal(50);
    expect(r.body.tools).to.deep.equal([{ name: 'lookup', description: 'd', input_schema: { type: 'object' } }]);
    expect(r.body.tool_choice).to.deep.equal({ type: 'any' });
  });

  it('always sends max_tokens (1024 by default) and turns tool calls and results into tool_use / tool_result blocks', async () => {
    const p = new AnthropicProvider('sk-ant-test', fake.url, 2_000);
    await p.complete({
      messages: [
        { role: 'user', content: 'find' },
        { role: 'assistant', content: 'Looking.', toolCalls: [{ id: 'toolu_1', name: 'lookup', arguments: { q: 1 } }] },
        { role: 'tool', content: 'two found', toolCallId: 'toolu_1' },
      ],
    });
    const r = fake.requests.at(-1)!;
    expect(r.body.max_tokens).to.equal(1024);
    expect(r.body.messages).to.deep.equal([
      { role: 'user', content: [{ type: 'text', text: 'find' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking.' },
          { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 1 } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'two found' }] },
    ]);
  });

  it('lists models from /models', async () => {
    expect(await new AnthropicProvider('sk-ant-test', fake.url, 2_000).listModels()).to.deep.equal(
      FAKE_ANTHROPIC_MODELS,
    );
  });
});
