/**
 * The end of a connection whose request is answered before its body was
 * read (a body over the limit, answered 413): the answer goes out with
 * `Connection: close`, the sending side is closed after it, and whatever the
 * client still sends is dropped (the request is resumed, nothing kept) until
 * the client closes its side or LINGER_MS pass. Destroying the socket at
 * once, with the client's bytes still arriving, makes the kernel reset the
 * connection, and a client still writing its body would then see a broken
 * pipe instead of the 413 (what nginx's lingering close is for).
 */
import type { ServerResponse } from 'node:http';

/** How long a refused client may go on sending before its connection is destroyed. */
const LINGER_MS = 2000;

/** Call before the answer is written: node:http then closes the connection as said above. */
export function closeAfterAnswer(res: ServerResponse): void {
  res.shouldKeepAlive = false;
  const socket = res.socket;
  if (!socket) return;
  // node:http ends the connection after a last answer with destroySoon() (end, then destroy once flushed).
  socket.destroySoon = () => {
    socket.end();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('end', () => socket.destroy());
    socket.once('close', () => clearTimeout(timer));
  };
}
