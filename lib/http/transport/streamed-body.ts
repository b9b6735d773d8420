/**
 * Writes an answer whose body comes in chunks (a long list of records,
 * record-list.ts): the head at once, without a Content-Length (node frames
 * the body as chunked), then each chunk as the socket takes it. The next
 * chunk is rendered only when the socket has room (stream back-pressure), so
 * a slow client holds a few chunks in memory, not the whole answer. A
 * client that goes away stops the rendering; a failure after the head is
 * out can only cut the connection, which the client sees as a broken body.
 */
import type { ServerResponse } from 'node:http';
import { Readable, pipeline } from 'node:stream';
import type { HttpResponse } from '../routing/dispatch.js';
import type { ServerLog } from '../log/server-log.js';

export function sendStreamed(
  res: ServerResponse,
  out: HttpResponse & { chunks: AsyncIterable<Buffer | string> },
  log: ServerLog,
): void {
  try {
    res.writeHead(out.status, out.headers);
  } catch (err) {
    log(
      'error',
      `could not write the answer to request ${out.headers['X-Request-Id'] ?? '?'}; its connection is closed`,
      err,
      out.headers['X-Request-Id'],
    );
    res.destroy();
    return;
  }
  pipeline(Readable.from(out.chunks, { objectMode: false }), res, (err) => {
    // A client that closed the connection is not a failure of ours.
    if (err && (err as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') {
      log(
        'error',
        `the streamed answer to request ${out.headers['X-Request-Id'] ?? '?'} failed; its connection is closed`,
        err,
        out.headers['X-Request-Id'],
      );
    }
  });
}
