/** The redaction applied to everything the server logs about a request. */
import { expect } from 'chai';
import { REDACTED, isSecretName, redactFields, redactUrl } from '../../../lib/http/log/redact.js';

describe('redaction of logged requests', () => {
  for (const name of [
    'token',
    'api_key',
    'apiKey',
    'API-KEY',
    'x-api-key',
    'key',
    'openai_api_key',
    'access_token',
    'refresh-token',
    'secret',
    'client_secret',
    'password',
    'Passwd',
    'authorization',
    'Proxy-Authorization',
    'cookie',
    'Set-Cookie',
    'credentials',
    'signature',
    'session_id',
    'auth',
    'pwd',
    'jwt',
    'sig',
  ]) {
    it(`treats '${name}' as a secret name`, () => expect(isSecretName(name)).to.equal(true));
  }

  for (const name of [
    'collection',
    'id',
    'limit',
    'filter_field',
    'keys',
    'key_id',
    'author',
    'content-type',
    'accept',
    'user-agent',
    'name',
  ]) {
    it(`leaves '${name}' readable`, () => expect(isSecretName(name)).to.equal(false));
  }

  it('redacts secret query parameters and keeps the rest of the URL byte for byte', () => {
    expect(redactUrl('/api/find/c?token=abc.def&limit=5&API_KEY=k%20y&x')).to.equal(
      `/api/find/c?token=${REDACTED}&limit=5&API_KEY=${REDACTED}&x`,
    );
  });

  it('recognises a percent-encoded or valueless secret parameter name', () => {
    expect(redactUrl('/a?%74oken=abc')).to.equal(`/a?%74oken=${REDACTED}`);
    expect(redactUrl('/a?password')).to.equal(`/a?password=${REDACTED}`);
    expect(redactUrl('/a?%zz=1')).to.equal('/a?%zz=1');
  });

  it('leaves a URL without a query alone', () => {
    expect(redactUrl('/api/kv/get/token')).to.equal('/api/kv/get/token');
  });

  it('redacts secret headers and nested body members at any depth, and nothing else', () => {
    const out = redactFields({
      authorization: 'Bearer x',
      'content-type': 'application/json',
      cookie: ['a=1', 'b=2'],
      body: { name: 'n', api_key: 'k', nested: [{ password: 'p', ok: 1 }] },
    });
    expect(out).to.deep.equal({
      authorization: REDACTED,
      'content-type': 'application/json',
      cookie: REDACTED,
      body: { name: 'n', api_key: REDACTED, nested: [{ password: REDACTED, ok: 1 }] },
    });
  });

  it('cuts a deeply nested body instead of walking it, and copies a __proto__ member as data', () => {
    let deep: unknown = { token: 't' };
    for (let i = 0; i < 1000; i++) deep = { d: deep };
    expect(JSON.stringify(redactFields(deep))).to.contain('[…]');
    const hostile = JSON.parse('{"__proto__":{"token":"t"}}') as unknown;
    const out = redactFields(hostile) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).to.equal(null);
    expect(JSON.stringify(out)).to.equal(`{"__proto__":{"token":"${REDACTED}"}}`);
  });
});
