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

function redactValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactValue);
  if (value === null || typeof value !== 'object') return value;
  const node = value as Record<string, unknown>;
  const secrets = typeof node.type === 'string' ? STEP_TABLE.get(node.type)?.secretMembers : undefined;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(node)) {
    out[key] = secrets?.includes(key) ? redactSecret(member) : redactValue(member);
  }
  return out;
}

/** Literal strings become [redacted], at any depth (a headers object keeps its names). */
function redactSecret(value: unknown): unknown {
  if (typeof value === 'string') return ONLY_PLACEHOLDERS.test(value) ? value : REDACTED;
  if (Array.isArray(value)) return value.map(redactSecret);
  if (value !== null && typeof value === 'object') {
    const node = value as Record<string, unknown>;
    // A Parameter reference names a call parameter, not a value.
    if (node.type === 'Parameter' && typeof node.name === 'string') return value;
    return Object.fromEntries(Object.entries(node).map(([key, member]) => [key, redactSecret(member)]));
  }
  return value;
}
