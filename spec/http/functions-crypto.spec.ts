import { expect } from 'chai';
import { TestServer } from '../helpers/test-server.js';

const JWT_SECRET = 'jwt-secret-never-shown-0123456789abcdef';

/**
 * The JWT auth flow of the clients' examples: BcryptHash on signup, BcryptVerify + JwtSign on login, JwtVerify on a
 * protected call.
 */
const signup = {
  label: 'signup',
  name: 'Sign up',
  parameters: { email: { required: true }, password: { required: true } },
  functions: [
    { type: 'BcryptHash', plain: '{{password}}', output_field: 'password_hash', cost: 4 },
    { type: 'Insert', collection: 'users', record: { email: '{{email}}', password_hash: '{{password_hash}}' } },
    { type: 'Return', fields: { id: '{{id}}', email: '{{email}}' }, status_code: 201 },
  ],
};
const login = {
  label: 'login',
  name: 'Log in',
  parameters: { email: { required: true }, password: { required: true } },
  functions: [
    { type: 'FindAll', collection: 'users' },
    { type: 'BcryptVerify', plain: '{{password}}', hash_field: 'password_hash', output_field: 'password_ok' },
    {
      type: 'If',
      condition: { type: 'FieldEquals', value: { field: 'password_ok', value: true } },
      then_functions: [
        {
          type: 'JwtSign',
          claims: { sub: '{{id}}', email: '{{email}}' },
          secret: '{{env.JWT_SECRET}}',
          output_field: 'token',
          expires_in_secs: 3600,
        },
        { type: 'Return', fields: { token: '{{token}}' } },
      ],
      else_functions: [{ type: 'Return', fields: { error: 'invalid credentials' }, status_code: 401 }],
    },
  ],
};
const me = {
  label: 'me',
  name: 'Who am I',
  parameters: { token: { required: false, default: '' } },
  functions: [
    { type: 'JwtVerify', token_field: 'token', secret: '{{env.JWT_SECRET}}', output_field: 'claims' },
    {
      type: 'If',
      condition: { type: 'FieldEquals', value: { field: 'claims', value: null } },
      then_functions: [{ type: 'Return', fields: { error: 'unauthorized' }, status_code: 401 }],
      else_functions: [{ type: 'Return', fields: { email: '{{claims.email}}', sub: '{{claims.sub}}' } }],
    },
  ],
};

