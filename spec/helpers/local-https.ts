/**
 * A scriptable HTTPS server on 127.0.0.1 for outbound-request tests, with
 * a self-signed certificate made for this server alone (tls-certificate.ts:
 * valid for 127.0.0.1 and localhost, one day). A client trusts it through
 * `certFile`, the way an operator trusts a private CA: NODE_EXTRA_CA_CERTS
 * in the environment of a process started for the purpose
 * (outbound-fetch-child.ts). Every request is recorded, as local-http.ts does.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { LocalHttp, SeenRequest } from './local-http.js';
import { makeCertificate } from './tls-certificate.js';

export interface LocalHttps extends LocalHttp {
  /** The certificate (PEM) the server presents, to trust. */
  readonly certFile: string;
}

export async function startLocalHttps(): Promise<LocalHttps> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'eddydb-tls-'));
  const { certFile, cert, key } = makeCertificate(dir, 'server');
  const sockets = new Set<net.Socket>();
  const local = {
    url: '',
    port: 0,
    certFile,
    seen: [] as SeenRequest[],
    handler: (_req: SeenRequest, res: ServerResponse) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    },
    close: async () => undefined,
  };
  const server = https.createServer({ key, cert }, (req, res) => {
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
  server.on('secureConnection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  return Object.assign(local, {
    url: `https://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => {
          rmSync(dir, { recursive: true, force: true });
          r();
        });
      }),
  });
}
