/**
 * Writes a complete HTTP/1.1 response straight to a socket and closes it,
 * for the answers given before (or instead of) node's request handling:
 * HTTP parser errors (`clientError`) and refused WebSocket upgrades. The
 * socket is not reused afterwards, as node itself does after such errors.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Dispatcher, HttpResponse } from '../routing/dispatch.js';
import { fromClientError } from './framework-errors.js';

/**
 * A `clientError` listener for an http.Server: answers a request node's
 * parser rejects (malformed or oversized headers, a slow client) in the
 * product's error format. The fastify server installs it; an express app
 * mounting the adapter can add it with `server.on('clientError', ...)`.
 */
export function createClientErrorHandler(dispatcher: Dispatcher): (err: Error, socket: Duplex) => void {
  return (err, socket) => {
    const mapped = fromClientError(err);
    if (!mapped) {
      socket.destroy();
      return;
    }
    writeToSocket(socket, dispatcher.failure(mapped, { method: 'unparsable', url: 'request' }));
  };
}

/** Sends `res` with `Connection: close` and ends the socket; does nothing on a socket that cannot be written. */
export function writeToSocket(socket: Duplex, res: HttpResponse): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const lines = [`HTTP/1.1 ${res.status} ${STATUS_CODES[res.status] ?? 'Error'}`];
  for (const [name, value] of Object.entries(res.headers)) lines.push(`${name}: ${value}`);
  const body = typeof res.body === 'string' ? Buffer.from(res.body, 'utf8') : res.body;
  lines.push(`Content-Length: ${body.length}`, 'Connection: close', '', '');
  socket.end(Buffer.concat([Buffer.from(lines.join('\r\n'), 'latin1'), body]));
}
