/**
 * JwtSign and JwtVerify (jose), and the algorithms and keys they accept
 * (product.md, JwtSign and JwtVerify table).
 *
 * - JwtSign: a compact JWS of `claims` (an object; placeholders resolved per
 *   record, typed wrappers read as their values) signed with `secret` under
 *   the literal `algorithm`, header `{alg, typ: "JWT"}`, under
 *   `output_field`. `expires_in_secs` adds `iat` (the current time on the
 *   engine's clock) and `exp` (iat + that many seconds).
 * - JwtVerify: the token in the field named by `token_field` (a parameter or
 *   a record field; a `Bearer ` prefix is ignored) checked with `secret`
 *   under the literal `algorithm` only (a token claiming any other `alg`,
 *   `none` included, fails), its `exp` and `nbf` against the engine's
 *   clock. The claims go under `output_field`; any failure (missing or
 *   malformed token, bad signature, expired, wrong algorithm) gives null,
 *   not an error. A key that does not fit the algorithm fails the step.
 *
 * Members: `algorithm` is a literal of the table, HS256 by default, `none`
 * and anything else refused at save; `secret` is a literal or exactly
 * `{{env.NAME}}` (members.ts `strictSecret`). A literal secret is parsed at
 * save, so a bad key is a 400 then; an environment secret at each call.
 *
 * Keys:
 * - HS*: the secret's UTF-8 bytes.
 * - RS* and PS*: an RSA key (2048 bits or more), PKCS#8 (`BEGIN PRIVATE
 *   KEY`) or PKCS#1 (`BEGIN RSA PRIVATE KEY`); to verify, SPKI (`BEGIN
 *   PUBLIC KEY`), PKCS#1 (`BEGIN RSA PUBLIC KEY`) or a certificate.
 * - ES256 (P-256), ES384 (P-384) and EdDSA (Ed25519, Ed448): PKCS#8 only to
 *   sign; a SEC1 key (`BEGIN EC PRIVATE KEY`) is refused with a clear error.
 *   To verify, SPKI or a certificate.
 * - Verifying also accepts the private key (its public half is used).
 * Keys are parsed by node:crypto. No error carries the key or node's own
 * message about it: each names the kind of key expected.
 */
import { createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import { jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { isPlainObject, isTypedWrapper, type Value } from '../../../engine/index.js';
import { InvalidInput } from '../../../errors.js';
import { isConstant, isHostileName, type Template } from '../../template.js';
import { strictSecret } from '../members.js';
import { step, type Execution, type MemberReader, type Row } from '../step.js';
import { secretText, writeEach } from '../working-records.js';

const JWT_ALGORITHMS = [
  'HS256',
  'HS384',
  'HS512',
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'EdDSA',
] as const;
type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number];

type JwtKey = Uint8Array | KeyObject;

const MIN_RSA_BITS = 2048;
const PEM_LABEL = /-----BEGIN ([A-Z0-9 ]+)-----/;
const CURVES: Readonly<Record<string, string>> = { ES256: 'prime256v1', ES384: 'secp384r1' };

function isJwtAlgorithm(value: unknown): value is JwtAlgorithm {
  return typeof value === 'string' && (JWT_ALGORITHMS as readonly string[]).includes(value);
}

/** The key JwtSign signs with. */
function signingKey(alg: JwtAlgorithm, secret: string): JwtKey {
  if (alg.startsWith('HS')) return hmacKey(secret);
  const label = pemLabel(alg, secret, 'a PEM private key');
  switch (label) {
    case 'PRIVATE KEY':
      return checked(
        alg,
        parse(() => createPrivateKey({ key: secret, format: 'pem' }), alg, 'PKCS#8 private key'),
      );
    case 'RSA PRIVATE KEY':
      if (!isRsa(alg))
        throw new InvalidInput(
          `${alg} needs a PKCS#8 key ('BEGIN PRIVATE KEY'); a PKCS#1 RSA key does not fit this algorithm`,
        );
      return checked(
        alg,
        parse(() => createPrivateKey({ key: secret, format: 'pem' }), alg, 'PKCS#1 RSA private key'),
      );
    case 'EC PRIVATE KEY':
      throw sec1Refused(alg);
    case 'ENCRYPTED PRIVATE KEY':
      throw new InvalidInput(
        `${alg}: encrypted private keys are not accepted (no passphrase is configured); export the key unencrypted ` +
          `as PKCS#8`,
      );
    case 'PUBLIC KEY':
    case 'RSA PUBLIC KEY':
    case 'CERTIFICATE':
      throw new InvalidInput(`JwtSign with ${alg} needs a private key; a public key or certificate only verifies`);
    default:
      throw new InvalidInput(
        `${alg} needs a PEM private key ` +
          `(${isRsa(alg) ? "'BEGIN PRIVATE KEY' or 'BEGIN RSA PRIVATE KEY'" : "PKCS#8, 'BEGIN PRIVATE KEY'"})`,
      );
  }
}

/** The key JwtVerify checks with. */
function verifyingKey(alg: JwtAlgorithm, secret: string): JwtKey {
  if (alg.startsWith('HS')) return hmacKey(secret);
  const label = pemLabel(alg, secret, 'a PEM public key');
  switch (label) {
    case 'PUBLIC KEY':
      return checked(
        alg,
        parse(() => createPublicKey({ key: secret, format: 'pem' }), alg, 'SPKI public key'),
      );
    case 'RSA PUBLIC KEY':
      if (!isRsa(alg))
        throw new InvalidInput(
          `${alg} needs an SPKI public key ('BEGIN PUBLIC KEY'); a PKCS#1 RSA key does not fit this algorithm`,
        );
      return checked(
        alg,
        parse(() => createPublicKey({ key: secret, format: 'pem' }), alg, 'PKCS#1 RSA public key'),
      );
    case 'CERTIFICATE':
      return checked(
        alg,
        parse(() => new X509Certificate(secret).publicKey, alg, 'X.509 certificate'),
      );
    case 'EC PRIVATE KEY':
      throw sec1Refused(alg);
    case 'PRIVATE KEY':
    case 'RSA PRIVATE KEY':
    case 'ENCRYPTED PRIVATE KEY': {
      const priv = signingKey(alg, secret);
      return createPublicKey(priv as KeyObject);
    }
    default:
      throw new InvalidInput(`${alg} needs a PEM public key ('BEGIN PUBLIC KEY')`);
  }
}

function hmacKey(secret: string): Uint8Array {
  if (secret === '') throw new InvalidInput("'secret' must not be empty");
  return new Uint8Array(Buffer.from(secret, 'utf8'));
}

function isRsa(alg: JwtAlgorithm): boolean {
  return alg.startsWith('RS') || alg.startsWith('PS');
}

function pemLabel(alg: JwtAlgorithm, secret: string, wanted: string): string {
  const match = PEM_LABEL.exec(secret);
  if (!match)
    throw new InvalidInput(`${alg} needs ${wanted} in 'secret' (HS256, HS384 and HS512 take a shared secret)`);
  return match[1]!;
}

function sec1Refused(alg: JwtAlgorithm): InvalidInput {
  return new InvalidInput(
    `${alg}: SEC1 EC keys ('BEGIN EC PRIVATE KEY') are not accepted; use PKCS#8 ('BEGIN PRIVATE KEY'), e.g. openssl ` +
      `pkcs8 -topk8 -nocrypt -in key.pem`,
  );
}

/** Runs a node:crypto parse; its message (which may quote the input) is replaced by ours. */
function parse(read: () => KeyObject, alg: JwtAlgorithm, what: string): KeyObject {
  try {
    return read();
  } catch {
    throw new InvalidInput(`${alg}: 'secret' is not a readable ${what}`);
  }
}

/** The key fits the algorithm: RSA of 2048 bits or more, the algorithm's curve, an Edwards key. */
function checked(alg: JwtAlgorithm, key: KeyObject): KeyObject {
  const type = key.asymmetricKeyType;
  if (isRsa(alg)) {
    if (type !== 'rsa' && !(type === 'rsa-pss' && alg.startsWith('PS')))
      throw new InvalidInput(`${alg} needs an RSA key, not ${describe(key)}`);
    const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
    if (bits < MIN_RSA_BITS)
      throw new InvalidInput(`${alg} needs an RSA key of at least ${MIN_RSA_BITS} bits (this one has ${bits})`);
    return key;
  }
  if (alg === 'EdDSA') {
    if (type !== 'ed25519' && type !== 'ed448')
      throw new InvalidInput(`EdDSA needs an Ed25519 or Ed448 key, not ${describe(key)}`);
    return key;
  }
  if (type !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== CURVES[alg]) {
    throw new InvalidInput(`${alg} needs an EC key on ${alg === 'ES256' ? 'P-256' : 'P-384'}, not ${describe(key)}`);
  }
  return key;
}

function describe(key: KeyObject): string {
  const curve = key.asymmetricKeyDetails?.namedCurve;
  return `a ${key.asymmetricKeyType ?? 'unknown'}${curve ? ` (${curve})` : ''} key`;
}

/* Members */

interface JwtKeyConfig {
  readonly algorithm: JwtAlgorithm;
  readonly secret: Template;
  /** The parsed key when `secret` is a literal. */
  readonly key?: JwtKey;
}

function jwtAlgorithm(members: MemberReader): JwtAlgorithm {
  const raw = members.raw('algorithm');
  if (raw === undefined || raw === null) return 'HS256';
  if (typeof raw !== 'string') members.fail('must be a literal string (no parameter or env substitution)', 'algorithm');
  if (raw.includes('{{')) members.fail('must be a literal (no parameter or env substitution)', 'algorithm');
  if (raw.trim().toLowerCase() === 'none') members.fail("'none' is rejected: tokens must be signed", 'algorithm');
  if (!isJwtAlgorithm(raw)) members.fail(`must be one of ${JWT_ALGORITHMS.join(', ')}`, 'algorithm');
  return raw;
}

function jwtKeyConfig(members: MemberReader, purpose: 'sign' | 'verify'): JwtKeyConfig {
  const algorithm = jwtAlgorithm(members);
  const secret = strictSecret(members, 'secret');
  if (secret.kind !== 'const') return { algorithm, secret };
  try {
    return { algorithm, secret, key: readKey(algorithm, secret.value as string, purpose) };
  } catch (err) {
    if (err instanceof InvalidInput) members.fail(err.message, 'secret');
    throw err;
  }
}

/** The key for this call: parsed at save, or read from the environment at each call. */
function jwtKey(config: JwtKeyConfig, run: Execution, row: Row | undefined, purpose: 'sign' | 'verify'): JwtKey {
  return config.key ?? readKey(config.algorithm, secretText(run, config.secret, row, 'secret'), purpose);
}

function readKey(alg: JwtAlgorithm, secret: string, purpose: 'sign' | 'verify'): JwtKey {
  return purpose === 'sign' ? signingKey(alg, secret) : verifyingKey(alg, secret);
}

/* JwtSign */

/** Ten years: longer lifetimes are a mistake, not a policy. */
const MAX_JWT_LIFETIME_SECS = 10 * 366 * 86_400;
const MAX_CLAIMS_DEPTH = 32;
const MAX_TOKEN_LENGTH = 64 * 1024;

interface JwtSignConfig extends JwtKeyConfig {
  readonly claims: Template;
  readonly output: readonly string[];
  readonly expiresIn?: Template;
}

function lifetime(given: unknown): number {
  const seconds = isTypedWrapper(given) ? given.value : given;
  if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 1 || seconds > MAX_JWT_LIFETIME_SECS) {
    throw new InvalidInput(`'expires_in_secs' must be an integer between 1 and ${MAX_JWT_LIFETIME_SECS}`);
  }
  return seconds;
}

