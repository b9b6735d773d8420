/**
 * Two parts of a server's close (the order of its steps is in server.ts):
 * letting the requests in flight finish before the connections are cut
 * (`HttpDrain`), and naming what a close still waits for (`CloseProgress`),
 * so that a stop that runs out of time (`eddydb start --shutdown-timeout`)
 * can say what was still running. Neither bounds the close by itself: the
 * caller that owns the process does.
 */
import type { Server as HttpServer, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import tls from 'node:tls';
import type { RequestsInFlight } from './routing/requests-in-flight.js';
import { isEventStream } from './transport/sse.js';

/** How often a drain looks at the connections left. */
const DRAIN_POLL_MS = 20;

/**
 * The server's connections (one listener per connection, nothing per
 * request), and the drain of a close: stop accepting connections, let each
 * connection finish the request it is receiving or answering, then leave the
 * rest (idle keep-alive connections, server-sent event streams, which never
 * finish) for the caller to cut.
 */
export class HttpDrain {
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly server: HttpServer,
    private readonly inFlight: RequestsInFlight,
  ) {
    // Over TLS the HTTP exchange runs on the TLS socket, which the secure connection event hands over.
    const event = server instanceof tls.Server ? 'secureConnection' : 'connection';
    server.on(event, (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  /**
   * Resolves once no connection is receiving a request or sending an answer,
   * or after `ms` of real time (they wait on I/O and clients); the caller then
   * cuts the connections left. Stops accepting connections first (idle
   * keep-alive ones close at once), and every answer from then on closes its
   * connection. Does nothing for `ms` 0 or a server that is not listening.
   */
  async drain(ms: number): Promise<void> {
    if (ms <= 0 || !this.server.listening) return;
    // First, so the header is set before any handler writes its answer (bodiless GETs answer synchronously).
    this.server.prependListener('request', (_req, res) => {
      res.setHeader('Connection', 'close');
    });
    this.server.close();
    const deadline = performance.now() + ms;
    while (this.busy() > 0 && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(DRAIN_POLL_MS, deadline - performance.now())));
    }
  }

  /** What a drain still waits for: the requests in flight by name, else the connections still busy; or undefined. */
  describe(): string | undefined {
    const busy = this.busy();
    if (busy === 0) return undefined;
    const requests = this.inFlight.describe();
    if (requests.length > 0) return `requests in flight: ${requests.join(', ')}`;
    return `${busy} connection(s) still receiving a request or sending an answer`;
  }

  /** Connections receiving a request or sending an answer (an event stream does not count: it never ends). */
  private busy(): number {
    let busy = 0;
    for (const socket of this.sockets) if (isBusy(socket)) busy++;
    return busy;
  }
}

/**
 * A connection with an answer not yet written out (node's HTTP server keeps
 * the exchange under way on the socket as `_httpMessage`, from the request's
 * head to the answer's last byte; its own closeIdleConnections reads it too),
 * or with bytes still queued.
 */
function isBusy(socket: Socket): boolean {
  const answer = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (answer && isEventStream(answer)) return false;
  return (answer !== null && answer !== undefined && !answer.writableFinished) || socket.writableLength > 0;
}

/** The steps of a close still running, each described when asked (what a step waits for changes as it goes). */
export class CloseProgress {
  private readonly running = new Set<() => string | undefined>();

  /** Awaits `work`, one step of the close, named by `describe` until it settles. */
  async step<T>(describe: () => string | undefined, work: Promise<T>): Promise<T> {
    this.running.add(describe);
    try {
      return await work;
    } finally {
      this.running.delete(describe);
    }
  }

  /** What the close still waits for, one phrase a step, in the order the steps began (empty when none runs). */
  pending(): string[] {
    return [...this.running].map((describe) => describe()).filter((what): what is string => what !== undefined);
  }
}
