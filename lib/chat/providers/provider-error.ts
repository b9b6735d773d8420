/**
 * Classifies a provider failure into the body of product.md ("classified
 * provider body") and the HTTP status the caller sees. A provider's 401 or
 * 403 never surfaces as 401/403: those always mean the caller's own token.
 */
import { DbError, InvalidInput, PaymentRequired, RateLimited, UpstreamFailed } from '../../errors.js';

export type ProviderErrorKind =
  | 'provider_not_configured' | 'provider_request_error' | 'provider_billing' | 'provider_rate_limited'
  | 'provider_auth_failed' | 'provider_permission_denied' | 'provider_unavailable' | 'provider_unreachable';

/** The classified error for an HTTP answer (`status`) or a transport failure (`status` undefined). */
export function classifyProviderError(provider: string, status: number | undefined, detail: string, retryAfter?: string | null): DbError {
  const body = (kind: ProviderErrorKind, message: string, extra: Record<string, unknown> = {}) =>
    ({ error: message, error_kind: kind, provider, provider_status: status ?? null, ...extra });
  if (status === undefined) return new UpstreamFailed(`${provider} is unreachable`, { extra: body('provider_unreachable', `${provider} is unreachable: ${detail}`) });
  if (status === 401) return new UpstreamFailed(`${provider} rejected the API key`, { extra: body('provider_auth_failed', `${provider} rejected the configured API key`) });
  if (status === 403) return new UpstreamFailed(`${provider} denied permission`, { extra: body('provider_permission_denied', `${provider} denied permission for this key, model or region`) });
  if (status === 402) return new PaymentRequired(`${provider} billing`, { extra: body('provider_billing', `${provider} account cannot pay`) });
  if (status === 429) {
    const secs = retryAfter && /^\d+$/.test(retryAfter) ? Number(retryAfter) : undefined;
    return new RateLimited(`${provider} rate limit`, {
      extra: body('provider_rate_limited', `${provider} rate limit reached`, secs !== undefined ? { retry_after_secs: secs } : {}),
      headers: secs !== undefined ? { 'Retry-After': String(secs) } : {},
    });
  }
  if (status >= 500) return new UpstreamFailed(`${provider} unavailable`, { extra: body('provider_unavailable', `${provider} is unavailable (${status})`) });
  return new InvalidInput(`${provider} refused the request`, { extra: body('provider_request_error', `${provider} refused the request: ${detail.slice(0, 300)}`) });
}
