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
import { serveSse } from './sse.js';

export function createExpressHandler(dispatcher: Dispatcher) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!req.originalUrl.startsWith('/api/') && req.originalUrl !== '/api') { next(); return; }
    if (dispatcher.isSse(req.method, req.originalUrl)) {
      const s = dispatcher.streams!;
      req.url = req.originalUrl;
      serveSse(req, res, dispatcher, s.notifier, s).catch(next);
      return;
    }
    const chunks: Buffer[] = [];
    let kept = 0;
    // Keep chunks until the limit is passed, so an oversized body still reaches the dispatcher as oversized.
    req.on('data', (c: Buffer) => {
      if (kept > dispatcher.bodyLimit) return;
      chunks.push(c);
      kept += c.length;
    });
    req.on('error', next);
    req.on('end', () => {
      dispatcher.handle({ method: req.method, url: req.originalUrl, headers: req.headers, body: Buffer.concat(chunks) })
        .then((out) => { res.status(out.status).set(out.headers).end(out.body); })
        .catch(next);
    });
  };
}
