/**
 * A server with TLS credentials serves HTTPS and WSS on its one port: the
 * direct paths (a bodiless GET, a body read), fastify's path and the
 * WebSocket upgrade alike. A renewed certificate (reloadTls, what SIGHUP
 * calls) serves new connections while open keep-alive and WebSocket
 * connections go on; a pair node:tls refuses changes nothing.
 */
import { expect } from 'chai';
import https from 'node:https';
import net from 'node:net';
import type { TLSSocket } from 'node:tls';
import WebSocket from 'ws';
import { ADMIN_KEY, TestServer } from '../../helpers/test-server.js';
import { makeCertificate, type TestCertificate } from '../../helpers/tls-certificate.js';
import { removeDir, tempDir } from '../../helpers/temp-dir.js';
import { until } from '../../helpers/until.js';

interface TlsReply {
  status: number;
  body: string;
  /** The certificate the connection was made with. */
  fingerprint: string;
  /** The request went over a connection already open (keep-alive). */
  reused: boolean;
}

/** One request trusting `ca` only; over `agent`'s connections when given, else a new connection. */
function request(
  url: string,
  ca: Buffer,
  opts: { method?: string; body?: string; token?: string; agent?: https.Agent } = {},
): Promise<TlsReply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (opts.token) headers.authorization = `Bearer ${opts.token}`;
    const req = https.request(url, { method: opts.method ?? 'GET', headers, ca, agent: opts.agent ?? false }, (res) => {
      const socket = res.socket as TLSSocket;
      const fingerprint = socket.getPeerCertificate().fingerprint256;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body, fingerprint, reused: req.reusedSocket }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** A WebSocket over TLS trusting `ca`, open. */
async function openWss(url: string, ca: Buffer, token: string): Promise<WebSocket> {
  const ws = new WebSocket(`${url.replace(/^https/, 'wss')}/api/ws`, {
    ca,
    headers: { authorization: `Bearer ${token}` },
  });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  return ws;
}

/** Sends one frame and resolves with the reply carrying its messageId. */
function ask(ws: WebSocket, messageId: string, type: string, payload: unknown): Promise<any> {
  return new Promise((resolve) => {
    const onMessage = (data: Buffer) => {
      const m = JSON.parse(data.toString());
      if (m.messageId !== messageId) return;
      ws.off('message', onMessage);
      resolve(m);
    };
    ws.on('message', onMessage);
    ws.send(JSON.stringify({ type, messageId, payload }));
  });
}

describe('TLS transport (HTTPS and WSS on one port)', function () {
  this.timeout(30_000);
  let dir: string;
  let first: TestCertificate;
  let second: TestCertificate;
  let t: TestServer;
  let token: string;

  before(() => {
    dir = tempDir('eddydb-tls-spec-');
    first = makeCertificate(dir, 'first');
    second = makeCertificate(dir, 'second');
  });
  after(() => removeDir(dir));
  beforeEach(async () => {
    t = await TestServer.start({ memory: true, tls: { cert: first.cert, key: first.key } });
    const r = await request(`${t.url}/api/auth/token`, first.cert, {
      method: 'POST',
      body: JSON.stringify({ api_key: ADMIN_KEY }),
    });
    token = JSON.parse(r.body).token;
  });
  afterEach(() => t.stop());

  it('serves reads, writes and the framework path over HTTPS, with an https url', async () => {
    expect(t.url).to.match(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(t.server.isTls).to.equal(true);
    const health = await request(`${t.url}/api/health`, first.cert);
    expect(health.status).to.equal(200);
    expect(health.fingerprint).to.equal(first.fingerprint256);
    const inserted = await request(`${t.url}/api/insert/notes`, first.cert, {
      method: 'POST',
      token,
      body: JSON.stringify({ title: 'over tls' }),
    });
    expect(inserted.status, inserted.body).to.equal(201);
    const id = JSON.parse(inserted.body).id as string;
    const found = await request(`${t.url}/api/find/notes/${id}`, first.cert, { token });
    expect(JSON.parse(found.body).title).to.deep.equal({ type: 'String', value: 'over tls' });
    // HEAD goes through fastify's route rather than the direct path.
    expect((await request(`${t.url}/api/health`, first.cert, { method: 'HEAD' })).status).to.equal(200);
  });

  it('answers no plain HTTP on the TLS port', async () => {
    const port = Number(new URL(t.url).port);
    const answer = await new Promise<string>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write('GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n'));
      let got = '';
      socket.on('data', (d) => (got += d.toString('latin1')));
      socket.on('close', () => resolve(got));
      socket.on('error', () => undefined);
    });
    expect(answer).to.not.include('HTTP/1.1 200');
  });

  it('subscribes over WSS and delivers the notification of a write made over HTTPS', async () => {
    const ws = await openWss(t.url, first.cert, token);
    try {
      const notes: any[] = [];
      ws.on('message', (d: Buffer) => {
        const m = JSON.parse(d.toString());
        if (m.type === 'MutationNotification') notes.push(m);
      });
      const sub = await ask(ws, 's1', 'Subscribe', { collection: 'feed' });
      expect(sub.type, JSON.stringify(sub)).to.equal('Success');
      await request(`${t.url}/api/insert/feed`, first.cert, { method: 'POST', token, body: '{"id":"a"}' });
      await until('the notification', () => notes.length === 1, 5000);
      expect(notes[0].payload).to.deep.include({ event: 'insert', record_ids: ['a'] });
    } finally {
      ws.close();
    }
  });

  it('serves a renewed certificate to new connections while open keep-alive and WebSocket ones go on', async () => {
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: [first.cert, second.cert] });
    const ws = await openWss(t.url, first.cert, token);
    try {
      const before = await request(`${t.url}/api/health`, first.cert, { agent });
      expect(before.fingerprint).to.equal(first.fingerprint256);

      t.server.reloadTls({ cert: second.cert, key: second.key });

      const kept = await request(`${t.url}/api/health`, first.cert, { agent });
      expect(kept).to.include({ status: 200, reused: true, fingerprint: first.fingerprint256 });
      const reply = await ask(ws, 'c1', 'GetCollections', {});
      expect(reply.type, JSON.stringify(reply)).to.equal('Success');
      const fresh = await request(`${t.url}/api/health`, second.cert);
      expect(fresh).to.include({ status: 200, reused: false, fingerprint: second.fingerprint256 });
      // The old certificate is no longer what a new connection is offered.
      const refused = await request(`${t.url}/api/health`, first.cert).then(
        () => 'accepted',
        (err: NodeJS.ErrnoException) => err.code,
      );
      expect(refused).to.not.equal('accepted');
      const ws2 = await openWss(t.url, second.cert, token);
      expect((await ask(ws2, 'c2', 'GetCollections', {})).type).to.equal('Success');
      ws2.close();
    } finally {
      ws.close();
      agent.destroy();
    }
  });

  it('refuses a key that does not match the certificate, and goes on serving the one it has', async () => {
    expect(() => t.server.reloadTls({ cert: second.cert, key: first.key })).to.throw(/key values mismatch/);
    expect(() => t.server.reloadTls({ cert: 'not a certificate', key: second.key })).to.throw(/PEM|start line/i);
    expect((await request(`${t.url}/api/health`, first.cert)).fingerprint).to.equal(first.fingerprint256);
  });

  it('refuses to start with a mismatched pair, and reloadTls on a plain HTTP server', async () => {
    let error: unknown;
    try {
      await TestServer.start({ memory: true, tls: { cert: first.cert, key: second.key } });
    } catch (err) {
      error = err;
    }
    expect(String(error)).to.match(/key values mismatch/);
    const plain = await TestServer.start({ memory: true });
    try {
      expect(plain.url).to.match(/^http:\/\//);
      expect(plain.server.isTls).to.equal(false);
      expect(() => plain.server.reloadTls({ cert: second.cert, key: second.key })).to.throw(/without TLS/);
    } finally {
      await plain.stop();
    }
  });
});