describe('HTTP stored functions: crypto steps and environment secrets', () => {
  let s: TestServer;
  const seen: string[] = [];
  const request = async (...args: Parameters<TestServer['request']>) => {
    const r = await s.request(...args);
    seen.push(r.text);
    return r;
  };

  beforeEach(async () => {
    seen.length = 0;
    s = await TestServer.start({
      functionEnv: ['JWT_SECRET'],
      functionEnvVariables: { JWT_SECRET, DATA_KEY: 'ab'.repeat(32) },
    });
  });
  afterEach(async () => {
    // Secrets never appear in responses or logs.
    for (const text of [...seen, ...s.logged.map((l) => JSON.stringify(l))]) expect(text).to.not.include(JWT_SECRET);
    await s.stop();
  });

  it('runs the JWT auth flow: signup, login, protected call', async () => {
    for (const def of [signup, login, me]) expect((await request('POST', '/api/functions', def)).status).to.equal(200);
    const created = await request('POST', '/api/functions/signup', {
      email: 'ann@example.com',
      password: 'correct horse',
    });
    expect(created.status).to.equal(201);
    const stored = await request('POST', '/api/find/users', {});
    const hash = stored.body[0].password_hash.value ?? stored.body[0].password_hash;
    expect(hash).to.match(/^\$2b\$04\$/);

    const wrong = await request('POST', '/api/functions/login', { email: 'ann@example.com', password: 'wrong' });
    expect(wrong.status).to.equal(401);
    expect(wrong.body).to.deep.equal({ error: 'invalid credentials' });

    const ok = await request('POST', '/api/functions/login', { email: 'ann@example.com', password: 'correct horse' });
    expect(ok.status).to.equal(200);
    const token = ok.body.token as string;
    expect(token.split('.')).to.have.length(3);

    const mine = await request('POST', '/api/functions/me', { token });
    expect(mine.status).to.equal(200);
    expect(mine.body).to.deep.equal({ email: 'ann@example.com', sub: created.body.id });
    expect((await request('POST', '/api/functions/me', { token: `Bearer ${token}` })).status).to.equal(200);

    const tampered = `${token.slice(0, -4)}AAAA`;
    expect((await request('POST', '/api/functions/me', { token: tampered })).status).to.equal(401);
    expect((await request('POST', '/api/functions/me', {})).status).to.equal(401);
    s.clock.advance(3601_000);
    expect((await request('POST', '/api/functions/me', { token })).status).to.equal(401);
  });

  it('refuses at save an env name off the allow-list, naming it and not its value; PUT /api/config opens it', async () => {
    const def = {
      label: 'enc',
      name: 'enc',
      parameters: {},
      functions: [{ type: 'AesEncrypt', plaintext: 'x', key: '{{env.DATA_KEY}}', output_field: 'box' }],
    };
    const refused = await request('POST', '/api/functions', def);
    expect(refused.status).to.equal(400);
    expect(refused.body.error).to.equal(
      "functions[0].key: environment variable 'DATA_KEY' is not on the allow-list (function_env_allowlist or " +
        'EDDYDB_FUNCTION_ENV)',
    );
    expect(refused.text).to.not.include('ab'.repeat(32));

    expect((await request('PUT', '/api/config', { function_env_allowlist: ['DATA KEY'] })).status).to.equal(400);
    expect((await request('PUT', '/api/config', { function_env_allowlist: 'DATA_KEY' })).status).to.equal(400);
    expect((await request('PUT', '/api/config', { function_env_allowlist: ['DATA_KEY'] })).status).to.equal(200);
    expect((await request('GET', '/api/config')).body.function_env_allowlist).to.deep.equal(['DATA_KEY']);
    expect((await request('POST', '/api/functions', def)).status).to.equal(200);
    const call = await request('POST', '/api/functions/enc', {});
    expect(call.status).to.equal(200);
    expect(Object.keys(call.body.records[0].box.value ?? call.body.records[0].box)).to.have.members([
      'ciphertext',
      'nonce',
    ]);
    expect(call.text).to.not.include('ab'.repeat(32));
  });

  it('refuses a call parameter as a JWT secret and none as its algorithm, and fails a bad key without echoing it', async () => {
    const withSecret = (secret: unknown, algorithm = 'HS256') => ({
      label: 'sign',
      name: 'sign',
      parameters: { key: { required: false } },
      functions: [{ type: 'JwtSign', claims: { a: 1 }, secret, algorithm, output_field: 't' }],
    });
    const param = await request('POST', '/api/functions', withSecret('{{key}}'));
    expect(param.status).to.equal(400);
    expect(param.body.error).to.match(/^functions\[0\]\.secret: .*a call parameter or a field cannot be a secret/);
    const none = await request('POST', '/api/functions', withSecret('s', 'none'));
    expect(none.status).to.equal(400);
    expect(none.body.error).to.equal("functions[0].algorithm: 'none' is rejected: tokens must be signed");

    expect((await request('POST', '/api/functions', withSecret('{{env.JWT_SECRET}}', 'RS256'))).status).to.equal(200);
    const failed = await request('POST', '/api/functions/sign', {});
    expect(failed.status).to.equal(400);
    expect(failed.body).to.include({ error: true, operation_index: 0, operation_type: 'JwtSign' });
    expect(failed.body.message).to.equal(
      "RS256 needs a PEM private key in 'secret' (HS256, HS384 and HS512 take a shared secret)",
    );
  });
});
