/**
 * The members JwtSign and JwtVerify share: `algorithm` (a literal of the
 * table, HS256 by default, `none` refused) and `secret` (a literal or
 * exactly `{{env.NAME}}`). A literal secret is parsed at save, so a bad key
 * is a 400 then; an environment secret is parsed at each call.
 */
import { InvalidInput } from '../../../errors.js';
import type { Template } from '../../template.js';
import type { Execution, MemberReader, Row } from '../step.js';
import { isJwtAlgorithm, JWT_ALGORITHMS, signingKey, verifyingKey, type JwtAlgorithm, type JwtKey } from './jwt-keys.js';
import { secretText, strictSecret } from './secret-member.js';

export interface JwtKeyConfig {
  readonly algorithm: JwtAlgorithm;
  readonly secret: Template;
  /** The parsed key when `secret` is a literal. */
  readonly key?: JwtKey;
}

export function jwtAlgorithm(m: MemberReader): JwtAlgorithm {
  const raw = m.raw('algorithm');
  if (raw === undefined || raw === null) return 'HS256';
  if (typeof raw !== 'string') m.fail('must be a literal string (no parameter or env substitution)', 'algorithm');
  if (raw.includes('{{')) m.fail('must be a literal (no parameter or env substitution)', 'algorithm');
  if (raw.trim().toLowerCase() === 'none') m.fail("'none' is rejected: tokens must be signed", 'algorithm');
  if (!isJwtAlgorithm(raw)) m.fail(`must be one of ${JWT_ALGORITHMS.join(', ')}`, 'algorithm');
  return raw;
}

export function jwtKeyConfig(m: MemberReader, purpose: 'sign' | 'verify'): JwtKeyConfig {
  const algorithm = jwtAlgorithm(m);
  const secret = strictSecret(m, 'secret');
  if (secret.k !== 'const') return { algorithm, secret };
  try {
    return { algorithm, secret, key: readKey(algorithm, secret.v as string, purpose) };
  } catch (err) {
    if (err instanceof InvalidInput) m.fail(err.message, 'secret');
    throw err;
  }
}

/** The key for this call: parsed at save, or read from the environment now. */
export function jwtKey(cfg: JwtKeyConfig, x: Execution, row: Row | undefined, purpose: 'sign' | 'verify'): JwtKey {
  return cfg.key ?? readKey(cfg.algorithm, secretText(x, cfg.secret, row, 'secret'), purpose);
}

function readKey(alg: JwtAlgorithm, secret: string, purpose: 'sign' | 'verify'): JwtKey {
  return purpose === 'sign' ? signingKey(alg, secret) : verifyingKey(alg, secret);
}
