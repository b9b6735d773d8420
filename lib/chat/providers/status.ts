/**
 * Provider status entries (product.md, "Provider status entry"): what
 * GET /api/chat_models reports per provider and PUT /api/config returns as
 * `provider_checks` after a key changes. A configured provider is probed by
 * listing its models; the failure's kind gives the status.
 *
 * `verified` is true only when the provider itself answered about the key:
 * a model list (ok), or a 401, 403 or billing refusal. A rate limit, an
 * outage, no answer, a refused request, a provider without a models
 * endpoint (perplexity) and the keyless `local` provider are unverified.
 */
import { ProviderFailed, type ProviderErrorKind } from '../../errors.js';
import type { ProviderId } from './provider.js';
import { PROVIDER_IDS, type SettingsProviderDirectory } from './directory.js';

export type ProviderStatus =
  | 'ok'
  | 'not_configured'
  | 'auth_failed'
  | 'permission_denied'
  | 'billing'
  | 'rate_limited'
  | 'unavailable'
  | 'unreachable'
  | 'request_error';

export interface ProviderStatusEntry {
  status: ProviderStatus;
  verified: boolean;
  http_status?: number;
  message?: string;
  model_count?: number;
}

export interface ProviderProbe {
  readonly models: string[];
  readonly entry: ProviderStatusEntry;
}

const STATUS_OF_KIND: Record<ProviderErrorKind, ProviderStatus> = {
  provider_not_configured: 'not_configured',
  provider_auth_failed: 'auth_failed',
  provider_permission_denied: 'permission_denied',
  provider_billing: 'billing',
  provider_rate_limited: 'rate_limited',
  provider_unavailable: 'unavailable',
  provider_unreachable: 'unreachable',
  provider_request_error: 'request_error',
};

const ABOUT_THE_KEY = new Set<ProviderStatus>(['auth_failed', 'permission_denied', 'billing']);

/** Lists `id`'s models and says what that tells about its configuration. Never throws. */
export async function probeProvider(
  directory: SettingsProviderDirectory,
  id: ProviderId,
  signal?: AbortSignal,
): Promise<ProviderProbe> {
  if (!directory.configured().includes(id)) {
    return { models: [], entry: { status: 'not_configured', verified: false, message: `No key configured for ${id}` } };
  }
  const provider = directory.get(id);
  try {
    const models = await provider.listModels(signal);
    const verified = id !== 'local' && provider.hasModelsEndpoint !== false;
    return { models, entry: { status: 'ok', verified, model_count: models.length } };
  } catch (err) {
    return { models: [], entry: entryOfFailure(err) };
  }
}

/** The status entry of a provider failure (anything else is an unusable answer). */
export function entryOfFailure(err: unknown): ProviderStatusEntry {
  if (!(err instanceof ProviderFailed))
    return { status: 'unavailable', verified: false, message: (err as Error)?.message ?? String(err) };
  const status = STATUS_OF_KIND[err.kind];
  return {
    status,
    verified: ABOUT_THE_KEY.has(status),
    message: err.message,
    ...(err.providerStatus !== null ? { http_status: err.providerStatus } : {}),
  };
}

/** Probes every provider at once (or those in `ids`): models and status entries by id. */
export async function probeProviders(
  directory: SettingsProviderDirectory,
  ids: readonly ProviderId[] = PROVIDER_IDS,
  signal?: AbortSignal,
): Promise<Map<ProviderId, ProviderProbe>> {
  const probes = await Promise.all(ids.map(async (id) => [id, await probeProvider(directory, id, signal)] as const));
  return new Map(probes);
}
