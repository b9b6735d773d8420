/**
 * How a failed request reaches the log, the same from every transport
 * (Dispatcher, fastify's framework errors, SSE, the WebSocket upgrade and
 * its frames): a 5xx at `error` level with the thrown error (its stack and
 * causes) and the request's headers (except a write refused while read-only,
 * which storage-log.ts counts), a 4xx as `METHOD URL -> status` at the level
 * the caller gives: `debug` by default, so a scan of wrong URLs is silent at
 * the default level, `info` with the access log on. Both name the request
 * (`reqId`). URLs and headers pass through the redaction of redact.ts first;
 * bodies are never logged.
 */
import { ReadOnlyRefusal, Starting, toDbError } from '../../errors.js';
import type { LogLevel, ServerLog } from './server-log.js';
import { redactFields, redactUrl } from './redact.js';
import { MAX_URL_CHARS } from './access-log.js';

/** What the log says about a request. */
export interface RequestSummary {
  readonly method: string;
  /** Raw path and query. */
  readonly url: string;
  readonly headers?: Readonly<Record<string, string | string[] | undefined>>;
  /** The route table's pattern, when the path matched one (access log). */
  readonly route?: string;
  /** performance.now() when the request reached the server, when known (access log latency). */
  readonly startedAt?: number;
}

/** Longest header value written to the log. */
const MAX_HEADER_CHARS = 100;

/**
 * Logs one failed request, classified by the error's code (its status in the
 * table of lib/errors.ts): a server fault (5xx) at `error` with `err` as the
 * cause, a client error (or a request made while the server starts) at
 * `clientErrorLevel`.
 */
export function logFailedRequest(
  log: ServerLog,
  err: unknown,
  requestId: string,
  req: RequestSummary,
  clientErrorLevel: LogLevel = 'debug',
): void {
  const line = `${req.method} ${redactUrl(req.url).slice(0, MAX_URL_CHARS)}`;
  const status = toDbError(err).status;
  // A request made while the server starts is answered with a Retry-After, as expected as a client's mistake.
  if (status < 500 || err instanceof Starting) {
    log(clientErrorLevel, `${line} -> ${status}`, undefined, requestId);
    return;
  }
  // A write refused while read-only is expected: StorageHealth logs the cause once and a periodic count instead.
  if (err instanceof ReadOnlyRefusal) return;
  const headers = req.headers ? ` headers ${JSON.stringify(shortened(redactFields(req.headers)))}` : '';
  log('error', `${line} failed with ${status} (request ${requestId})${headers}`, err, requestId);
}

function shortened(headers: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
    out[name] =
      typeof value === 'string' && value.length > MAX_HEADER_CHARS ? value.slice(0, MAX_HEADER_CHARS) + '...' : value;
  }
  return out;
}
