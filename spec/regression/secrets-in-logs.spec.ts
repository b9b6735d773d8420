/**
 * Request logging wrote query strings, so `?token=` and
 * `?api_key=` values reached the log. Every path that logs a request (the
 * Dispatcher, fastify's framework errors, SSE, the WebSocket upgrade, a 5xx
 * with its headers) now writes secret-named parameters and headers as
 * [REDACTED]. Checked on the captured log of a real server.
 */
import { expect } from 'chai';
import WebSocket from 'ws';
import { TestServer } from '../helpers/test-server.js';
import { FaultyFs } from '../helpers/faulty-fs.js';
import { httpRequest } from '../helpers/raw-http.js';

interface Line {
  level: string;
  msg: string;
  extra: unknown;
}

describe('secrets stay out of the log', () => {
  let t: TestServer;
  let fs: FaultyFs;
  let lines: Line[];
  const logged = () =>
    lines
      .map((l) => `${l.level} ${l.msg} ${l.extra instanceof Error ? l.extra.message : String(l.extra ?? '')}`)
      .join('\n');

  before(async () => {
    fs = new FaultyFs();
    lines = [];
    t = await TestServer.start({
      fs,
      logLevel: 'debug',
      logger: (level, msg, extra) => lines.push({ level, msg, extra }),
    });
    await t.adminToken();
  });
  after(async () => {
    fs.failWrites = false;
    await t.stop();
  });
  beforeEach(() => {
    lines = [];
  });

  it('redacts token and api_key query parameters of a failed request and keeps the others', async () => {
    await t.request('GET', '/api/find/logs/missing?token=SECRET-T1&api_key=SECRET-K1&limit=3');
    expect(logged()).to.not.contain('SECRET');
    expect(logged()).to.contain('GET /api/find/logs/missing?token=[REDACTED]&api_key=[REDACTED]&limit=3 -> 404');
  });

  it('redacts the query of a URL fastify itself cannot decode', async () => {
    await t.request('GET', '/api/find/logs/%ff?apikey=SECRET-K2');
    expect(logged()).to.not.contain('SECRET');
    expect(logged()).to.contain('apikey=[REDACTED]');
  });

  it('redacts the token of a refused SSE subscription', async () => {
    const r = await httpRequest(t.url, { method: 'GET', path: '/api/subscribe/logs?token=SECRET-T2' });
    expect(r.status).to.equal(401);
    expect(logged()).to.not.contain('SECRET');
    expect(logged()).to.contain('GET /api/subscribe/logs?token=[REDACTED] -> 401');
  });

  it('redacts the token of a refused WebSocket upgrade', async () => {
    const ws = new WebSocket(t.url.replace('http', 'ws') + '/api/ws?token=SECRET-T3');
    ws.on('error', () => undefined);
    const status = await new Promise<number>((resolve) =>
      ws.on('unexpected-response', (req, res) => {
        resolve(res.statusCode ?? 0);
        req.destroy();
      }),
    );
    expect(status).to.equal(401);
    expect(logged()).to.not.contain('SECRET');
    expect(logged()).to.contain('GET /api/ws?token=[REDACTED] -> 401');
  });

  it('logs the headers of a 5xx with Authorization, Cookie and key headers redacted', async () => {
    fs.failReadsOf = 'audit.log';
    try {
      const r = await t.request('GET', '/api/admin/audit?password=SECRET-P1', undefined, {
        headers: { Cookie: 'sid=SECRET-C1', 'X-Api-Key': 'SECRET-K3' },
      });
      expect(r.status).to.equal(500);
    } finally {
      fs.failReadsOf = undefined;
    }
    const error = lines.find((l) => l.level === 'error')!;
    expect(error.msg).to.contain('"authorization":"[REDACTED]"');
    expect(error.msg).to.contain('"cookie":"[REDACTED]"');
    expect(error.msg).to.contain('"x-api-key":"[REDACTED]"');
    expect(error.msg).to.contain('"accept":"application/json"');
    expect(logged()).to.not.contain('SECRET');
    expect(logged()).to.not.contain(await t.adminToken());
  });
});
