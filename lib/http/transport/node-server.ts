/**
 * The node:http server under fastify (its `serverFactory`). Requests of the
 * API's methods go straight to the Dispatcher, as the express adapter hands
 * requests over: a bodiless GET at once (most reads: find by id, kv get,
 * health), a POST, PUT, PATCH or DELETE once its body is read (bounded by
 * the body limit). Fastify would only add its own routing to our one
 * catch-all route, hooks, body reading and reply machinery, which cost as
 * much CPU per request as a read itself. Every other request (a GET with a
 * body, HEAD, OPTIONS, any other method) goes through fastify's catch-all
 * route. Both paths hand the Dispatcher the same method, raw URL, client
 * headers, body and address, so they answer alike;
 * an open stream goes on as server-sent events, a long answer in chunks.
 * A GET or HEAD outside /api is the browser console's (console/static-files.ts).
 * With TLS credentials it is a node:https server instead: the same handler,
 * timeouts and WebSocket upgrade over TLS on the same port.
 */
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { Dispatcher, HttpRequest, HttpResponse } from '../routing/dispatch.js';
import { readBody } from './read-body.js';
import { closeAfterAnswer } from './close-after-answer.js';
import { serveSse } from './sse.js';
import { sendSoon } from './answer-batch.js';
import { sendStreamed } from './streamed-body.js';
import { defaultConsoleDir, isConsoleRequest, serveConsole } from '../console/index.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A PEM certificate (with its chain) and its private key, as node:tls reads them. */
export interface TlsCredentials {
  readonly cert: string | Buffer;
  readonly key: string | Buffer;
}

/**
 * `opts`: fastify's resolved options, whose timeouts fastify only applies to servers it makes itself. `tls`: serve
 * HTTPS (and WSS) with these credentials; throws what node:tls throws for a bad or mismatched pair.
 */
export function createNodeServer(
  dispatcher: Dispatcher,
  fastifyHandler: Handler,
  opts: Readonly<Record<string, unknown>>,
  tls?: TlsCredentials,
): http.Server {
  const consoleDir = defaultConsoleDir();
  const listener: Handler = (req, res) => {
    if (isConsoleRequest(req.method, req.url, req.headers.accept)) serveConsole(consoleDir, req, res);
    else if (isBodilessGet(req)) serveDirect(dispatcher, req, res, undefined);
    else if (BODY_METHODS.has(req.method!)) serveWithBody(dispatcher, req, res);
    else fastifyHandler(req, res);
  };
  const server = tls ? https.createServer({ cert: tls.cert, key: tls.key }, listener) : http.createServer(listener);
  // What fastify's own server factory sets (lib/server.js getServerInstance), with fastify's defaults.
  server.keepAliveTimeout = numberOr(opts.keepAliveTimeout, 72_000);
  server.requestTimeout = numberOr(opts.requestTimeout, 0);
  server.setTimeout(numberOr(opts.connectionTimeout, 0));
  const perSocket = numberOr(opts.maxRequestsPerSocket, 0);
  if (perSocket > 0) server.maxRequestsPerSocket = perSocket;
  return server;
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' ? value : fallback;
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
const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Reads the body (read-body.ts) up to the route's limit (a small one on a
 * route that needs no token), then serves it. A body over the limit,
 * declared or as it arrives, is answered at once and the connection
 * closed, so nobody streams gigabytes at us; nothing of it is decoded.
 */
function serveWithBody(dispatcher: Dispatcher, req: IncomingMessage, res: ServerResponse): void {
  const limit = dispatcher.bodyLimitFor(req.method!, req.url ?? '/', req.headers.authorization !== undefined);
  readBody(req, limit, {
    done: (body) => serveDirect(dispatcher, req, res, body),
    tooLarge: () => {
      closeAfterAnswer(res);
      answer(dispatcher, req, res, dispatcher.failure(dispatcher.tooLarge(limit), new DirectRequest(req, undefined)));
    },
    failed: (err) => answer(dispatcher, req, res, dispatcher.failure(err, new DirectRequest(req, undefined))),
  });
}

function serveDirect(
  dispatcher: Dispatcher,
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer | undefined,
): void {
  const request = new DirectRequest(req, body);
  let out: HttpResponse | Promise<HttpResponse>;
  try {
    out = dispatcher.respond(request);
  } catch (err) {
    // respond() answers every failure itself; this is a last resort, in the product's format.
    out = dispatcher.failure(err, request);
  }
  // A read answers synchronously: no promise in between.
  if (!(out instanceof Promise)) return answer(dispatcher, req, res, out);
  out.then(
    (o) => answer(dispatcher, req, res, o),
    (err: unknown) => answer(dispatcher, req, res, dispatcher.failure(err, request)),
  );
}

/** A request as the Dispatcher reads it. */
class DirectRequest implements HttpRequest {
  readonly method: string;
  readonly url: string;
  readonly remoteAddress: string | undefined;
  readonly rawHeaders: readonly string[];

  constructor(
    private readonly req: IncomingMessage,
    readonly body: Buffer | undefined,
  ) {
    this.method = req.method!;
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
  if (out.chunks) {
    sendStreamed(res, { ...out, chunks: out.chunks }, dispatcher.log);
    return;
  }
  if (typeof out.body === 'string' || out.body.length > LATIN1_MAX_BYTES) {
    out.headers['Content-Length'] = String(Buffer.byteLength(out.body));
    sendSoon(res, out.status, out.headers, out.body, dispatcher.log);
    return;
  }
  // A small binary answer (a MessagePack record) as latin1 text, one character a byte: node writes its head and a
  // text body in one write, where a Buffer body is a second chunk of a gathered write (about 1 µs a read). A
  // remembered record answer has its text at hand.
  out.headers['Content-Length'] = String(out.body.length);
  const text = out.packed?.latin1 ?? out.body.toString('latin1');
  sendSoon(res, out.status, out.headers, text, dispatcher.log, 'latin1');
}

/** Binary answers up to this size are written as latin1 text (answer). */
const LATIN1_MAX_BYTES = 16 * 1024;
