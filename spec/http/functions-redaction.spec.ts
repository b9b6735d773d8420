/**
 * Definitions read back by a caller who is not an admin show literal key
 * material as [redacted] (members each step type declares: JWT and HMAC
 * secrets, AES keys, API keys, request headers), in nested step lists too;
 * `{{env.NAME}}` and `{{param}}` values are kept. Admins read them back
 * exactly as saved.
 */
import { expect } from 'chai';
import { TestServer } from '../helpers/test-server.js';

const LITERAL = 'a-literal-hmac-secret-0123456789';
const definition = {
  label: 'signer',
  name: 'Signer',
  parameters: { input: { required: true } },
  functions: [
    { type: 'HmacSign', input: '{{input}}', secret: LITERAL, output_field: 'mac' },
    {
      type: 'If',
      condition: { type: 'HasRecords' },
      then_functions: [
        { type: 'JwtSign', claims: { sub: 'x' }, secret: '{{env.JWT_SECRET}}', output_field: 'token' },
        {
          type: 'HttpRequest',
          url: 'https://example.com',
          headers: { Authorization: `Bearer ${LITERAL}`, Accept: 'application/json' },
        },
      ],
    },
  ],
};

describe('HTTP stored functions: key material in definitions read back', () => {
  let s: TestServer;
  before(async () => {
    s = await TestServer.start({ functionEnv: ['JWT_SECRET'], functionEnvVariables: { JWT_SECRET: 'env-secret' } });
  });
  after(async () => {
    await s.stop();
  });

  it('shows literal secrets to admins as saved and as [redacted] to other callers, in list and get', async () => {
    expect((await s.request('POST', '/api/functions', definition)).status).to.equal(200);
    const admin = await s.request('GET', '/api/functions/signer');
    expect(admin.body.functions).to.deep.equal(definition.functions);

    const user = await s.userToken();
    for (const path of ['/api/functions/signer', '/api/functions']) {
      const r = await s.request('GET', path, undefined, { token: user });
      expect(r.status).to.equal(200);
      expect(r.text).to.not.include(LITERAL);
      const def = Array.isArray(r.body) ? r.body[0] : r.body;
      expect(def.functions[0].secret).to.equal('[redacted]');
      expect(def.functions[0].input).to.equal('{{input}}');
      const [jwt, http] = def.functions[1].then_functions;
      expect(jwt.secret).to.equal('{{env.JWT_SECRET}}');
      expect(http.headers).to.deep.equal({ Authorization: '[redacted]', Accept: '[redacted]' });
      expect(http.url).to.equal('https://example.com');
    }
  });
});
