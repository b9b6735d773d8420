/**
 * A definition as a caller who is not an admin sees it: the members a step
 * type declares as key material (`secretMembers`: a JWT secret, an AES key,
 * an API key, request headers) are `[redacted]` wherever they hold a literal,
 * in nested step lists too. A value that is only `{{env.NAME}}` or a
 * `{{param}}` placeholder reveals nothing and is kept. Admins, who save
 * definitions, read them back exactly as saved.
 */
import { STEP_TABLE } from '../steps/index.js';

export const REDACTED = '[redacted]';

const ONLY_PLACEHOLDERS = /^(\s*\{\{[^{}]+\}\}\s*)+$/;

export function redactDefinition(definition: Record<string, unknown>): Record<string, unknown> {
  return redactValue(definition) as Record<string, unknown>;
}

function redactValue(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(redactValue);
  if (v === null || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  const secrets = typeof o.type === 'string' ? STEP_TABLE.get(o.type)?.secretMembers : undefined;
  const out: Record<string, unknown> = {};
  for (const [k, member] of Object.entries(o)) {
    out[k] = secrets?.includes(k) ? redactSecret(member) : redactValue(member);
  }
  return out;
}

/** Literal strings become [redacted], at any depth (a headers object keeps its names). */
function redactSecret(v: unknown): unknown {
  if (typeof v === 'string') return ONLY_PLACEHOLDERS.test(v) ? v : REDACTED;
  if (Array.isArray(v)) return v.map(redactSecret);
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    // A Parameter reference names a call parameter, not a value.
    if (o.type === 'Parameter' && typeof o.name === 'string') return v;
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, redactSecret(x)]));
  }
  return v;
}
