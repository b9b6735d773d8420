/**
 * The perplexity adapter against a fake Perplexity: the contract, the root path, and the static model list (no
 * request).
 */
import { expect } from 'chai';
import { PERPLEXITY_MODELS, PerplexityProvider } from '../../../lib/chat/providers/perplexity.js';
import { startFakePerplexity } from '../../helpers/fake-perplexity.js';
import { providerContract } from '../../helpers/provider-contract.js';
import type { FakeVendor } from '../../helpers/fake-vendor.js';

providerContract({
  name: 'perplexity',
  startFake: () => startFakePerplexity(),
  provider: (url, t) => new PerplexityProvider('pplx-test', url, t),
  chatPath: '/chat/completions',
  model: 'sonar-pro',
});

describe('perplexity: models and request', () => {
  let fake: FakeVendor;
  beforeEach(async () => {
    fake = await startFakePerplexity();
  });
  afterEach(async () => {
    await fake.close();
  });

  it('answers the documented model list without asking the vendor, and says it has no models endpoint', async () => {
    const p = new PerplexityProvider('pplx-test', fake.url, 2_000);
    expect(await p.listModels()).to.deep.equal([...PERPLEXITY_MODELS]);
    expect(p.hasModelsEndpoint).to.equal(false);
    expect(fake.requests).to.have.length(0);
  });

  it('posts to /chat/completions at the root with the Bearer key and `sonar` by default', async () => {
    await new PerplexityProvider('pplx-test', fake.url, 2_000).complete({
      messages: [{ role: 'user', content: 'hi' }],
    });
    const r = fake.requests.at(-1)!;
    expect(r.path).to.equal('/chat/completions');
    expect(r.headers.authorization).to.equal('Bearer pplx-test');
    expect(r.body.model).to.equal('sonar');
  });
});
