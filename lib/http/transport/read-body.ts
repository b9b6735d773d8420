/**
 * Reads a request body for the transports that read it themselves (the
 * direct node:http path and the express adapter). Chunks are kept until the
 * limit is passed, so an oversized body still reaches the Dispatcher as
 * oversized (its 413, as fastify's), and the rest is read and dropped.
 */
import type { IncomingMessage } from 'node:http';
import { InvalidInput } from '../../errors.js';

export function readBody(req: IncomingMessage, limit: number, done: (body: Buffer) => void, failed: (err: InvalidInput) => void): void {
  const chunks: Buffer[] = [];
  let kept = 0;
  req.on('data', (c: Buffer) => {
    if (kept > limit) return;
    chunks.push(c);
    kept += c.length;
  });
  // The client reset the connection mid-body: answered as fastify answers it, if anyone is still listening.
  req.on('error', (err) => failed(new InvalidInput(`Request body could not be read: ${err.message}`)));
  req.on('end', () => done(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
}
