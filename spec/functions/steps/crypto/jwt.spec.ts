import { expect } from 'chai';
import {
  constants,
  createHmac,
  createPublicKey,
  generateKeyPairSync,
  sign as nodeSign,
  verify as nodeVerify,
  type KeyObject,
} from 'node:crypto';
import { ManualClock } from '../../../../lib/engine/index.js';
import { functionEnv } from '../../../../lib/functions/index.js';
import { FunctionHarness, rejection } from '../../../helpers/function-harness.js';

const b64u = (v: string | Buffer) => Buffer.from(v).toString('base64url');
const HASH: Record<string, string> = { 256: 'sha256', 384: 'sha384', 512: 'sha512' };

/** RFC 7518 section 3: the signature of `input` by node:crypto alone (no jose), for `alg`. */
function rawSign(alg: string, input: string, key: KeyObject | string): Buffer {
  const hash = HASH[alg.slice(2)]!;
  if (alg.startsWith('HS'))
    return createHmac(hash, key as string)
      .update(input)
      .digest();
  if (alg === 'EdDSA') return nodeSign(null, Buffer.from(input), key as KeyObject);
  if (alg.startsWith('PS'))
    return nodeSign(hash, Buffer.from(input), {
      key: key as KeyObject,
      padding: constants.RSA_PKCS1_PSS_PADDING,
      saltLength: constants.RSA_PSS_SALTLEN_DIGEST,
    });
  if (alg.startsWith('ES'))
    return nodeSign(hash, Buffer.from(input), { key: key as KeyObject, dsaEncoding: 'ieee-p1363' });
  return nodeSign(hash, Buffer.from(input), key as KeyObject);
}

function rawVerify(alg: string, token: string, key: KeyObject | string): boolean {
  const [h, p, s] = token.split('.') as [string, string, string];
  const input = `${h}.${p}`;
  const sig = Buffer.from(s, 'base64url');
  const hash = HASH[alg.slice(2)]!;
  if (alg.startsWith('HS'))
    return createHmac(hash, key as string)
      .update(input)
      .digest()
      .equals(sig);
  if (alg === 'EdDSA') return nodeVerify(null, Buffer.from(input), key as KeyObject, sig);
  if (alg.startsWith('PS'))
    return nodeVerify(
      hash,
      Buffer.from(input),
      { key: key as KeyObject, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST },
      sig,
    );
  if (alg.startsWith('ES'))
    return nodeVerify(hash, Buffer.from(input), { key: key as KeyObject, dsaEncoding: 'ieee-p1363' }, sig);
  return nodeVerify(hash, Buffer.from(input), key as KeyObject, sig);
}

function handToken(
  alg: string,
  payload: Record<string, unknown>,
  key: KeyObject | string,
  header: Record<string, unknown> = { alg, typ: 'JWT' },
): string {
  const input = `${b64u(JSON.stringify(header))}.${b64u(JSON.stringify(payload))}`;
  return `${input}.${b64u(rawSign(alg, input, key))}`;
}

