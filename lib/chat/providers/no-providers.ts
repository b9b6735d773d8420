/**
 * A provider directory with nothing configured: every lookup is the
 * classified `provider_not_configured` failure (400 on chat). The server
 * uses it until the real directory (the adapters and the offline `local`
 * provider) is wired in; embedders and tests pass their own directory.
 */
import { ProviderFailed } from '../../errors.js';
import type { ChatProvider, ProviderDirectory, ProviderId } from './provider.js';

export const NO_PROVIDERS: ProviderDirectory = Object.freeze({
  get(id: string): ChatProvider {
    throw new ProviderFailed(`LLM provider '${id}' is not configured`, 'provider_not_configured', id, null);
  },
  configured(): readonly ProviderId[] {
    return [];
  },
});
