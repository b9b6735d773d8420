/**
 * JwtVerify (jose): the token in the field named by `token_field` (a
 * parameter or a record field; a `Bearer ` prefix is ignored) checked with
 * `secret` under the literal `algorithm` only (a token claiming any other
 * `alg`, `none` included, fails), its `exp` and `nbf` against the engine's
 * clock. The claims go under `output_field`; any failure (missing or
 * malformed token, bad signature, expired, wrong algorithm) gives null,
 * not an error. A key that does not fit the algorithm fails the step.
 */
import { jwtVerify } from 'jose';
import { isTypedWrapper, type Value } from '../../../engine/index.js';
import { isHostileName } from '../../template.js';
import { writeEach } from '../field-output.js';
import { step } from '../step.js';
import { jwtKey, jwtKeyConfig, type JwtKeyConfig } from './jwt-members.js';

const MAX_TOKEN_LENGTH = 64 * 1024;
const MAX_CLAIMS_DEPTH = 32;

interface JwtVerifyConfig extends JwtKeyConfig {
  readonly tokenField: readonly string[];
  readonly output: readonly string[];
}

function tokenText(v: unknown): string | undefined {
  const raw = isTypedWrapper(v) ? v.value : v;
  if (typeof raw !== 'string') return undefined;
  const token = raw.startsWith('Bearer ') ? raw.slice(7).trim() : raw.trim();
  return token === '' || token.length > MAX_TOKEN_LENGTH ? undefined : token;
}

/** Decoded claims as a stored value; undefined (so null claims) for a hostile member name or over-deep nesting. */
function claimsValue(v: unknown, depth: number): Value | undefined {
  if (depth > MAX_CLAIMS_DEPTH) return undefined;
  if (v === null || typeof v === 'string' || typeof v === 'boolean' || typeof v === 'number') return v;
  if (Array.isArray(v)) {
    const items = v.map((item) => claimsValue(item, depth + 1));
    return items.includes(undefined) ? undefined : Object.freeze(items as Value[]);
  }
  if (typeof v === 'object') {
    const out: Record<string, Value> = {};
    for (const [key, item] of Object.entries(v as Record<string, unknown>)) {
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
  compile: (m) => ({ ...jwtKeyConfig(m, 'verify'), tokenField: m.fieldPath('token_field'), output: m.fieldPath('output_field') }),
  run: (cfg, rows, x) => writeEach(rows, cfg.output, async (row) => {
    const key = jwtKey(cfg, x, row, 'verify');
    const hit = x.scope(row).lookup(cfg.tokenField);
    const token = hit.found ? tokenText(hit.value) : undefined;
    if (token === undefined) return null;
    try {
      const { payload } = await jwtVerify(token, key, { algorithms: [cfg.algorithm], currentDate: new Date(x.now()) });
      return claimsValue(payload, 0) ?? null;
    } catch {
      return null;
    }
  }),
});