interface Pair {
  privatePem: string;
  publicPem: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

function pair(kp: { privateKey: KeyObject; publicKey: KeyObject }, type: 'pkcs8' | 'pkcs1' | 'sec1' = 'pkcs8'): Pair {
  return {
    privatePem: kp.privateKey.export({ type, format: 'pem' }) as string,
    publicPem: kp.publicKey.export({ type: 'spki', format: 'pem' }) as string,
    privateKey: kp.privateKey,
    publicKey: kp.publicKey,
  };
}

describe('functions: JwtSign and JwtVerify', function () {
  this.timeout(20_000);
  let h: FunctionHarness;
  let clock: ManualClock;
  let rsa: ReturnType<typeof generateKeyPairSync>;
  let keys: Record<string, Pair>;

  before(() => {
    rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' });
    const ed = generateKeyPairSync('ed25519');
    keys = {
      rsaPkcs8: pair(rsa),
      rsaPkcs1: pair(rsa, 'pkcs1'),
      p256: pair(p256),
      p384: pair(p384),
      ed25519: pair(ed),
      p256Sec1: pair(p256, 'sec1'),
    };
  });
  beforeEach(async () => {
    clock = new ManualClock(Date.UTC(2026, 0, 1));
    h = await FunctionHarness.open({ clock });
  });
  afterEach(async () => {
    await h.close();
  });

  const sign = async (extra: Record<string, unknown>, params: Record<string, unknown> = {}) =>
    (await h.run([{ type: 'JwtSign', claims: { sub: 'u1', role: 'admin' }, output_field: 'token', ...extra }], params))
      .records[0]!.token as string;
  const verify = async (token: unknown, extra: Record<string, unknown>) =>
    (await h.run([{ type: 'JwtVerify', token_field: 'token', output_field: 'claims', ...extra }], { token }))
      .records[0]!.claims;

  it('signs the jwt.io HS256 example to its published token, and verifies it', async () => {
    const token = await sign({
      claims: { sub: '1234567890', name: 'John Doe', iat: 1516239022 },
      secret: 'your-256-bit-secret',
    });
    expect(token).to.equal(
      'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
    );
    expect(await verify(token, { secret: 'your-256-bit-secret' })).to.deep.equal({
      sub: '1234567890',
      name: 'John Doe',
      iat: 1516239022,
    });
    expect(await verify(token, { secret: 'your-256-bit-secreT' })).to.equal(null);
  });

  it('verifies the RFC 7515 appendix A.3 ES256 example with its published key, until its exp', async () => {
    // (A.1's HS256 key is not UTF-8 text, so it cannot be a `secret` string; A.3 is the usable published example.)
    const jwk = {
      kty: 'EC',
      crv: 'P-256',
      x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
      y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
    };
    const secret = createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' }) as string;
    const token =
      'eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ' +
      '.DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q';
    clock.set(1300819380_000 - 60_000);
    expect(await verify(token, { algorithm: 'ES256', secret })).to.deep.equal({
      iss: 'joe',
      exp: 1300819380,
      'http://example.com/is_root': true,
    });
    expect(await verify(token, { algorithm: 'ES384', secret: keys.p384!.publicPem })).to.equal(null);
    expect(await verify(token.replace('.Dt', '.Du'), { algorithm: 'ES256', secret })).to.equal(null);
    clock.set(1300819380_000 + 1_000);
    expect(await verify(token, { algorithm: 'ES256', secret })).to.equal(null);
  });

  const CASES: readonly { alg: string; sign: () => string; verify: () => string[]; raw: () => KeyObject | string }[] = [
    ...['HS256', 'HS384', 'HS512'].map((alg) => ({
      alg,
      sign: () => 'shared-secret-of-some-length-0123456789',
      verify: () => ['shared-secret-of-some-length-0123456789'],
      raw: () => 'shared-secret-of-some-length-0123456789',
    })),
    ...['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'].flatMap((alg) => [
      {
        alg,
        sign: () => keys.rsaPkcs8!.privatePem,
        verify: () => [keys.rsaPkcs8!.publicPem, rsa.publicKey.export({ type: 'pkcs1', format: 'pem' }) as string],
        raw: () => keys.rsaPkcs8!.privateKey,
      },
      {
        alg,
        sign: () => keys.rsaPkcs1!.privatePem,
        verify: () => [keys.rsaPkcs1!.publicPem, keys.rsaPkcs1!.privatePem],
        raw: () => keys.rsaPkcs1!.privateKey,
      },
    ]),
    {
      alg: 'ES256',
      sign: () => keys.p256!.privatePem,
      verify: () => [keys.p256!.publicPem],
      raw: () => keys.p256!.privateKey,
    },
    {
      alg: 'ES384',
      sign: () => keys.p384!.privatePem,
      verify: () => [keys.p384!.publicPem],
      raw: () => keys.p384!.privateKey,
    },
    {
      alg: 'EdDSA',
      sign: () => keys.ed25519!.privatePem,
      verify: () => [keys.ed25519!.publicPem],
      raw: () => keys.ed25519!.privateKey,
    },
  ];

  it('signs with every algorithm of the table (RSA keys PKCS#8 and PKCS#1), each token checked by node:crypto alone', async () => {
    for (const c of CASES) {
      const token = await sign({ algorithm: c.alg, secret: c.sign() });
      const [header, payload] = token
        .split('.')
        .slice(0, 2)
        .map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()));
      expect(header, c.alg).to.deep.equal({ alg: c.alg, typ: 'JWT' });
      expect(payload, c.alg).to.deep.equal({ sub: 'u1', role: 'admin' });
      const publicKey = c.alg.startsWith('HS') ? c.raw() : createPublicKey(c.raw() as KeyObject);
      expect(rawVerify(c.alg, token, publicKey), c.alg).to.equal(true);
      for (const secret of c.verify())
        expect(await verify(token, { algorithm: c.alg, secret }), c.alg).to.deep.equal({ sub: 'u1', role: 'admin' });
    }
  });

