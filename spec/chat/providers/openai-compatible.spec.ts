/**
 * The openai_compatible adapter (Ollama, vLLM...) against a fake server: the contract, `/v1` handling, keyless use,
 * first model as default.
 */
import { expect } from 'chai';
import { OpenAiCompatibleProvider } from '../../../lib/chat/providers/openai-compatible.js';
import { FAKE_OPENAI_MODELS, startFakeOpenAi } from '../../helpers/fake-openai.js';
import { providerContract } from '../../helpers/provider-contract.js';
import type { FakeVendor } from '../../helpers/fake-vendor.js';

providerContract({
  name: 'openai_compatible',
  startFake: () => startFakeOpenAi(),
  provider: (url, t) => new OpenAiCompatibleProvider(null, url, t),
  chatPath: '/v1/chat/completions',
  model: 'fake-gpt-large',
});

describe('openai_compatible: root URL, optional key, default model', () => {
  let fake: FakeVendor;
  beforeEach(async () => {
    fake = await startFakeOpenAi();
  });
  afterEach(async () => {
    await fake.close();
  });

  it(
    'appends /v1 to a root URL, sends no Authorization without a key, and asks the first listed model when none is ' +
      'named',
    async () => {
      const root = fake.url.replace(/\/v1$/, '');
      const p = new OpenAiCompatibleProvider(null, root, 2_000);
      expect(await p.listModels()).to.deep.equal(FAKE_OPENAI_MODELS);
      await p.complete({ messages: [{ role: 'user', content: 'hi' }] });
      const r = fake.requests.at(-1)!;
      expect(r.path).to.equal('/v1/chat/completions');
      expect(r.headers.authorization).to.equal(undefined);
      expect(r.body.model).to.equal(FAKE_OPENAI_MODELS[0]);
    },
  );

  it('sends a Bearer key when one is configured', async () => {
    await new OpenAiCompatibleProvider('local-key', fake.url, 2_000).complete({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(fake.requests.at(-1)!.headers.authorization).to.equal('Bearer local-key');
  });
});
