/**
 * The fastify transport: every request under /api goes to one catch-all
 * route that hands the raw body to the Dispatcher. Bodies are read as
 * buffers for every content type (JSON and MessagePack are decoded by the
 * dispatcher), and DELETE bodies are kept. A path fastify cannot decode
 * (bad percent-encoding) is handed to the Dispatcher too, whose router
 * answers it exactly as the express adapter does.
 */
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import type { Dispatcher } from '../dispatch.js';
import { serveSse } from './sse.js';
import { renderError } from '../error-body.js';
import { PayloadTooLarge, InvalidInput } from '../../errors.js';
import { toJson } from '../codec.js';

export function createFastify(dispatcher: Dispatcher): FastifyInstance {
  const app = Fastify({
    logger: false,
    bodyLimit: dispatcher.bodyLimit,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 4096 },
    return503OnClosing: true,
    forceCloseConnections: true,
    // Why the body is not needed: the router rejects a path with an undecodable segment before reading it.
    frameworkErrors: (err, req, res) => {
      const reply = res as unknown as FastifyReply;
      if (err.code !== 'FST_ERR_BAD_URL') {
        const r = renderError(new InvalidInput(err.message), String(req.id));
        void reply.status(r.status).headers(r.headers).type('application/json; charset=utf-8').send(toJson(r.body));
        return;
      }
      void dispatcher.handle({ method: req.method, url: req.raw.url ?? req.url, headers: req.headers })
        .then((out) => reply.status(out.status).headers(out.headers).send(out.body));
    },
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  app.setErrorHandler((err, _req, reply) => {
    const code = (err as { code?: string }).code;
    const mapped = code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? new PayloadTooLarge(`Request body exceeds ${dispatcher.bodyLimit} bytes`)
      : (err as { statusCode?: number }).statusCode === 400 ? new InvalidInput((err as Error).message) : err;
    const r = renderError(mapped, String(_req.id));
    void reply.status(r.status).headers(r.headers).type('application/json; charset=utf-8').send(toJson(r.body));
  });
  app.route({
    method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    url: '/*',
    handler: async (req, reply) => {
      const url = req.raw.url ?? req.url;
      if (dispatcher.isSse(req.method, url)) {
        reply.hijack();
        const s = dispatcher.streams!;
        await serveSse(req.raw, reply.raw, dispatcher, s.notifier, s);
        return reply;
      }
      const res = await dispatcher.handle({
        method: req.method, url: req.raw.url ?? req.url, headers: req.headers, body: req.body as Buffer | undefined,
      });
      void reply.status(res.status).headers(res.headers);
      return reply.send(res.body);
    },
  });
  return app;
}