  it('verifies tokens made by node:crypto alone with every algorithm, and refuses them under another algorithm', async () => {
    for (const c of CASES) {
      const token = handToken(c.alg, { sub: 'hand', n: 1 }, c.raw());
      expect(await verify(token, { algorithm: c.alg, secret: c.verify()[0] }), c.alg).to.deep.equal({
        sub: 'hand',
        n: 1,
      });
      const other = c.alg === 'HS256' ? 'HS384' : c.alg.startsWith('HS') ? 'HS256' : undefined;
      if (other) expect(await verify(token, { algorithm: other, secret: c.verify()[0] }), c.alg).to.equal(null);
    }
    const rsaToken = handToken('RS256', { sub: 'x' }, keys.rsaPkcs8!.privateKey);
    expect(await verify(rsaToken, { algorithm: 'PS256', secret: keys.rsaPkcs8!.publicPem })).to.equal(null);
  });

  it('refuses SEC1 EC keys with a clear error, at save for a literal and at run time from the environment', async () => {
    const message =
      "ES256: SEC1 EC keys ('BEGIN EC PRIVATE KEY') are not accepted; use PKCS#8 ('BEGIN PRIVATE KEY'), e.g. " +
      'openssl pkcs8 -topk8 -nocrypt -in key.pem';
    expect(() =>
      h.define({
        label: 's',
        functions: [
          { type: 'JwtSign', claims: {}, output_field: 't', algorithm: 'ES256', secret: keys.p256Sec1!.privatePem },
        ],
      }),
    ).to.throw(`functions[0].secret: ${message}`);
    h.env = functionEnv({ startup: ['EC_KEY'], variables: { EC_KEY: keys.p256Sec1!.privatePem } });
    const err = await rejection(
      h.run([{ type: 'JwtSign', claims: {}, output_field: 't', algorithm: 'ES256', secret: '{{env.EC_KEY}}' }]),
    );
    expect(err.message).to.equal(message);
    expect(() =>
      h.define({
        label: 'v',
        functions: [
          {
            type: 'JwtVerify',
            token_field: 't',
            output_field: 'c',
            algorithm: 'ES256',
            secret: keys.p256Sec1!.privatePem,
          },
        ],
      }),
    ).to.throw(message);
  });

