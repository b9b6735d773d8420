import { connect } from 'node:net';

/** Resolves whether a new TCP connection to `port` on 127.0.0.1 is accepted (a server listens there). */
export function acceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