/** Claims as plain JSON: typed wrappers by their value, exact integers as numbers when safe. */
function claimValue(value: unknown, depth: number): unknown {
  if (depth > MAX_CLAIMS_DEPTH) throw new InvalidInput(`'claims' nested deeper than ${MAX_CLAIMS_DEPTH} levels`);
  if (isTypedWrapper(value)) return claimValue(value.value, depth);
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new InvalidInput("'claims' holds a number JSON cannot carry");
    return value;
  }
  if (typeof value === 'bigint') {
    if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) return value.toString();
    return Number(value);
  }
  if (Array.isArray(value)) return value.map((item) => claimValue(item, depth + 1));
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (isHostileName(key)) throw new InvalidInput(`'claims' holds the forbidden member '${key}'`);
      out[key] = claimValue(item, depth + 1);
    }
    return out;
  }
  throw new InvalidInput("'claims' must hold JSON values only (no binary data)");
}

export const jwtSign = step<JwtSignConfig>({
  type: 'JwtSign',
  secretMembers: ['secret'],
  access: 'none',
  compile: (members) => {
    const claims = members.template('claims');
    if (isConstant(claims) && !isPlainObject(claims.value)) members.fail('must be an object of claims', 'claims');
    const expiresIn = members.optionalTemplate('expires_in_secs');
    if (expiresIn && isConstant(expiresIn)) {
      try {
        lifetime(expiresIn.value);
      } catch (err) {
        members.fail((err as Error).message.replace(/^'expires_in_secs' /, ''), 'expires_in_secs');
      }
    }
    const key = jwtKeyConfig(members, 'sign');
    return { ...key, claims, output: members.fieldPath('output_field'), ...(expiresIn ? { expiresIn } : {}) };
  },
  run: (config, rows, run) =>
    writeEach(rows, config.output, async (row) => {
      const claims = claimValue(run.resolve(config.claims, row), 0);
      if (!isPlainObject(claims)) throw new InvalidInput("'claims' must resolve to an object");
      const jwt = new SignJWT(claims as JWTPayload).setProtectedHeader({ alg: config.algorithm, typ: 'JWT' });
      if (config.expiresIn) {
        const issuedAt = Math.floor(run.now() / 1000);
        jwt.setIssuedAt(issuedAt).setExpirationTime(issuedAt + lifetime(run.resolve(config.expiresIn, row)));
      }
      try {
        return await jwt.sign(jwtKey(config, run, row, 'sign'));
      } catch (err) {
        if (err instanceof InvalidInput) throw err;
        // jose's message names the algorithm or claim at fault, never the key.
        throw new InvalidInput(`JwtSign failed: ${(err as Error).message}`);
      }
    }),
});

