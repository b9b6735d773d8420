/**
 * The node:http server under fastify (its `serverFactory`). A GET without a
 * body (most reads: find by id, kv get, health) goes straight to the
 * Dispatcher, as the express adapter hands requests over: fastify would only
 * add its own routing to our one catch-all route, hooks and reply machinery,
 * which cost as much CPU per read as the read itself. Every other request
 * (anything with a body, any other method) is fastify's, exactly as before.
 * Both paths hand the Dispatcher the same method, raw URL, client headers and
 * address, so they answer alike; an open stream goes on as server-sent events.
 */
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Dispatcher, HttpRequest, HttpResponse } from '../dispatch.js';
import { serveSse } from './sse.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** `opts`: fastify's resolved options, whose timeouts fastify only applies to servers it makes itself. */
export function createNodeServer(dispatcher: Dispatcher, fastifyHandler: Handler, opts: Readonly<Record<string, unknown>>): http.Server {
  const server = http.createServer((req, res) => {
    if (isBodilessGet(req)) serveDirect(dispatcher, req, res);
    else fastifyHandler(req, res);
  });
  // What fastify's own server factory sets (lib/server.js getServerInstance), with fastify's defaults.
  server.keepAliveTimeout = numberOr(opts.keepAliveTimeout, 72_000);
  server.requestTimeout = numberOr(opts.requestTimeout, 0);
  server.setTimeout(numberOr(opts.connectionTimeout, 0));
  const perSocket = numberOr(opts.maxRequestsPerSocket, 0);
  if (perSocket > 0) server.maxRequestsPerSocket = perSocket;
  return server;
}

function numberOr(v: unknown, fallback: number): number {
  return typeof v === 'number' ? v : fallback;
}

/**
 * A GET whose framing says it has no body (no Content-Length, no
 * Transfer-Encoding). Read from the raw list: node builds `req.headers` on
 * first use, and the Dispatcher does not need it.
 */
function isBodilessGet(req: IncomingMessage): boolean {
  if (req.method !== 'GET') return false;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    if ((name.length === 14 || name.length === 17) && BODY_FRAMING.has(name.toLowerCase())) return false;
  }
  return true;
}

const BODY_FRAMING: ReadonlySet<string> = new Set(['content-length', 'transfer-encoding']);

function serveDirect(dispatcher: Dispatcher, req: IncomingMessage, res: ServerResponse): void {
  const request = new DirectRequest(req);
  dispatcher.handle(request).then(
    (out) => answer(dispatcher, req, res, out),
    // handle() answers every failure itself; this is a last resort, in the product's format.
    (err: unknown) => answer(dispatcher, req, res, dispatcher.failure(err, request)),
  );
}

/** A bodiless GET as the Dispatcher reads it. */
class DirectRequest implements HttpRequest {
  readonly method = 'GET';
  readonly url: string;
  readonly remoteAddress: string | undefined;
  readonly rawHeaders: readonly string[];

  constructor(private readonly req: IncomingMessage) {
    this.url = req.url ?? '/';
    this.remoteAddress = req.socket.remoteAddress;
    this.rawHeaders = req.rawHeaders;
  }

  /** Node builds this object on first use: read on failure paths only (the Dispatcher reads `rawHeaders`). */
  get headers(): IncomingHttpHeaders {
    return this.req.headers;
  }
}

function answer(dispatcher: Dispatcher, req: IncomingMessage, res: ServerResponse, out: HttpResponse): void {
  if (out.stream) {
    serveSse(req, res, { ...out, stream: out.stream }, dispatcher);
    return;
  }
  out.headers['Content-Length'] = String(Buffer.byteLength(out.body));
  res.writeHead(out.status, out.headers);
  res.end(out.body);
}
