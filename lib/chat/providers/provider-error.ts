/**
 * Classifies a provider failure into a ProviderFailed (product.md,
 * "classified provider body"): its kind decides the HTTP status, and
 * lib/http/error-body.ts renders the body. A provider's 401 or 403 never
 * surfaces as 401/403: those always mean the caller's own token.
 */
import { ProviderFailed, type ProviderErrorKind } from '../../errors.js';

export type { ProviderErrorKind } from '../../errors.js';

/** The classified error for an HTTP answer (`status`) or a transport failure (`status` undefined). */
export function classifyProviderError(provider: string, status: number | undefined, detail: string, retryAfter?: string | null): ProviderFailed {
  const failed = (kind: ProviderErrorKind, message: string, retryAfterSecs?: number) =>
    new ProviderFailed(message, kind, provider, status ?? null, retryAfterSecs);
  if (status === undefined) return failed('provider_unreachable', `${provider} is unreachable: ${detail}`);
  if (status === 401) return failed('provider_auth_failed', `${provider} rejected the configured API key`);
  if (status === 403) return failed('provider_permission_denied', `${provider} denied permission for this key, model or region`);
  if (status === 402) return failed('provider_billing', `${provider} account cannot pay`);
  if (status === 429) {
    const secs = retryAfter && /^\d+$/.test(retryAfter) ? Number(retryAfter) : undefined;
    return failed('provider_rate_limited', `${provider} rate limit reached`, secs);
  }
  if (status >= 500) return failed('provider_unavailable', `${provider} is unavailable (${status})`);
  return failed('provider_request_error', `${provider} refused the request: ${detail.slice(0, 300)}`);
}
