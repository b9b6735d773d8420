/**
 * Answers written together, once per turn of the event loop. Node's HTTP
 * server parses every request that arrived in one poll phase before the
 * check phase runs, so the answers computed meanwhile go out back to back
 * in `setImmediate`, rather than one write between each parse (bench
 * http-read measures the server CPU a read saves). Each socket write that
 * finds the client asleep pays its wake-up; writes in a burst find it
 * awake. An answer waits at most for the rest of the current loop turn, and
 * the order on one connection is node's (it queues a pipelined request's
 * answer behind the one before). While long work runs in slices (a
 * 10,000-record batch), the answers are written as the next slice starts,
 * not after it (engine/time/slices.ts).
 */
import type { ServerResponse } from 'node:http';
import type { ServerLog } from '../log/server-log.js';
import { beforeLongWorkResumes } from '../../engine/index.js';

interface Unsent {
  res: ServerResponse;
  status: number;
  headers: Record<string, string>;
  body: Buffer | string;
  log: ServerLog;
  /** How a string body becomes bytes: utf8, or latin1 for binary held one byte a character. */
  encoding: BufferEncoding;
}

let unsent: Unsent[] = [];

/** Queues an answer for this turn's burst. */
export function sendSoon(
  res: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: Buffer | string,
  log: ServerLog,
  encoding: BufferEncoding = 'utf8',
): void {
  if (unsent.length === 0) setImmediate(sendAll);
  unsent.push({ res, status, headers, body, log, encoding });
}

beforeLongWorkResumes(sendAll);

function sendAll(): void {
  if (unsent.length === 0) return;
  const batch = unsent;
  unsent = [];
  for (const answer of batch) {
    try {
      answer.res.writeHead(answer.status, answer.headers);
      writeWhole(answer.res, answer.body, answer.encoding);
    } catch (err) {
      // A head node refuses (a header value it will not write) ends that connection, not the others in the burst.
      const requestId = answer.headers['X-Request-Id'] ?? '?';
      answer.log(
        'error',
        `could not write the answer to request ${requestId}; its connection is closed`,
        err,
        requestId,
      );
      answer.res.destroy();
    }
  }
}

/**
 * Writes a response's head and whole body, then ends it, in one socket
 * write. `res.end(body)` corks the socket, queues the head with the body,
 * then an empty chunk (the end's marker), so every answer went out as a
 * gathered write of two chunks: an array of chunks built in JavaScript, a
 * copy into a heap buffer in C++, a writev. Written with `res.write(body)`
 * in a cork of our own, the body is one chunk, written as the cork is
 * lifted, and `end()` then has nothing left to send (about 0.4-1.7 µs of
 * CPU an answer). Within a cork already there (none of ours), the body
 * waits for that one to lift, and `end()` lifts every cork.
 */
function writeWhole(res: ServerResponse, body: Buffer | string, encoding: BufferEncoding): void {
  const socket = res.socket;
  // Without a Content-Length the body goes in chunks, whose last one only end() writes: one gathered write then.
  // The encoding applies to a text body; node ignores it for bytes.
  if (!socket || res.chunkedEncoding) {
    res.end(body, encoding);
    return;
  }
  // Corked here, write() neither corks nor schedules the uncork of its own.
  socket.cork();
  try {
    res.write(body, encoding);
  } finally {
    socket.uncork();
  }
  res.end();
}
