/**
 * The access log (`accessLog: true`): one info line per answered HTTP
 * request, `request completed` with the fields
 *   method, route (the route table's pattern, e.g. /api/find/:collection/:id;
 *   null when no route matched), url (raw path and query, secrets redacted,
 *   cut at 200 characters), status, latencyMs (sub-millisecond), reqId (the
 *   X-Request-Id header of the answer), bytesOut (body bytes) and, for an
 *   error answer, error (its code, never its message: messages may quote input).
 * Latency runs from the request reaching the Dispatcher (its body read) to
 * the answer being ready to write. WebSocket frames are not HTTP requests and
 * are not logged here; the upgrade is.
 */
import type { ServerLog } from './server-log.js';
import { redactUrl } from './redact.js';

/** Longest URL written to the log. */
export const MAX_URL_CHARS = 200;

export interface AccessEntry {
  readonly method: string;
  readonly route: string | undefined;
  readonly url: string;
  readonly status: number;
  /** performance.now() when the request reached the server; undefined when unknown (latencyMs is then null). */
  readonly startedAt: number | undefined;
  readonly requestId: string;
  readonly bytesOut: number;
  /** The error code of an error answer. */
  readonly error?: string;
}

/** Writes the access line of one answered request at info. */
export function logAccess(log: ServerLog, entry: AccessEntry): void {
  const { startedAt } = entry;
  const latencyMs = startedAt === undefined ? null : Math.round((performance.now() - startedAt) * 1000) / 1000;
  log('info', 'request completed', {
    method: entry.method,
    route: entry.route ?? null,
    url: redactUrl(entry.url).slice(0, MAX_URL_CHARS),
    status: entry.status,
    latencyMs,
    reqId: entry.requestId,
    bytesOut: entry.bytesOut,
    ...(entry.error ? { error: entry.error } : {}),
  });
}
