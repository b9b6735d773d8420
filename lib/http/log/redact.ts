/**
 * Keeps secrets out of the log. Every place that logs a request (the
 * Dispatcher, fastify's framework errors, SSE, the WebSocket upgrade) writes
 * its URL through `redactUrl` and its headers through `redactFields`, which
 * replace the value of any query parameter, header or member whose NAME
 * looks like a secret with `[REDACTED]`.
 *
 * A name is a secret when, lowercased and stripped of `-`, `_`, `.` and
 * spaces, it ends in `key` (key, api_key, x-api-key, openai_api_key), is one
 * of auth, pwd, jwt, sig, or contains token, secret, password, passwd,
 * passphrase, authorization, cookie, credential, signature or sessionid.
 * Values are judged by name only: a secret under an innocent name is not found.
 */

export const REDACTED = '[REDACTED]';

const SECRET_PARTS = [
  'token',
  'secret',
  'password',
  'passwd',
  'passphrase',
  'authorization',
  'cookie',
  'credential',
  'signature',
  'sessionid',
];
const SECRET_NAMES = new Set(['auth', 'pwd', 'jwt', 'sig']);
/** Nesting followed in a body before the rest is cut, so a hostile body cannot make logging expensive. */
const MAX_DEPTH = 8;

/** True when a parameter, header or member of this name holds a secret (see the header for the rule). */
export function isSecretName(name: string): boolean {
  const normalized = name.toLowerCase().replace(/[-_.\s]/g, '');
  return normalized.endsWith('key') || SECRET_NAMES.has(normalized) || SECRET_PARTS.some((p) => normalized.includes(p));
}

/**
 * The URL with the value of every secret-named query parameter replaced by
 * `[REDACTED]`; the path and the other parameters keep their raw encoding.
 */
export function redactUrl(url: string): string {
  const queryAt = url.indexOf('?');
  if (queryAt < 0) return url;
  const pairs = url
    .slice(queryAt + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawName = eq < 0 ? pair : pair.slice(0, eq);
      return isSecretName(decodeName(rawName)) ? `${rawName}=${REDACTED}` : pair;
    });
  return `${url.slice(0, queryAt)}?${pairs.join('&')}`;
}

/**
 * A copy of a header map or a decoded body in which every member with a
 * secret name is `[REDACTED]`, at any depth up to 8 (deeper values become
 * `[…]`). Primitives are returned as they are.
 */
export function redactFields(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[…]';
  if (Array.isArray(value)) return value.map((v) => redactFields(v, depth + 1));
  if (value instanceof Uint8Array) return `[${value.length} bytes]`;
  const out: Record<string, unknown> = Object.create(null);
  for (const [key, member] of Object.entries(value)) {
    out[key] = isSecretName(key) ? REDACTED : redactFields(member, depth + 1);
  }
  return out;
}

function decodeName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}
