/**
 * The providers as configured: built from the run-time settings (keys and
 * base URLs from the environment at start, or PUT /api/config later) each
 * time it is asked, so a changed key takes effect on the next request.
 *
 * A provider is configured when it has a key; `openai` and
 * `openai_compatible` also when they have only a URL (a server that wants
 * no key; product.md: "for OpenAI-compatible endpoints, no key and no custom
 * api url" is not_configured); `local` always. `openai_compatible` with a
 * key and no URL goes to OPENAI_COMPATIBLE_DEFAULT_URL (Ollama's address). An unknown or
 * unconfigured id is the classified `provider_not_configured` failure.
 * The default provider (a request naming none) is the first configured of
 * openai, anthropic, perplexity, openai_compatible, else `local`.
 */
import { ProviderFailed } from '../../errors.js';
import type { Settings } from '../../engine/index.js';
import type { ChatProvider, ProviderDirectory, ProviderId } from './provider.js';
import { providerNotConfigured } from './provider-error.js';
import { OpenAiProvider } from './openai.js';
import { AnthropicProvider } from './anthropic.js';
import { PerplexityProvider } from './perplexity.js';
import { OpenAiCompatibleProvider } from './openai-compatible.js';
import { LocalProvider } from './local.js';

/** Every provider, in the order listings and the default choice use. */
export const PROVIDER_IDS: readonly ProviderId[] = ['openai', 'anthropic', 'perplexity', 'openai_compatible', 'local'];

export type ProviderSettings = Pick<
  Settings,
  | 'openai_api_key'
  | 'openai_api_url'
  | 'anthropic_api_key'
  | 'anthropic_api_url'
  | 'perplexity_api_key'
  | 'perplexity_api_url'
  | 'openai_compatible_api_key'
  | 'openai_compatible_url'
  | 'provider_timeout_ms'
>;

/** The settings each provider reads: a change to any of them re-probes it (PUT /api/config `provider_checks`). */
export const PROVIDER_SETTING_KEYS: Readonly<Record<Exclude<ProviderId, 'local'>, readonly (keyof Settings)[]>> = {
  openai: ['openai_api_key', 'openai_api_url'],
  anthropic: ['anthropic_api_key', 'anthropic_api_url'],
  perplexity: ['perplexity_api_key', 'perplexity_api_url'],
  openai_compatible: ['openai_compatible_api_key', 'openai_compatible_url'],
};

const local = new LocalProvider();

export const OPENAI_COMPATIBLE_DEFAULT_URL = 'http://127.0.0.1:11434';

export function isProviderId(id: string): id is ProviderId {
  return (PROVIDER_IDS as readonly string[]).includes(id);
}

/**
 * The provider a request asks for by id; a request that names none gets the
 * first configured of openai, anthropic, perplexity, openai_compatible, else
 * `local` (raw completion and the Chat function step alike).
 */
export function pickProvider(directory: ProviderDirectory, id: string | undefined): ChatProvider {
  return directory.get(id ?? directory.configured()[0] ?? 'local');
}

/**
 * A directory with nothing configured: every lookup is the classified
 * `provider_not_configured` failure (400 on chat), for callers that need no
 * language model (specs, embedders); the server reads its providers from the
 * settings (SettingsProviderDirectory).
 */
export const NO_PROVIDERS: ProviderDirectory = Object.freeze({
  get(id: string): ChatProvider {
    throw new ProviderFailed(`LLM provider '${id}' is not configured`, 'provider_not_configured', id, null);
  },
  configured(): readonly ProviderId[] {
    return [];
  },
});

export class SettingsProviderDirectory implements ProviderDirectory {
  constructor(private readonly settings: () => ProviderSettings) {}

  get(id: string): ChatProvider {
    const provider = isProviderId(id) ? this.build(id, this.settings()) : undefined;
    if (!provider) throw providerNotConfigured(id);
    return provider;
  }

  configured(): readonly ProviderId[] {
    const settings = this.settings();
    return PROVIDER_IDS.filter((id) => this.build(id, settings) !== undefined);
  }

  private build(id: ProviderId, settings: ProviderSettings): ChatProvider | undefined {
    const timeoutMs = settings.provider_timeout_ms;
    switch (id) {
      case 'openai':
        return settings.openai_api_key || settings.openai_api_url
          ? new OpenAiProvider(settings.openai_api_key, settings.openai_api_url, timeoutMs)
          : undefined;
      case 'anthropic':
        return settings.anthropic_api_key
          ? new AnthropicProvider(settings.anthropic_api_key, settings.anthropic_api_url, timeoutMs)
          : undefined;
      case 'perplexity':
        return settings.perplexity_api_key
          ? new PerplexityProvider(settings.perplexity_api_key, settings.perplexity_api_url, timeoutMs)
          : undefined;
      case 'openai_compatible':
        return settings.openai_compatible_url || settings.openai_compatible_api_key
          ? new OpenAiCompatibleProvider(
              settings.openai_compatible_api_key,
              settings.openai_compatible_url ?? OPENAI_COMPATIBLE_DEFAULT_URL,
              timeoutMs,
            )
          : undefined;
      case 'local':
        return local;
    }
  }
}
