/**
 * A tiny forward proxy on 127.0.0.1 for outbound-request tests, speaking
 * what HTTP_PROXY / HTTPS_PROXY clients send: absolute-URI requests
 * (`GET http://host/path`) forwarded over a new connection, and `CONNECT
 * host:port` tunnels. It resolves names itself through `hosts` (name ->
 * local port), so a URL naming `api.example.test` reaches a local server
 * only through the proxy. Every request is recorded in `seen`.
 */
import http from 'node:http';
import net from 'node:net';

export interface ForwardProxy {
  readonly url: string;
  /** `GET http://api.example.test/x`, `CONNECT api.example.test:443`. */
  readonly seen: string[];
  /** Name -> port on 127.0.0.1; names not listed are connected to as they are. */
  readonly hosts: Map<string, number>;
  close(): Promise<void>;
}

export async function startForwardProxy(): Promise<ForwardProxy> {
  const seen: string[] = [];
  const hosts = new Map<string, number>();
  const sockets = new Set<net.Socket>();
  const target = (host: string, port: number) =>
    hosts.has(host) ? { host: '127.0.0.1', port: hosts.get(host)! } : { host, port };

  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('absolute URI expected');
      return;
    }
    const to = target(url.hostname, Number(url.port || 80));
    const headers = { ...req.headers };
    delete headers['proxy-connection'];
    const upstream = http.request({ ...to, method: req.method, path: url.pathname + url.search, headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    seen.push(`CONNECT ${req.url}`);
    const [host, port] = (req.url ?? '').split(':');
    const upstream = net.connect(target(host!, Number(port)), () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    hosts,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
