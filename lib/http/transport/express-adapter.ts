/**
 * Mounts EddyDB's routes (the same procedure table and dispatcher as the
 * fastify server) in an existing express app:
 *
 *     app.use(createExpressHandler(server.dispatcher));
 *
 * The handler reads the raw body itself, so it must be mounted before any
 * body-parsing middleware for /api paths.
 */
import type { NextFunction, Request, Response } from 'express';
import type { Dispatcher } from '../dispatch.js';

export function createExpressHandler(dispatcher: Dispatcher) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!req.originalUrl.startsWith('/api/') && req.originalUrl !== '/api') { next(); return; }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= dispatcher.bodyLimit + 1) chunks.push(c);
    });
    req.on('error', next);
    req.on('end', () => {
      dispatcher.handle({ method: req.method, url: req.originalUrl, headers: req.headers, body: Buffer.concat(chunks) })
        .then((out) => { res.status(out.status).set(out.headers).end(out.body); })
        .catch(next);
    });
  };
}
