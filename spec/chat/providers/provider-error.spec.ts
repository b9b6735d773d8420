/** The classifier's table (product.md, error_kind): status, kind, provider status, Retry-After. */
import { expect } from 'chai';
import { classifyProviderError, providerNotConfigured } from '../../../lib/chat/index.js';

describe('classifyProviderError', () => {
  const cases: Array<[number | undefined, string, string, number]> = [
    [401, '{}', 'provider_auth_failed', 502],
    [403, '{}', 'provider_permission_denied', 502],
    [402, '{}', 'provider_billing', 402],
    [
      429,
      '{"error":{"code":"insufficient_quota","message":"You exceeded your current quota"}}',
      'provider_billing',
      402,
    ],
    [
      400,
      '{"error":{"message":"Your credit balance is too low to access the Anthropic API."}}',
      'provider_billing',
      402,
    ],
    [429, '{"error":{"message":"slow down"}}', 'provider_rate_limited', 429],
    [500, '', 'provider_unavailable', 502],
    [529, '', 'provider_unavailable', 502],
    [200, 'unusable', 'provider_unavailable', 502],
    [400, '{"error":{"message":"bad model"}}', 'provider_request_error', 400],
    [422, 'nope', 'provider_request_error', 400],
    [undefined, 'ECONNREFUSED', 'provider_unreachable', 502],
  ];
  for (const [status, body, kind, http] of cases) {
    it(`maps ${status ?? 'no answer'} ${body.slice(0, 30)} to ${kind} ${http}`, () => {
      const e = classifyProviderError('openai', status, body);
      expect([e.kind, e.status, e.providerStatus, e.provider]).to.deep.equal([kind, http, status ?? null, 'openai']);
    });
  }

  it('never answers 401 or 403 for a provider refusal', () => {
    for (const s of [400, 401, 402, 403, 404, 429, 500])
      expect(classifyProviderError('x', s, '').status).to.not.be.oneOf([401, 403]);
  });

  it('forwards Retry-After in seconds, from delta-seconds or an HTTP date', () => {
    expect(classifyProviderError('openai', 429, '', '12').retryAfterSecs).to.equal(12);
    const at = new Date(Date.now() + 30_000).toUTCString();
    expect(classifyProviderError('openai', 429, '', at).retryAfterSecs).to.be.within(28, 31);
    expect(classifyProviderError('openai', 429, '', 'soon').retryAfterSecs).to.equal(undefined);
  });

  it('quotes the vendor message of a refused request', () => {
    expect(
      classifyProviderError(
        'anthropic',
        400,
        '{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"}}',
      ).message,
    ).to.equal('anthropic refused the request: max_tokens: Field required');
  });

  it('is 400 for an unconfigured provider on chat and 404 on the models listing', () => {
    expect([providerNotConfigured('anthropic').status, providerNotConfigured('anthropic', true).status]).to.deep.equal([
      400, 404,
    ]);
    expect(providerNotConfigured('anthropic', true).kind).to.equal('provider_not_configured');
  });
});
