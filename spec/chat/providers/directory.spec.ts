/** The ProviderDirectory from settings, and provider status entries from probes against fakes. */
import { expect } from 'chai';
import { DEFAULT_SETTINGS, type Settings } from '../../../lib/engine/index.js';
import { pickProvider, probeProvider, SettingsProviderDirectory } from '../../../lib/chat/index.js';
import { ProviderFailed } from '../../../lib/errors.js';
import { startFakeOpenAi } from '../../helpers/fake-openai.js';
import type { FakeVendor } from '../../helpers/fake-vendor.js';

const settings = (over: Partial<Settings>): Settings => ({ ...DEFAULT_SETTINGS, provider_timeout_ms: 1_000, ...over });

describe('SettingsProviderDirectory', () => {
  it('configures a provider by its key (openai and openai_compatible also by URL alone); local always', () => {
    expect(new SettingsProviderDirectory(() => settings({})).configured()).to.deep.equal(['local']);
    const d = new SettingsProviderDirectory(() =>
      settings({
        anthropic_api_key: 'k',
        openai_api_url: 'http://127.0.0.1:1/v1',
        openai_compatible_url: 'http://127.0.0.1:2',
      }),
    );
    expect(d.configured()).to.deep.equal(['openai', 'anthropic', 'openai_compatible', 'local']);
    expect(d.get('anthropic').id).to.equal('anthropic');
  });

  it('throws the classified provider_not_configured (400) for an unconfigured or unknown id', () => {
    const d = new SettingsProviderDirectory(() => settings({}));
    for (const id of ['openai', 'perplexity', 'nope', '__proto__']) {
      let err: unknown;
      try {
        d.get(id);
      } catch (e) {
        err = e;
      }
      expect(err, id).to.be.instanceOf(ProviderFailed);
      expect((err as ProviderFailed).kind).to.equal('provider_not_configured');
      expect((err as ProviderFailed).status).to.equal(400);
    }
  });

  it('defaults to the first configured of openai, anthropic, perplexity, openai_compatible, else local', () => {
    expect(pickProvider(new SettingsProviderDirectory(() => settings({})), undefined).id).to.equal('local');
    expect(
      pickProvider(
        new SettingsProviderDirectory(() => settings({ perplexity_api_key: 'p', anthropic_api_key: 'a' })),
        undefined,
      ).id,
    ).to.equal('anthropic');
  });

  it('reads the settings on every call, so a changed key takes effect at once', () => {
    let s = settings({});
    const d = new SettingsProviderDirectory(() => s);
    expect(d.configured()).to.not.include('perplexity');
    s = settings({ perplexity_api_key: 'p' });
    expect(d.configured()).to.include('perplexity');
  });
});

describe('probeProvider: status entries', () => {
  let fake: FakeVendor;
  beforeEach(async () => {
    fake = await startFakeOpenAi();
  });
  afterEach(async () => {
    await fake.close();
  });

  it(
    'is ok and verified with a model count when the vendor lists models; ok unverified without a models endpoint; ' +
      'not_configured without a key',
    async () => {
      const d = new SettingsProviderDirectory(() =>
        settings({
          openai_api_key: 'sk',
          openai_api_url: fake.url,
          perplexity_api_key: 'p',
          perplexity_api_url: fake.url,
        }),
      );
      expect((await probeProvider(d, 'openai')).entry).to.deep.equal({ status: 'ok', verified: true, model_count: 2 });
      expect((await probeProvider(d, 'perplexity')).entry).to.deep.include({ status: 'ok', verified: false });
      expect((await probeProvider(d, 'anthropic')).entry).to.deep.include({
        status: 'not_configured',
        verified: false,
      });
      expect((await probeProvider(d, 'local')).entry).to.deep.include({
        status: 'ok',
        verified: false,
        model_count: 1,
      });
    },
  );

  const cases: Array<[FakeVendor['behaviour'], string, boolean, number | undefined]> = [
    [401, 'auth_failed', true, 401],
    [403, 'permission_denied', true, 403],
    [402, 'billing', true, 402],
    ['insufficient_quota', 'billing', true, 429],
    [429, 'rate_limited', false, 429],
    [500, 'unavailable', false, 500],
    ['garbage', 'unavailable', false, 200],
    [400, 'request_error', false, 400],
  ];
  for (const [behaviour, status, verified, http] of cases) {
    it(`reports ${behaviour} as ${status} (verified ${verified})`, async () => {
      fake.behaviour = behaviour;
      const d = new SettingsProviderDirectory(() => settings({ openai_api_key: 'sk', openai_api_url: fake.url }));
      const { entry, models } = await probeProvider(d, 'openai');
      expect(models).to.deep.equal([]);
      expect(entry).to.deep.include({ status, verified, http_status: http });
      expect(entry.message).to.be.a('string');
    });
  }

  it('reports unreachable (no http_status) when nothing answers', async () => {
    const url = fake.url;
    await fake.close();
    const d = new SettingsProviderDirectory(() => settings({ openai_api_key: 'sk', openai_api_url: url }));
    const { entry } = await probeProvider(d, 'openai');
    expect(entry).to.deep.include({ status: 'unreachable', verified: false });
    expect(entry).to.not.have.property('http_status');
    fake = await startFakeOpenAi();
  });
});
