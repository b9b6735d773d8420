/** The console's HTTP client: JSON to /api with the tab's token, errors carrying the server's message and request id. */
import { navigate } from './router.js';

const TOKEN_KEY = 'eddydb.token';

export function getToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function setToken(token: string | null): void {
  if (token === null) sessionStorage.removeItem(TOKEN_KEY);
  else sessionStorage.setItem(TOKEN_KEY, token);
}

/** A failed request: the server's message, its status and the request id to look up in the server's log. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly requestId: string | undefined,
    /** The body's `details`: for a schema violation, `[{field, constraint, message, ...}]`. */
    readonly details?: unknown,
  ) {
    super(message);
  }
}

interface ErrorBody {
  error?: unknown;
  message?: unknown;
  request_id?: unknown;
  details?: unknown;
}

/**
 * The server's complaint about a write or a schema, by field: the violations in `details` (`[{field, message}]`)
 * and a message that starts `Field 'name': ...` (how the schema parser names the field it refuses). Empty when the
 * error names no field.
 */
export function fieldErrors(err: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!(err instanceof ApiError)) return out;
  if (Array.isArray(err.details)) {
    for (const d of err.details as { field?: unknown; message?: unknown }[]) {
      if (typeof d?.field === 'string' && typeof d.message === 'string')
        out[d.field] = out[d.field] ? `${out[d.field]}; ${d.message}` : d.message;
    }
  }
  const named = /^Field '([^']+)'/.exec(err.message);
  if (named && !out[named[1]!]) out[named[1]!] = err.message;
  return out;
}

/** A token the server no longer accepts (expired, or its key revoked): forget it and show the sign-in. */
function signedOut(): void {
  setToken(null);
  if (location.pathname !== '/sign-in')
    navigate(`/sign-in?next=${encodeURIComponent(location.pathname + location.search)}`, true);
}

/** Calls the API; a 401 forgets the token, so the next page shown is the sign-in. */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (err) {
    throw new ApiError(`The server did not answer (${(err as Error).message})`, 0, undefined);
  }
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!res.ok) {
    const e = (parsed ?? {}) as ErrorBody;
    const message = typeof e.error === 'string' ? e.error : typeof e.message === 'string' ? e.message : res.statusText;
    const requestId = typeof e.request_id === 'string' ? e.request_id : (res.headers.get('X-Request-Id') ?? undefined);
    if (res.status === 401 && path !== '/api/auth/token') signedOut();
    throw new ApiError(message, res.status, requestId, e.details);
  }
  return parsed as T;
}

/** GET /metrics with the tab's token, as text (an admin's only: another key gets a 403). */
export async function fetchMetricsText(): Promise<string> {
  const token = getToken();
  const res = await fetch('/metrics', { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  const text = await res.text();
  if (res.status === 401) signedOut();
  if (!res.ok)
    throw new ApiError(`GET /metrics answered ${res.status}`, res.status, res.headers.get('X-Request-Id') ?? undefined);
  return text;
}

export const enc = encodeURIComponent;
