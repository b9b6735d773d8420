/**
 * The metrics port (`--metrics-port`): a plain HTTP listener of its own
 * that answers `GET /metrics` without a token, for a Prometheus scraping
 * from the same machine or a private network. It serves nothing else (404
 * for another path, 405 for another method), and binds loopback unless
 * given another host, so turning it on does not open the metrics to the
 * network by itself.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MetricsListener {
  /** The bound address and port (useful with port 0). */
  readonly address: AddressInfo;
  /** Stops listening and ends its connections. */
  close(): Promise<void>;
}

export interface MetricsEndpoint {
  /** The exposition text. */
  scrape(): Promise<string>;
  readonly contentType: string;
  /** Told of a scrape that failed (the answer is a 500). */
  failed(err: unknown): void;
}

/**
 * Listens on `host`:`port` for scrapes. Rejects when the port cannot be bound, saying which option to change.
 */
export function listenMetrics(endpoint: MetricsEndpoint, port: number, host: string): Promise<MetricsListener> {
  const server = http.createServer((req, res) => serve(endpoint, req, res));
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      const why = err.code === 'EADDRINUSE' ? 'is in use' : `cannot be bound (${err.code ?? err.message})`;
      reject(new Error(`metrics port ${host}:${port} ${why}: choose another --metrics-port or --metrics-host`));
    });
    server.listen(port, host, () => {
      resolve({
        address: server.address() as AddressInfo,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

function serve(endpoint: MetricsEndpoint, req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = req.url ?? '/';
  const queryAt = url.indexOf('?');
  const path = queryAt < 0 ? url : url.slice(0, queryAt);
  if (path !== '/metrics') return text(res, 404, `Not found: this port serves the metrics at /metrics only\n`);
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    return text(res, 405, `Method ${req.method} not allowed: scrape /metrics with GET\n`);
  }
  endpoint.scrape().then(
    (body) => {
      res.writeHead(200, { 'Content-Type': endpoint.contentType, 'Content-Length': Buffer.byteLength(body) });
      res.end(req.method === 'HEAD' ? undefined : body);
    },
    (err: unknown) => {
      endpoint.failed(err);
      text(res, 500, 'The metrics could not be collected; the server log has the cause\n');
    },
  );
}

function text(res: http.ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(message) });
  res.end(message);
}
