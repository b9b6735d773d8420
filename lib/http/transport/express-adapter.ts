/**
 * Mounts EddyDB's routes (the same procedure table and dispatcher as the
 * fastify server) in an existing express app:
 *
 *     app.use(createExpressHandler(server.dispatcher));
 *
 * The handler reads the raw body itself, so it must be mounted before any
 * body-parsing middleware for /api paths. Errors node's HTTP parser raises
 * before express sees a request (malformed headers, oversized headers) are
 * answered in the same format when the app's server also gets
 * `server.on('clientError', createClientErrorHandler(dispatcher))`.
 *
 * The request, response and next types below are the parts of express's that
 * the adapter uses (express's own satisfy them), so neither the build nor a
 * TypeScript consumer of `eddydb/express` needs express or its types.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dispatcher, HttpResponse } from '../routing/dispatch.js';
import { serveSse } from './sse.js';
import { sendStreamed } from './streamed-body.js';
import { readBody } from './read-body.js';
import { closeAfterAnswer } from './close-after-answer.js';
import { defaultConsoleDir, isConsoleRequest, serveConsole } from '../console/index.js';

/** An express request: node's, with the method always set and the URL as it was before any mount path was stripped. */
export interface ExpressRequest extends IncomingMessage {
  method: string;
  originalUrl: string;
}
/** An express response: node's, plus express's chainable status and header setters. */
export interface ExpressResponse extends ServerResponse {
  status(code: number): this;
  set(headers: Record<string, string>): this;
}
/** express's `next`: called with an error, or with nothing to pass the request on. */
export type ExpressNext = (err?: unknown) => void;
/** What `app.use()` takes. */
export type ExpressHandler = (req: ExpressRequest, res: ExpressResponse, next: ExpressNext) => void;

/**
 * An express middleware answering every `/api` request (and passing every
 * other one on with `next()`). Mount it before any body parser.
 */
export function createExpressHandler(dispatcher: Dispatcher): ExpressHandler {
  return (req, res, next) => {
    if (!req.originalUrl.startsWith('/api/') && req.originalUrl !== '/api') {
      next();
      return;
    }
    const reply = (out: HttpResponse) => {
      if (out.stream) serveSse(req, res, { ...out, stream: out.stream }, dispatcher);
      else if (out.chunks) sendStreamed(res, { ...out, chunks: out.chunks }, dispatcher.log);
      else res.status(out.status).set(out.headers).end(out.body);
    };
    const summary = () => ({ method: req.method, url: req.originalUrl, headers: req.headers });
    // A route that needs no token takes a small body, refused before it is read (read-body.ts).
    const limit = dispatcher.bodyLimitFor(req.method, req.originalUrl, req.headers.authorization !== undefined);
    readBody(req, limit, {
      done: (body) => {
        dispatcher
          .handle({
            method: req.method,
            url: req.originalUrl,
            headers: req.headers,
            body,
            remoteAddress: req.socket.remoteAddress,
            rawHeaders: req.rawHeaders,
          })
          .then(reply)
          .catch(next);
      },
      tooLarge: () => {
        closeAfterAnswer(res);
        reply(dispatcher.failure(dispatcher.tooLarge(limit), summary()));
      },
      failed: (err) => reply(dispatcher.failure(err, summary())),
    });
  };
}

/**
 * An express middleware serving the browser console (dist/console) for the requests it owns: GET and HEAD outside
 * /api and /metrics from a client asking for a page or an asset. The console's links are absolute, so it must be
 * mounted at the app's root, after the app's own routes (an unknown path from a browser gets the console's page).
 * Everything else passes on with `next()`.
 */
export function createConsoleHandler(dir = defaultConsoleDir()): ExpressHandler {
  return (req, res, next) => {
    if (isConsoleRequest(req.method, req.originalUrl, req.headers.accept)) serveConsole(dir, req, res);
    else next();
  };
}