/* JwtVerify */

interface JwtVerifyConfig extends JwtKeyConfig {
  readonly tokenField: readonly string[];
  readonly output: readonly string[];
}

function tokenText(given: unknown): string | undefined {
  const raw = isTypedWrapper(given) ? given.value : given;
  if (typeof raw !== 'string') return undefined;
  const token = raw.startsWith('Bearer ') ? raw.slice(7).trim() : raw.trim();
  return token === '' || token.length > MAX_TOKEN_LENGTH ? undefined : token;
}

/** Decoded claims as a stored value; undefined (so null claims) for a hostile member name or over-deep nesting. */
function claimsValue(given: unknown, depth: number): Value | undefined {
  if (depth > MAX_CLAIMS_DEPTH) return undefined;
  if (given === null || typeof given === 'string' || typeof given === 'boolean' || typeof given === 'number')
    return given;
  if (Array.isArray(given)) {
    const items = given.map((item) => claimsValue(item, depth + 1));
    return items.includes(undefined) ? undefined : Object.freeze(items as Value[]);
  }
  if (typeof given === 'object') {
    const out: Record<string, Value> = {};
    for (const [key, item] of Object.entries(given as Record<string, unknown>)) {
      const value = claimsValue(item, depth + 1);
      if (isHostileName(key) || value === undefined) return undefined;
      out[key] = value;
    }
    return Object.freeze(out);
  }
  return undefined;
}

export const jwtVerifyStep = step<JwtVerifyConfig>({
  type: 'JwtVerify',
  secretMembers: ['secret'],
  access: 'none',
  compile: (members) => ({
    ...jwtKeyConfig(members, 'verify'),
    tokenField: members.fieldPath('token_field'),
    output: members.fieldPath('output_field'),
  }),
  run: (config, rows, run) =>
    writeEach(rows, config.output, async (row) => {
      const key = jwtKey(config, run, row, 'verify');
      const hit = run.scope(row).lookup(config.tokenField);
      const token = hit.found ? tokenText(hit.value) : undefined;
      if (token === undefined) return null;
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: [config.algorithm],
          currentDate: new Date(run.now()),
        });
        return claimsValue(payload, 0) ?? null;
      } catch {
        return null;
      }
    }),
});
