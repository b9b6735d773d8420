/**
 * Reads a request body for the transports that read it themselves (the
 * direct node:http path and the express adapter), up to a limit the caller
 * chose for the route (Dispatcher.bodyLimitFor). A body over it is refused
 * at once: when the Content-Length declares it, before a byte is read, else
 * as soon as the bytes received pass it; what was kept is dropped and the
 * rest is dropped as it arrives. The caller answers 413 and closes the
 * connection (close-after-answer.ts).
 */
import type { IncomingMessage } from 'node:http';
import { InvalidInput } from '../../errors.js';

export interface BodyReader {
  /** The whole body, at most the limit. */
  done(body: Buffer): void;
  /** The body passes the limit (declared or received); called once, and nothing else is then called. */
  tooLarge(): void;
  /** The client reset the connection mid-body. */
  failed(err: InvalidInput): void;
}

export function readBody(req: IncomingMessage, limit: number, on: BodyReader): void {
  if (Number(req.headers['content-length']) > limit) {
    refuse(req, on);
    return;
  }
  let chunks: Buffer[] = [];
  let kept = 0;
  const onData = (chunk: Buffer) => {
    kept += chunk.length;
    if (kept <= limit) {
      chunks.push(chunk);
      return;
    }
    chunks = [];
    req.off('data', onData);
    req.off('end', onEnd);
    refuse(req, on);
  };
  const onEnd = () => on.done(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
  req.on('data', onData);
  req.on('end', onEnd);
  // Answered as fastify answers it, if anyone is still listening (not after a refusal: that answer is on its way).
  req.on('error', (err) => {
    if (kept <= limit) on.failed(new InvalidInput(`Request body could not be read: ${err.message}`));
  });
}

/** Drops whatever else arrives, until the caller's answer closes the connection. */
function refuse(req: IncomingMessage, on: BodyReader): void {
  req.resume();
  on.tooLarge();
}
