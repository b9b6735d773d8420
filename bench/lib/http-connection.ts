/**
 * A lean HTTP/1.1 client for the load side of scenarios whose client would
 * otherwise set the pace: node's http client (and fetch, built on undici)
 * took about as much CPU a request as the server it measured. Imported by
 * bench/bank-client.ts, which runs transpiled (procs.ts `compiled`): this
 * file imports only node's modules.
 */
import net from 'node:net';

export interface Answer {
  status: number;
  body: string;
}

const HEAD_END = Buffer.from('\r\n\r\n');

/**
 * One keep-alive HTTP/1.1 connection, one request at a time: the request
 * written as one string, the answer read by its Content-Length. (In the
 * transactions scenario node's http client took 0.88 of the load core at
 * 1,600 transfers/s, setting the pace; this takes a fraction of it.) The
 * server answers the routes measured with a Content-Length; anything else
 * (chunked framing, a closed connection) fails the request, and the next
 * one opens a new connection.
 */
export class Connection {
  private socket: net.Socket | undefined;
  private received: Buffer[] = [];
  private waiting: { resolve: (a: Answer) => void; reject: (e: Error) => void } | undefined;
  private readonly hostname: string;
  private readonly port: number;

  /** `authorization`: the Authorization header sent with every request. */
  constructor(
    url: string,
    private readonly authorization: string,
  ) {
    const { hostname, port } = new URL(url);
    this.hostname = hostname;
    this.port = Number(port);
  }

  request(method: string, path: string, payload?: string): Promise<Answer> {
    const socket = (this.socket ??= this.open());
    const length = payload === undefined ? 0 : Buffer.byteLength(payload);
    const head =
      `${method} ${path} HTTP/1.1\r\nHost: ${this.hostname}:${this.port}\r\nAuthorization: ${this.authorization}\r\n` +
      (payload === undefined ? '\r\n' : `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`);
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      socket.write(payload === undefined ? head : head + payload);
    });
  }

  private open(): net.Socket {
    const socket = net.connect({ host: this.hostname, port: this.port });
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      this.received.push(chunk);
      this.answerIfWhole(socket);
    });
    socket.on('error', (err) => this.drop(socket, err));
    socket.on('close', () => this.drop(socket, new Error('connection closed')));
    return socket;
  }

  /** Ends `socket` (when it is still this connection's) and fails the request waiting on it, if any. */
  private drop(socket: net.Socket, err: Error): void {
    socket.destroy();
    if (this.socket !== socket) return;
    this.socket = undefined;
    this.received = [];
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.reject(err);
  }

  private answerIfWhole(socket: net.Socket): void {
    const data = this.received.length === 1 ? this.received[0]! : Buffer.concat(this.received);
    this.received = [data];
    const headEnd = data.indexOf(HEAD_END);
    if (headEnd < 0) return;
    const head = data.toString('latin1', 0, headEnd);
    const status = Number(head.slice(9, 12));
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (!length) return this.drop(socket, new Error(`answer without a Content-Length: ${head.split('\r\n')[0]}`));
    const end = headEnd + 4 + Number(length[1]);
    if (data.length < end) return;
    if (data.length > end) return this.drop(socket, new Error('bytes after the answer, none asked for'));
    this.received = [];
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.resolve({ status, body: data.toString('utf8', headEnd + 4, end) });
  }

  close(): void {
    this.socket?.destroy();
  }
}
