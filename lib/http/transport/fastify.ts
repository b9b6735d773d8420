/**
 * The fastify transport: a bodiless GET and a POST, PUT, PATCH or DELETE go
 * from the node:http server straight to the Dispatcher (node-server.ts,
 * fastify's server factory); every other request goes to one catch-all route (or to
 * the not-found handler, for methods the route does not list), which hands
 * the raw body to the Dispatcher. Bodies are read as buffers and DELETE
 * bodies are kept. Fastify never judges the Content-Type: an onRequest hook
 * sets the client's value aside, so fastify reads every body as bytes, and
 * the Dispatcher decides (content-type.ts), exactly as behind the express
 * adapter. A path fastify cannot decode (bad percent-encoding) goes to the
 * Dispatcher too, whose router answers it as the express adapter does.
 * A preParsing hook holds a route that needs no token to the small body
 * limit (Dispatcher.bodyLimitFor) before fastify reads the body.
 * Every other error fastify or node's HTTP parser raises is mapped by
 * framework-errors.ts, then answered and logged by `Dispatcher.failure`.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { Transform, type Readable } from 'node:stream';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Dispatcher, HttpResponse } from '../routing/dispatch.js';
import type { RequestSummary } from '../log/request-log.js';
import { serveSse } from './sse.js';
import { sendStreamed } from './streamed-body.js';
import { fromFrameworkError } from './framework-errors.js';
import { createClientErrorHandler } from './socket-response.js';
import { createNodeServer, type TlsCredentials } from './node-server.js';
import { closeAfterAnswer } from './close-after-answer.js';

const CLIENT_CONTENT_TYPE = Symbol('client content-type');
type RawRequest = IncomingMessage & { [CLIENT_CONTENT_TYPE]?: string | undefined };
/** A type fastify's catch-all parser reads as bytes, shown to fastify instead of the client's. */
const NEUTRAL_CONTENT_TYPE = 'application/octet-stream';

/** The compiler factory of a server that declares no schemas: asking for a compiler is a bug. */
function noSchemas(): () => never {
  return () => {
    throw new Error('EddyDB declares no fastify schemas');
  };
}

/** `tls`: serve HTTPS with these credentials (node-server.ts). */
export function createFastify(dispatcher: Dispatcher, tls?: TlsCredentials): FastifyInstance {
  const app = Fastify({
    logger: false,
    bodyLimit: dispatcher.bodyLimit,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 4096 },
    // Fastify's own 503 body is not in our format; a request that arrives while closing is served (the engine closes
    // after fastify).
    return503OnClosing: false,
    // No route declares a schema (the Dispatcher reads every body), so fastify's schema compilers (ajv and
    // fast-json-stringify) are never used: not loading them takes tens of milliseconds off a process's first start.
    schemaController: { compilersFactory: { buildValidator: noSchemas, buildSerializer: noSchemas } },
    forceCloseConnections: true,
    clientErrorHandler: createClientErrorHandler(dispatcher),
    // Bodiless GETs skip fastify and go straight to the Dispatcher (node-server.ts).
    serverFactory: (handler, opts) => createNodeServer(dispatcher, handler, opts, tls),
    // A bad URL is served without its body: our router (or SSE) rejects an undecodable segment before reading it.
    frameworkErrors: (err, req, res) => {
      const reply = res as unknown as FastifyReply;
      if (err.code === 'FST_ERR_BAD_URL') void serve(dispatcher, req, reply);
      else send(reply, dispatcher.failure(fromFrameworkError(err, dispatcher.bodyLimit), summary(req, reply)));
    },
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  // Fastify answers an empty or unparsable Content-Type with its own 415 before routing; the Dispatcher decides
  // instead.
  app.addHook('onRequest', (req, _reply, done) => {
    const raw = req.raw as RawRequest;
    raw[CLIENT_CONTENT_TYPE] = raw.headers['content-type'];
    raw.headers['content-type'] = NEUTRAL_CONTENT_TYPE;
    done();
  });
  app.addHook('preParsing', (req, reply, payload, done) => {
    const limit = dispatcher.bodyLimitFor(req.method, req.raw.url ?? req.url, req.headers.authorization !== undefined);
    if (limit >= dispatcher.bodyLimit) {
      done(null, payload);
      return;
    }
    // A route that needs no token takes a small body: refused when declared larger, else as the bytes pass it,
    // and the connection closed after the answer, so that the rest is never kept.
    const refuse = () => {
      closeAfterAnswer(reply.raw);
      return dispatcher.tooLarge(limit);
    };
    if (Number(req.headers['content-length']) > limit) {
      done(refuse());
      return;
    }
    done(null, cappedBody(payload, limit, refuse));
  });
  app.setErrorHandler((err, req, reply) => {
    send(reply, dispatcher.failure(fromFrameworkError(err, dispatcher.bodyLimit), summary(req, reply)));
  });
  const handler = (req: FastifyRequest, reply: FastifyReply) => serve(dispatcher, req, reply);
  app.route({ method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'], url: '/*', handler });
  app.setNotFoundHandler(handler);
  return app;
}

/**
 * `payload` passed on until more than `limit` bytes arrive, then failed with
 * `tooLarge()`, which fastify answers; the rest of the body is dropped as it
 * arrives, until the connection closes (close-after-answer.ts).
 */
function cappedBody(payload: Readable, limit: number, tooLarge: () => Error): Readable {
  let seen = 0;
  const capped = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen <= limit) {
        callback(null, chunk);
        return;
      }
      payload.unpipe(capped);
      payload.resume();
      callback(tooLarge());
    },
  });
  // The client reset the connection mid-body: fastify answers the stream's error.
  payload.on('error', (err) => capped.destroy(err));
  return payload.pipe(capped);
}

/** Hands one request to the Dispatcher; an open stream goes on as server-sent events. */
async function serve(dispatcher: Dispatcher, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const { method, url, headers } = summary(req);
  const res = await dispatcher.handle({
    method,
    url,
    headers,
    body: req.body as Buffer | undefined,
    remoteAddress: req.raw.socket?.remoteAddress,
    rawHeaders: req.raw.rawHeaders,
  });
  if (res.stream) {
    reply.hijack();
    serveSse(req.raw, reply.raw, { ...res, stream: res.stream }, dispatcher);
    return reply;
  }
  if (res.chunks) {
    reply.hijack();
    sendStreamed(reply.raw, { ...res, chunks: res.chunks }, dispatcher.log);
    return reply;
  }
  void reply.status(res.status).headers(res.headers);
  return reply.send(res.body);
}

function send(reply: FastifyReply, res: HttpResponse): void {
  void reply.status(res.status).headers(res.headers).send(res.body);
}

/**
 * The request as the client sent it: raw URL and headers, with its own
 * Content-Type put back; with the reply, also when it arrived (fastify's own
 * clock, for the access log's latency of an answer fastify cut short).
 */
function summary(req: FastifyRequest, reply?: FastifyReply): RequestSummary & { headers: IncomingHttpHeaders } {
  const startedAt = reply ? performance.now() - reply.elapsedTime : undefined;
  return { method: req.method, url: req.raw.url ?? req.url, headers: clientHeaders(req.raw as RawRequest), startedAt };
}

function clientHeaders(raw: RawRequest): IncomingHttpHeaders {
  if (CLIENT_CONTENT_TYPE in raw) {
    const type = raw[CLIENT_CONTENT_TYPE];
    if (type === undefined) delete raw.headers['content-type'];
    else raw.headers['content-type'] = type;
    delete raw[CLIENT_CONTENT_TYPE];
  }
  return raw.headers;
}
