/**
 * JWT algorithms and keys (product.md, JwtSign and JwtVerify table).
 *
 * - The algorithm is a literal of the table; `none` and anything else is
 *   refused at save.
 * - HS*: the secret's UTF-8 bytes.
 * - RS* and PS*: an RSA key (2048 bits or more), PKCS#8 (`BEGIN PRIVATE
 *   KEY`) or PKCS#1 (`BEGIN RSA PRIVATE KEY`); to verify, SPKI (`BEGIN
 *   PUBLIC KEY`), PKCS#1 (`BEGIN RSA PUBLIC KEY`) or a certificate.
 * - ES256 (P-256), ES384 (P-384) and EdDSA (Ed25519, Ed448): PKCS#8 only to
 *   sign; a SEC1 key (`BEGIN EC PRIVATE KEY`) is refused with a clear error.
 *   To verify, SPKI or a certificate.
 * - Verifying also accepts the private key (its public half is used).
 *
 * Keys are parsed by node:crypto. No error carries the key or node's own
 * message about it: each says what kind of key was expected.
 */
import { createPrivateKey, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import { InvalidInput } from '../../../errors.js';

export const JWT_ALGORITHMS = ['HS256', 'HS384', 'HS512', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'EdDSA'] as const;
export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number];

export type JwtKey = Uint8Array | KeyObject;

const MIN_RSA_BITS = 2048;
const PEM_LABEL = /-----BEGIN ([A-Z0-9 ]+)-----/;
const CURVES: Readonly<Record<string, string>> = { ES256: 'prime256v1', ES384: 'secp384r1' };

export function isJwtAlgorithm(v: unknown): v is JwtAlgorithm {
  return typeof v === 'string' && (JWT_ALGORITHMS as readonly string[]).includes(v);
}

/** The key JwtSign signs with. */
export function signingKey(alg: JwtAlgorithm, secret: string): JwtKey {
  if (alg.startsWith('HS')) return hmacKey(secret);
  const label = pemLabel(alg, secret, 'a PEM private key');
  switch (label) {
    case 'PRIVATE KEY':
      return checked(alg, parse(() => createPrivateKey({ key: secret, format: 'pem' }), alg, 'PKCS#8 private key'));
    case 'RSA PRIVATE KEY':
      if (!isRsa(alg)) throw new InvalidInput(`${alg} needs a PKCS#8 key ('BEGIN PRIVATE KEY'); a PKCS#1 RSA key does not fit this algorithm`);
      return checked(alg, parse(() => createPrivateKey({ key: secret, format: 'pem' }), alg, 'PKCS#1 RSA private key'));
    case 'EC PRIVATE KEY':
      throw sec1Refused(alg);
    case 'ENCRYPTED PRIVATE KEY':
      throw new InvalidInput(`${alg}: encrypted private keys are not accepted (no passphrase is configured); export the key unencrypted as PKCS#8`);
    case 'PUBLIC KEY': case 'RSA PUBLIC KEY': case 'CERTIFICATE':
      throw new InvalidInput(`JwtSign with ${alg} needs a private key; a public key or certificate only verifies`);
    default:
      throw new InvalidInput(`${alg} needs a PEM private key (${isRsa(alg) ? "'BEGIN PRIVATE KEY' or 'BEGIN RSA PRIVATE KEY'" : "PKCS#8, 'BEGIN PRIVATE KEY'"})`);
  }
}

/** The key JwtVerify checks with. */
export function verifyingKey(alg: JwtAlgorithm, secret: string): JwtKey {
  if (alg.startsWith('HS')) return hmacKey(secret);
  const label = pemLabel(alg, secret, 'a PEM public key');
  switch (label) {
    case 'PUBLIC KEY':
      return checked(alg, parse(() => createPublicKey({ key: secret, format: 'pem' }), alg, 'SPKI public key'));
    case 'RSA PUBLIC KEY':
      if (!isRsa(alg)) throw new InvalidInput(`${alg} needs an SPKI public key ('BEGIN PUBLIC KEY'); a PKCS#1 RSA key does not fit this algorithm`);
      return checked(alg, parse(() => createPublicKey({ key: secret, format: 'pem' }), alg, 'PKCS#1 RSA public key'));
    case 'CERTIFICATE':
      return checked(alg, parse(() => new X509Certificate(secret).publicKey, alg, 'X.509 certificate'));
    case 'EC PRIVATE KEY':
      throw sec1Refused(alg);
    case 'PRIVATE KEY': case 'RSA PRIVATE KEY': case 'ENCRYPTED PRIVATE KEY': {
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
  const m = PEM_LABEL.exec(secret);
  if (!m) throw new InvalidInput(`${alg} needs ${wanted} in 'secret' (HS256, HS384 and HS512 take a shared secret)`);
  return m[1]!;
}

function sec1Refused(alg: JwtAlgorithm): InvalidInput {
  return new InvalidInput(`${alg}: SEC1 EC keys ('BEGIN EC PRIVATE KEY') are not accepted; use PKCS#8 ('BEGIN PRIVATE KEY'), e.g. openssl pkcs8 -topk8 -nocrypt -in key.pem`);
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
    if (type !== 'rsa' && !(type === 'rsa-pss' && alg.startsWith('PS'))) throw new InvalidInput(`${alg} needs an RSA key, not ${describe(key)}`);
    const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
    if (bits < MIN_RSA_BITS) throw new InvalidInput(`${alg} needs an RSA key of at least ${MIN_RSA_BITS} bits (this one has ${bits})`);
    return key;
  }
  if (alg === 'EdDSA') {
    if (type !== 'ed25519' && type !== 'ed448') throw new InvalidInput(`EdDSA needs an Ed25519 or Ed448 key, not ${describe(key)}`);
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
