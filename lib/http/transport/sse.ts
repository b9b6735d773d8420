/**
 * Server-sent events at GET /api/subscribe/{c}?filter_field=&filter_value=
 * (protocol.md 2.15): `event: subscribed`, then `event: mutation` per
 * committed change, `event: schema_changed`, and `event: heartbeat` to keep
 * proxies open. Works on raw node objects so fastify and express share it.
 *
 * The stream's credentials are re-checked for its whole life (CredentialWatch):
 * an expired token, a revoked key, or a key that may no longer read the
 * collection ends it with a final `event: error` frame, then the response ends.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { validateCollectionName } from '../../engine/index.js';
import { InvalidInput, NotFound, SlowConsumer, toDbError, type DbError } from '../../errors.js';
import type { Dispatcher } from '../dispatch.js';
import { toJson } from '../codec.js';
import { sseErrorData } from '../error-body.js';
import { Notifier, type Subscriber } from '../notifier.js';
import { checkCollectionAccess } from '../permissions.js';
import type { CredentialWatch, WatchedConnection } from '../credential-watch.js';
import type { Principal } from '../context.js';

export { SSE_PREFIX } from './sse-prefix.js';
import { SSE_PREFIX } from './sse-prefix.js';

export interface SseOptions { heartbeatMs: number; maxQueuedBytes: number; watch: CredentialWatch }

/** The stream's route, as the access log names it. */
const SSE_ROUTE = '/api/subscribe/:collection';

export async function serveSse(req: IncomingMessage, res: ServerResponse, dispatcher: Dispatcher, notifier: Notifier, opts: SseOptions): Promise<void> {
  const startedAt = performance.now();
  const url = new URL(req.url ?? '/', 'http://x');
  let route: string | undefined;
  let sub: Subscriber;
  let principal: Principal;
  try {
    const segment = url.pathname.slice(SSE_PREFIX.length);
    if (segment.includes('/')) throw new NotFound(`No route for GET ${url.pathname}`);
    route = SSE_ROUTE;
    const collection = validateCollectionName(decodeSegment(segment));
    principal = await dispatcher.authenticate(req.headers.authorization, url.searchParams.get('token') ?? undefined);
    checkCollectionAccess(principal, collection, 'read');
    const field = url.searchParams.get('filter_field');
    sub = {
      id: Notifier.newId(), collection,
      ...(field ? { filterField: field, filterValue: url.searchParams.get('filter_value') ?? '' } : {}),
      mutation: (p) => { if (opts.watch.verify(stream)) write('mutation', p); },
      schema: (p) => { if (opts.watch.verify(stream)) write('schema_changed', p); },
    };
  } catch (err) {
    const out = dispatcher.failure(err, { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, route, startedAt });
    res.writeHead(out.status, { ...out.headers, 'Content-Length': String(out.body.length) }).end(out.body);
    return;
  }
  const requestId = randomUUID();
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive', 'X-Accel-Buffering': 'no', 'X-Request-Id': requestId });
  dispatcher.logAnswer({ method: req.method ?? 'GET', url: req.url ?? '/', route: SSE_ROUTE, startedAt }, 200, requestId);
  let open = true;
  const stream: WatchedConnection = {
    grant: principal.grant,
    end: (err) => end(err),
    keyChanged: (p) => {
      try { checkCollectionAccess(p, sub.collection, 'read'); } catch (err) { end(toDbError(err)); }
    },
  };
  /** A final error frame, then the stream ends. */
  function end(err: DbError): void {
    if (!open) return;
    write('error', sseErrorData(err, 'sse'));
    close();
    res.end();
  }
  function write(event: string, data: unknown): void {
    if (!open) return;
    if (res.writableLength > opts.maxQueuedBytes) {
      res.write(`event: error\ndata: ${toJson(sseErrorData(new SlowConsumer('Slow consumer: too much unsent data; closing the stream'), 'sse'))}\n\n`);
      dispatcher.log('warn', `dropped a slow SSE subscriber: more than ${opts.maxQueuedBytes} bytes unsent`, { keyId: principal.keyId, collections: [sub.collection] });
      close();
      res.end();
      return;
    }
    res.write(`event: ${event}\ndata: ${toJson(data)}\n\n`);
  }
  const heartbeat = setInterval(() => write('heartbeat', { timestamp: new Date().toISOString() }), opts.heartbeatMs);
  heartbeat.unref();
  function close(): void {
    if (!open) return;
    open = false;
    clearInterval(heartbeat);
    notifier.remove(sub);
    opts.watch.remove(stream);
  }
  req.on('close', close);
  res.on('close', close);
  write('subscribed', { subscription_id: sub.id, collection: sub.collection });
  opts.watch.add(stream, principal);
  notifier.add(sub);
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new InvalidInput(`Malformed percent-encoding in path segment '${segment.slice(0, 100)}'`);
  }
}
