/**
 * Classifies a provider failure into a ProviderFailed (product.md,
 * "classified provider body"): its kind decides the HTTP status, and
 * lib/http/wire/error-body.ts renders the body. A provider's 401 or 403 never
 * surfaces as 401/403: those always mean the caller's own token.
 *
 * | provider answer                                   | error_kind                 | HTTP |
 * |---------------------------------------------------|----------------------------|------|
 * | 401                                               | provider_auth_failed       | 502  |
 * | 403                                               | provider_permission_denied | 502  |
 * | 402, or a quota/spend-limit code in any 4xx body  | provider_billing           | 402  |
 * | 429 (Retry-After forwarded)                       | provider_rate_limited      | 429  |
 * | 5xx, or a 2xx body we cannot use                  | provider_unavailable       | 502  |
 * | no answer: DNS, connect, TLS, timeout             | provider_unreachable       | 502  |
 * | any other 4xx                                     | provider_request_error     | 400  |
 *
 * The quota check comes first, so OpenAI's `insufficient_quota` (sent with a
 * 429) is billing, not a rate limit: waiting will not fix it.
 */
import { ProviderFailed, ProviderNotListed, type ProviderErrorKind } from '../../errors.js';

export type { ProviderErrorKind } from '../../errors.js';

/** Codes and phrases vendors use for "this account cannot pay" (OpenAI, Anthropic, Perplexity, proxies). */
const QUOTA_PATTERN = new RegExp(
  'insufficient_quota|billing_hard_limit|billing_not_active|quota_exceeded|exceeded your current quota|' +
    'credit balance is too low|insufficient[_ ]credits|spend(ing)? limit',
  'i',
);

/** The classified error for an HTTP answer (`status`) or a transport failure (`status` undefined). */
export function classifyProviderError(
  provider: string,
  status: number | undefined,
  detail: string,
  retryAfter?: string | null,
): ProviderFailed {
  const failed = (kind: ProviderErrorKind, message: string, retryAfterSecs?: number) =>
    new ProviderFailed(message, kind, provider, status ?? null, retryAfterSecs);
  if (status === undefined) return failed('provider_unreachable', `${provider} is unreachable: ${detail}`);
  if (status === 402 || (status >= 400 && status < 500 && QUOTA_PATTERN.test(detail))) {
    return failed('provider_billing', `${provider} account cannot pay (quota or billing limit)`);
  }
  if (status === 401) return failed('provider_auth_failed', `${provider} rejected the configured API key`);
  if (status === 403)
    return failed('provider_permission_denied', `${provider} denied permission for this key, model or region`);
  if (status === 429)
    return failed('provider_rate_limited', `${provider} rate limit reached`, retryAfterSeconds(retryAfter));
  if (status >= 500 || (status >= 200 && status < 300))
    return failed('provider_unavailable', `${provider} is unavailable (${status}${status < 300 ? `: ${detail}` : ''})`);
  return failed('provider_request_error', `${provider} refused the request: ${vendorMessage(detail)}`);
}

/** A provider's answer came but cannot be used (not JSON, missing members, a broken stream). */
export function unusableAnswer(provider: string, what: string, status = 200): ProviderFailed {
  return new ProviderFailed(
    `${provider} is unavailable (${status}: ${what})`,
    'provider_unavailable',
    provider,
    status,
  );
}

/** No key (or URL) for `provider`: 400 on chat, 404 on the models listing (`listing`). */
export function providerNotConfigured(provider: string, listing = false): ProviderFailed {
  const message = `Provider '${provider}' is not configured`;
  return listing
    ? new ProviderNotListed(message, 'provider_not_configured', provider, null)
    : new ProviderFailed(message, 'provider_not_configured', provider, null);
}

/** Retry-After as whole seconds: delta-seconds, or an HTTP date turned into seconds from now. */
function retryAfterSeconds(header: string | null | undefined): number | undefined {
  if (!header) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/**
 * The vendor's own message from an error body (`{error: {message}}`, `{error: "..."}`, `{message}`), else the text,
 * short.
 */
function vendorMessage(detail: string): string {
  try {
    const body = JSON.parse(detail) as { error?: { message?: unknown } | string; message?: unknown };
    const error = body.error;
    const message =
      typeof error === 'string' ? error : typeof error?.message === 'string' ? error.message : body.message;
    if (typeof message === 'string' && message) return message.slice(0, 300);
  } catch {
    /* not JSON: the text itself */
  }
  return detail.slice(0, 300);
}
