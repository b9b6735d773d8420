/**
 * JwtSign (jose): a compact JWS of `claims` (an object; placeholders
 * resolved per record, typed wrappers read as their values) signed with
 * `secret` under the literal `algorithm` (see jwt-keys.ts), header
 * `{alg, typ: "JWT"}`, under `output_field`. `expires_in_secs` adds `iat`
 * (now, from the engine's clock) and `exp` (iat + that many seconds).
 */
import { SignJWT, type JWTPayload } from 'jose';
import { isPlainObject, isTypedWrapper } from '../../../engine/index.js';
import { InvalidInput } from '../../../errors.js';
import { isConstant, isHostileName, type Template } from '../../template.js';
import { writeEach } from '../field-output.js';
import { step } from '../step.js';
import { jwtKey, jwtKeyConfig, type JwtKeyConfig } from './jwt-members.js';

/** Ten years: longer lifetimes are a mistake, not a policy. */
export const MAX_JWT_LIFETIME_SECS = 10 * 366 * 86_400;
const MAX_CLAIMS_DEPTH = 32;

interface JwtSignConfig extends JwtKeyConfig {
  readonly claims: Template;
  readonly output: readonly string[];
  readonly expiresIn?: Template;
}

function lifetime(v: unknown): number {
  const n = isTypedWrapper(v) ? v.value : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_JWT_LIFETIME_SECS) {
    throw new InvalidInput(`'expires_in_secs' must be an integer between 1 and ${MAX_JWT_LIFETIME_SECS}`);
  }
  return n;
}

/** Claims as plain JSON: typed wrappers by their value, exact integers as numbers when safe. */
function claimValue(v: unknown, depth: number): unknown {
  if (depth > MAX_CLAIMS_DEPTH) throw new InvalidInput(`'claims' nested deeper than ${MAX_CLAIMS_DEPTH} levels`);
  if (isTypedWrapper(v)) return claimValue(v.value, depth);
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new InvalidInput("'claims' holds a number JSON cannot carry");
    return v;
  }
  if (typeof v === 'bigint') {
    if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(Number.MIN_SAFE_INTEGER)) return v.toString();
    return Number(v);
  }
  if (Array.isArray(v)) return v.map((item) => claimValue(item, depth + 1));
  if (isPlainObject(v)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(v)) {
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
  compile: (m) => {
    const claims = m.template('claims');
    if (isConstant(claims) && !isPlainObject(claims.v)) m.fail('must be an object of claims', 'claims');
    const expiresIn = m.optionalTemplate('expires_in_secs');
    if (expiresIn && isConstant(expiresIn)) {
      try { lifetime(expiresIn.v); } catch (err) { m.fail((err as Error).message.replace(/^'expires_in_secs' /, ''), 'expires_in_secs'); }
    }
    return { ...jwtKeyConfig(m, 'sign'), claims, output: m.fieldPath('output_field'), ...(expiresIn ? { expiresIn } : {}) };
  },
  run: (cfg, rows, x) => writeEach(rows, cfg.output, async (row) => {
    const claims = claimValue(x.resolve(cfg.claims, row), 0);
    if (!isPlainObject(claims)) throw new InvalidInput("'claims' must resolve to an object");
    const jwt = new SignJWT(claims as JWTPayload).setProtectedHeader({ alg: cfg.algorithm, typ: 'JWT' });
    if (cfg.expiresIn) {
      const iat = Math.floor(x.now() / 1000);
      jwt.setIssuedAt(iat).setExpirationTime(iat + lifetime(x.resolve(cfg.expiresIn, row)));
    }
    try {
      return await jwt.sign(jwtKey(cfg, x, row, 'sign'));
    } catch (err) {
      if (err instanceof InvalidInput) throw err;
      // jose's message names the algorithm or claim at fault, never the key.
      throw new InvalidInput(`JwtSign failed: ${(err as Error).message}`);
    }
  }),
});
