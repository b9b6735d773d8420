/**
 * Server-sent events: serves an open stream (a route naming a stream
 * procedure, answered by the Dispatcher) on a raw node response, so fastify
 * and express share it. For GET /api/subscribe/{c} (protocol.md 2.15) that is
 * `event: subscribed`, then `event: mutation` per committed change and
 * `event: schema_changed`; this transport adds heartbeats to keep proxies
 * open (`event: heartbeat`, or `: heartbeat` comments on chat streams, whose
 * route frames events as `data:` lines only). The frames, the slow-consumer policy and cancellation are
 * the stream renderer's (stream/stream-renderer.ts).
 *
 * The stream's credentials are re-checked for its whole life (CredentialWatch):
 * an expired token, a revoked key, or a key that may not run the
 * stream ends it with a final `event: error` frame, then the response ends.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { toDbError } from '../../errors.js';
import type { Dispatcher, HttpResponse, OpenStream } from '../routing/dispatch.js';
import type { WatchedConnection } from '../auth/credential-watch.js';
import { sseDataFrames, sseEventFrames } from '../stream/frame-formats.js';
import { StreamRenderer } from '../stream/stream-renderer.js';

const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

/** Marks a response serving an event stream: a close's drain does not wait for it (server-close.ts). */
const EVENT_STREAM = Symbol('eddydb.eventStream');

/** Whether `res` serves an event stream (serveSse), which a close cuts instead of waiting for its end. */
export function isEventStream(res: ServerResponse): boolean {
  return (res as ServerResponse & { [EVENT_STREAM]?: true })[EVENT_STREAM] === true;
}

/** Writes the head of `answer` and renders its stream until either side ends it. */
export function serveSse(
  req: IncomingMessage,
  res: ServerResponse,
  answer: HttpResponse & { stream: OpenStream },
  dispatcher: Dispatcher,
): void {
  const opts = dispatcher.streams!;
  const { stream } = answer;
  // The client may have gone while the stream opened: no close event would come to cancel it.
  if (!res.socket || res.socket.destroyed) {
    stream.cancel();
    return;
  }
  res.writeHead(200, { ...SSE_HEADERS, ...answer.headers });
  (res as ServerResponse & { [EVENT_STREAM]?: true })[EVENT_STREAM] = true;
  const renderer = new StreamRenderer(
    {
      queued: () => res.writableLength,
      write: (frame) => {
        if (!res.writableEnded) res.write(frame);
      },
    },
    answer.sse === 'data' ? sseDataFrames() : sseEventFrames(),
    {
      maxQueuedBytes: opts.maxQueuedBytes,
      transport: 'SSE',
      closing: 'stream',
      log: (level, msg, extra) => dispatcher.log(level, msg, extra, answer.headers['X-Request-Id']),
      describe: () => ({
        keyId: stream.principal.keyId,
        collections: stream.collection === undefined ? [] : [stream.collection],
      }),
      drop: () => end(),
    },
    stream.signal,
  );
  const watched: WatchedConnection = {
    grant: stream.principal.grant,
    end: (err) => {
      renderer.fail(err);
      end();
    },
    keyChanged: (principal) => {
      try {
        stream.recheck(principal);
      } catch (err) {
        watched.end(toDbError(err));
      }
    },
  };
  const heartbeat = setInterval(() => renderer.heartbeat(), opts.heartbeatMs);
  heartbeat.unref();
  let open = true;
  function close(): void {
    if (!open) return;
    open = false;
    clearInterval(heartbeat);
    stream.cancel();
    opts.watch.remove(watched);
  }
  function end(): void {
    close();
    res.end();
  }
  req.on('close', close);
  res.on('close', close);
  opts.watch.add(watched, stream.principal);
  void renderer.run(stream.events, () => opts.watch.verify(watched)).then(end);
}
