/**
 * How a failed request reaches the log, the same from every transport
 * (Dispatcher, fastify's framework errors, SSE, the WebSocket upgrade and
 * its frames): a 5xx at `error` level with the thrown error (its stack and
 * causes) and the request's headers (except a write refused while read-only,
 * which storage-log.ts counts), a 4xx at `info` as `METHOD URL -> status`.
 * URLs and headers pass through the redaction of redact.ts first; bodies are
 * never logged.
 */
import { ReadOnlyRefusal } from '../errors.js';
import type { Services } from './context.js';
import { redactFields, redactUrl } from './redact.js';

/** What the log says about a request. */
export interface RequestSummary {
  readonly method: string;
  /** Raw path and query. */
  readonly url: string;
  readonly headers?: Readonly<Record<string, string | string[] | undefined>>;
}

/** Longest URL and header value written to the log. */
const MAX_URL_CHARS = 200;
const MAX_HEADER_CHARS = 100;

/** Logs one failed request: `error` with `err` as the cause for status >= 500, `info` otherwise. */
export function logFailedRequest(log: Services['log'], status: number, err: unknown, requestId: string, req: RequestSummary): void {
  const line = `${req.method} ${redactUrl(req.url).slice(0, MAX_URL_CHARS)}`;
  if (status < 500) {
    log('info', `${line} -> ${status}`);
    return;
  }
  // A write refused while read-only is expected: StorageHealth logs the cause once and a periodic count instead.
  if (err instanceof ReadOnlyRefusal) return;
  const headers = req.headers ? ` headers ${JSON.stringify(shortened(redactFields(req.headers)))}` : '';
  log('error', `${line} failed with ${status} (request ${requestId})${headers}`, err);
}

function shortened(headers: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(headers as Record<string, unknown>)) {
    out[k] = typeof v === 'string' && v.length > MAX_HEADER_CHARS ? v.slice(0, MAX_HEADER_CHARS) + '...' : v;
  }
  return out;
}
