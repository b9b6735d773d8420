/**
 * A scriptable HTTP server on 127.0.0.1 for outbound-request tests: each
 * test sets `handler`; every request is recorded with its body.
 */
import http from 'node:http';
import type net from 'node:net';

export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface LocalHttp {
  readonly url: string;
  readonly port: number;
  readonly seen: SeenRequest[];
  handler: (req: SeenRequest, res: http.ServerResponse) => void;
  close(): Promise<void>;
}

export async function startLocalHttp(): Promise<LocalHttp> {
  const sockets = new Set<net.Socket>();
  const local: LocalHttp = {
    url: '',
    port: 0,
    seen: [],
    handler: (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    },
    close: async () => undefined,
  };
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      body += c;
    });
    req.on('end', () => {
      const seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      local.seen.push(seen);
      local.handler(seen, res);
    });
  });
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  return Object.assign(local, {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  });
}