  it('refuses keys that do not fit the algorithm, naming what was expected and never quoting the key', async () => {
    const bad: [string, string, RegExp][] = [
      ['ES256', keys.rsaPkcs1!.privatePem, /ES256 needs a PKCS#8 key/],
      ['ES256', keys.p384!.privatePem, /ES256 needs an EC key on P-256, not a ec \(secp384r1\) key/],
      ['RS256', keys.p256!.privatePem, /RS256 needs an RSA key, not a ec/],
      ['EdDSA', keys.p256!.privatePem, /EdDSA needs an Ed25519 or Ed448 key/],
      ['RS256', keys.rsaPkcs8!.publicPem, /needs a private key; a public key or certificate only verifies/],
      ['RS256', 'not a pem', /RS256 needs a PEM private key in 'secret'/],
      [
        'PS256',
        generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({
          type: 'pkcs8',
          format: 'pem',
        }) as string,
        /at least 2048 bits \(this one has 1024\)/,
      ],
    ];
    for (const [algorithm, secret, message] of bad) {
      expect(
        () =>
          h.define({
            label: `k${algorithm}${secret.length}`,
            functions: [{ type: 'JwtSign', claims: {}, output_field: 't', algorithm, secret }],
          }),
        algorithm,
      ).to.throw(message);
    }
    const garbage = '-----BEGIN PRIVATE KEY-----\nTOPSECRETMATERIAL\n-----END PRIVATE KEY-----';
    h.env = functionEnv({ startup: ['JWT_KEY'], variables: { JWT_KEY: garbage } });
    const err = await rejection(
      h.run([{ type: 'JwtSign', claims: {}, output_field: 't', algorithm: 'RS256', secret: '{{env.JWT_KEY}}' }]),
    );
    expect(err.message).to.equal("RS256: 'secret' is not a readable PKCS#8 private key");
    expect(JSON.stringify({ m: err.message, d: err.details })).to.not.include('TOPSECRETMATERIAL');
  });

  it('takes the algorithm as a literal only: placeholders, Parameter refs, none and unknown names refused at save', () => {
    const define = (algorithm: unknown) => () =>
      h.define({
        label: `a${JSON.stringify(algorithm)}`,
        parameters: { alg: { required: false } },
        functions: [{ type: 'JwtSign', claims: {}, output_field: 't', secret: 's', algorithm }],
      });
    expect(define('{{alg}}')).to.throw('functions[0].algorithm: must be a literal (no parameter or env substitution)');
    expect(define('{{env.ALG}}')).to.throw(
      'functions[0].algorithm: must be a literal (no parameter or env substitution)',
    );
    expect(define({ type: 'Parameter', name: 'alg' })).to.throw(
      'functions[0].algorithm: must be a literal string (no parameter or env substitution)',
    );
    for (const none of ['none', 'None', 'NONE'])
      expect(define(none)).to.throw("functions[0].algorithm: 'none' is rejected: tokens must be signed");
    expect(define('HS1')).to.throw(
      'functions[0].algorithm: must be one of HS256, HS384, HS512, RS256, RS384, RS512, PS256, PS384, PS512, ES256, ' +
        'ES384, EdDSA',
    );
    expect(define('hs256')).to.throw('must be one of');
  });

  it('takes the secret as a literal or {{env.NAME}} only: call parameters and fields refused at save', () => {
    h.env = functionEnv({ startup: ['JWT_SECRET'], variables: { JWT_SECRET: 'x' } });
    const define =
      (secret: unknown, type = 'JwtSign') =>
      () =>
        h.define({
          label: `s${JSON.stringify(secret)}${type}`,
          parameters: { key: { required: false } },
          functions: [{ type, claims: {}, token_field: 't', output_field: 'o', secret }],
        });
    expect(define('{{env.JWT_SECRET}}')).to.not.throw();
    expect(define('{{key}}')).to.throw(
      "functions[0].secret: must be a literal or exactly '{{env.NAME}}': a call parameter or a field cannot be a secret",
    );
    expect(define('{{key}}', 'JwtVerify')).to.throw('a call parameter or a field cannot be a secret');
    expect(define('prefix-{{env.JWT_SECRET}}')).to.throw('a call parameter or a field cannot be a secret');
    expect(define({ type: 'Parameter', name: 'key' })).to.throw(
      "functions[0].secret: must be a literal string or '{{env.NAME}}' (never a call parameter)",
    );
    expect(define('{{env.OTHER}}')).to.throw("environment variable 'OTHER' is not on the allow-list");
    expect(define('')).to.throw('functions[0].secret: must be a literal string');
  });

  it('adds iat and exp with expires_in_secs on the engine clock; expired or not-yet-valid tokens verify to null', async () => {
    const now = Math.floor(clock.now() / 1000);
    const token = await sign({ secret: 'k'.repeat(32), expires_in_secs: 3600 });
    const claims = await verify(token, { secret: 'k'.repeat(32) });
    expect(claims).to.deep.equal({ sub: 'u1', role: 'admin', iat: now, exp: now + 3600 });
    clock.advance(3599_000);
    expect(await verify(token, { secret: 'k'.repeat(32) })).to.not.equal(null);
    clock.advance(2_000);
    expect(await verify(token, { secret: 'k'.repeat(32) })).to.equal(null);
    const future = handToken('HS256', { sub: 'x', nbf: Math.floor(clock.now() / 1000) + 60 }, 'k'.repeat(32));
    expect(await verify(future, { secret: 'k'.repeat(32) })).to.equal(null);
    expect(() =>
      h.define({
        label: 'e',
        functions: [{ type: 'JwtSign', claims: {}, output_field: 't', secret: 's', expires_in_secs: 0 }],
      }),
    ).to.throw('functions[0].expires_in_secs: must be an integer between 1 and');
  });

  it('gives null claims for tampered, unsigned, confused or malformed tokens, never an error', async () => {
    const secret = 's'.repeat(32);
    const token = await sign({ secret });
    const [h64, p64, s64] = token.split('.') as [string, string, string];
    const forged = b64u(JSON.stringify({ sub: 'u1', role: 'root' }));
    const unsigned = `${b64u(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${p64}.`;
    const flipped = `${h64}.${p64}.${s64.slice(0, -2)}${s64.endsWith('AA') ? 'AB' : 'AA'}`;
    for (const bad of [
      `${h64}.${forged}.${s64}`,
      unsigned,
      flipped,
      `${h64}.${p64}`,
      'garbage',
      '',
      42,
      null,
      'a.b.c',
    ]) {
      expect(await verify(bad, { secret }), String(bad)).to.equal(null);
    }
    // Algorithm confusion: an HS256 token keyed with the RSA public key's PEM text is not an RS256 token.
    const confused = handToken('HS256', { sub: 'u1', role: 'root' }, keys.rsaPkcs8!.publicPem);
    expect(await verify(confused, { algorithm: 'RS256', secret: keys.rsaPkcs8!.publicPem })).to.equal(null);
    expect(
      (await h.run([{ type: 'JwtVerify', token_field: 'missing', output_field: 'claims', secret }])).records[0]!.claims,
    ).to.equal(null);
    const hostile = handToken('HS256', JSON.parse('{"sub":"x","__proto__":{"admin":true}}'), secret);
    expect(await verify(hostile, { secret })).to.equal(null);
    expect(await verify(`Bearer ${token}`, { secret })).to.deep.equal({ sub: 'u1', role: 'admin' });
  });

  it('signs claims with placeholders per working record, typed wrappers read as values', async () => {
    const s = h.db.session(undefined);
    await s.insert('users', { email: 'a@x.io', joined: { type: 'DateTime', value: '2026-01-02T03:04:05Z' } });
    const r = await h.run(
      [
        { type: 'FindAll', collection: 'users' },
        {
          type: 'JwtSign',
          claims: {
            sub: '{{id}}',
            email: '{{email}}',
            joined: '{{joined}}',
            tier: { type: 'Parameter', name: 'tier' },
          },
          secret: 'k'.repeat(32),
          output_field: 'token',
        },
        { type: 'JwtVerify', token_field: 'token', secret: 'k'.repeat(32), output_field: 'claims' },
      ],
      { tier: { type: 'Integer', value: 3 } },
    );
    const claims = r.records[0]!.claims as Record<string, unknown>;
    expect(claims).to.deep.equal({
      sub: r.records[0]!.id,
      email: 'a@x.io',
      joined: '2026-01-02T03:04:05+00:00',
      tier: 3,
    });
    const err = await rejection(
      h.run([{ type: 'JwtSign', claims: '{{c}}', secret: 'k', output_field: 't' }], { c: 'text' }),
    );
    expect(err.message).to.equal("'claims' must resolve to an object");
  });
});
