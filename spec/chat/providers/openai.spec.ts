/** The openai adapter against a fake OpenAI: the contract, and the Chat Completions request it sends. */
import { expect } from 'chai';
import { OpenAiProvider } from '../../../lib/chat/providers/openai.js';
import { FAKE_OPENAI_MODELS, startFakeOpenAi } from '../../helpers/fake-openai.js';
import { HELLO, providerContract } from '../../helpers/provider-contract.js';
import type { FakeVendor } from '../../helpers/fake-vendor.js';

providerContract({
  name: 'openai',
  startFake: () => startFakeOpenAi(),
  provider: (url, t) => new OpenAiProvider('sk-test-openai', url, t),
  chatPath: '/v1/chat/completions',
  model: 'fake-gpt-small',
});

describe('openai: the wire request', () => {
  let fake: FakeVendor;
  beforeEach(async () => {
    fake = await startFakeOpenAi();
  });
  afterEach(async () => {
    await fake.close();
  });

  it('sends the Bearer key, the messages in order, max_tokens, tools as functions and the tool choice', async () => {
    const p = new OpenAiProvider('sk-test-openai', fake.url, 2_000);
    await p.complete({
      ...HELLO,
      model: 'fake-gpt-small',
      temperature: 0.2,
      tools: [{ name: 'lookup', description: 'd', parameters: { type: 'object' } }],
      toolChoice: { type: 'tool', name: 'lookup' },
    });
    const r = fake.requests.at(-1)!;
    expect(r.headers.authorization).to.equal('Bearer sk-test-openai');
    expect(r.body.messages).to.deep.equal([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Say hello' },
    ]);
    expect(r.body).to.include({ model: 'fake-gpt-small', max_tokens: 50, temperature: 0.2 });
    expect(r.body.tools).to.deep.equal([
      { type: 'function', function: { name: 'lookup', description: 'd', parameters: { type: 'object' } } },
    ]);
    expect(r.body.tool_choice).to.deep.equal({ type: 'function', function: { name: 'lookup' } });
    expect(r.body.stream).to.equal(undefined);
  });

  it('streams with stream: true and include_usage, and uses the default model when none is named', async () => {
    const p = new OpenAiProvider('sk-test-openai', fake.url, 2_000);
    for await (const _ of p.stream({ messages: [{ role: 'user', content: 'hi' }] })) {
      /* drain */
    }
    const r = fake.requests.at(-1)!;
    expect(r.body).to.deep.include({ stream: true, stream_options: { include_usage: true }, model: 'gpt-4o-mini' });
  });

  it('lists models from /models, and embeds through /embeddings', async () => {
    const p = new OpenAiProvider('sk-test-openai', fake.url, 2_000);
    expect(await p.listModels()).to.deep.equal(FAKE_OPENAI_MODELS);
    const v = await p.embed(['a', 'bb']);
    expect(v).to.have.length(2);
    expect(fake.requests.at(-1)!.body.model).to.equal('text-embedding-3-small');
  });
});
