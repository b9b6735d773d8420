import { expect } from 'chai';
import { hostname } from 'node:os';
import { lookup } from 'node:dns/promises';
import {
  closeOutboundPools, guardedLookup, hostPolicy, isNonPublicAddress, NO_PROXY_CONFIG, OutboundDenied, outboundFetch, parseIp, proxyFromEnv,
  type OutboundPolicy,
} from '../../../lib/functions/outbound/index.js';
import { InvalidInput, Timeout, UpstreamFailed } from '../../../lib/errors.js';
import { startLocalHttp, type LocalHttp } from '../../helpers/local-http.js';
import { startForwardProxy, type ForwardProxy } from '../../helpers/forward-proxy.js';
import { rejection } from '../../helpers/function-harness.js';

const LOCAL: OutboundPolicy = { hosts: hostPolicy(['127.0.0.1'], false), proxy: NO_PROXY_CONFIG };
const DEFAULT: OutboundPolicy = { hosts: hostPolicy([], false), proxy: NO_PROXY_CONFIG };

describe('outboundFetch against real local servers', () => {
  let srv: LocalHttp;
  beforeEach(async () => { srv = await startLocalHttp(); });
  afterEach(async () => { await srv.close(); });
  after(async () => { await closeOutboundPools(); });

  it('sends method, headers and body, and returns status, headers and body', async () => {
    srv.handler = (req, res) => { res.writeHead(201, { 'content-type': 'application/json', 'x-echo': req.headers['x-token'] as string }); res.end(JSON.stringify({ got: req.body })); };
    const r = await outboundFetch(`${srv.url}/items?q=1`, { method: 'post', headers: { 'X-Token': 'abc', 'content-type': 'text/plain' }, body: 'hello' }, LOCAL);
    expect(r.status).to.equal(201);
    expect(r.headers['x-echo']).to.equal('abc');
    expect(JSON.parse(r.body.toString())).to.deep.equal({ got: 'hello' });
    expect(srv.seen[0]).to.deep.include({ method: 'POST', url: '/items?q=1', body: 'hello' });
  });

  it('returns a non-2xx answer as an answer', async () => {
    srv.handler = (_req, res) => { res.writeHead(404, { 'content-type': 'text/plain' }); res.end('nope'); };
    const r = await outboundFetch(`${srv.url}/missing`, {}, LOCAL);
    expect(r.status).to.equal(404);
    expect(r.body.toString()).to.equal('nope');
  });

  it('denies loopback by default, before any connection', async () => {
    const err = await rejection(outboundFetch(`${srv.url}/`, {}, DEFAULT));
    expect(err).to.be.instanceOf(OutboundDenied);
    expect(err.status).to.equal(400);
    expect(err.message).to.match(/'127\.0\.0\.1' denied/);
    expect(srv.seen).to.have.length(0);
    expect(await rejection(outboundFetch('http://169.254.169.254/latest/meta-data/', {}, DEFAULT))).to.be.instanceOf(OutboundDenied);
    expect(await rejection(outboundFetch('http://[::ffff:7f00:1]:1/', {}, DEFAULT))).to.be.instanceOf(OutboundDenied);
    expect(await rejection(outboundFetch(`http://localhost:${srv.port}/`, {}, DEFAULT))).to.be.instanceOf(OutboundDenied);
  });

  it('checks the addresses a name resolves to at connect time', async function () {
    // guardedLookup is the net.connect hook: 'localhost' resolves to loopback and is refused there.
    const denied = await new Promise<unknown>((resolve) => guardedLookup(hostPolicy([], false))('localhost', {}, (err) => resolve(err)));
    expect(denied).to.be.instanceOf(OutboundDenied);
    const kept = await new Promise<unknown>((resolve) => guardedLookup(hostPolicy(['127.0.0.1', '::1'], false))('localhost', { all: true }, (_e, a) => resolve(a)));
    expect((kept as Array<{ address: string }>).length).to.be.greaterThan(0);
    // End to end: this machine's own name is not a "local name" to the URL check, only its address tells.
    const name = hostname();
    const resolved = await lookup(name).catch(() => undefined);
    if (!resolved || !isNonPublicAddress(parseIp(resolved.address)!)) this.skip();
    const err = await rejection(outboundFetch(`http://${name}:${srv.port}/`, {}, DEFAULT));
    expect(err).to.be.instanceOf(OutboundDenied);
    expect(srv.seen).to.have.length(0);
  });

  it('follows redirects, switching a 303 to GET and dropping credentials across origins', async () => {
    srv.handler = (req, res) => {
      if (req.url === '/start') { res.writeHead(303, { location: '/middle' }); res.end(); return; }
      if (req.url === '/middle') { res.writeHead(307, { location: `http://localhost:${srv.port}/end` }); res.end(); return; }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`${req.method} ${req.headers.authorization ?? 'no-auth'}`);
    };
    const policy: OutboundPolicy = { hosts: hostPolicy(['127.0.0.1', 'localhost'], false), proxy: NO_PROXY_CONFIG };
    const r = await outboundFetch(`${srv.url}/start`, { method: 'POST', body: 'x', headers: { authorization: 'Bearer s3cret' } }, policy);
    expect(r.body.toString()).to.equal('GET no-auth');
    expect(r.url).to.equal(`http://localhost:${srv.port}/end`);
    expect(srv.seen.map((s) => `${s.method} ${s.url} ${s.headers.authorization ?? '-'}`)).to.deep.equal(['POST /start Bearer s3cret', 'GET /middle Bearer s3cret', 'GET /end -']);
  });

  it('re-checks every redirect: a redirect to a denied host fails', async () => {
    srv.handler = (_req, res) => { res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }); res.end(); };
    const err = await rejection(outboundFetch(`${srv.url}/`, {}, LOCAL));
    expect(err).to.be.instanceOf(OutboundDenied);
    expect(err.message).to.match(/169\.254\.169\.254/);
    srv.handler = (_req, res) => { res.writeHead(302, { location: 'file:///etc/passwd' }); res.end(); };
    expect(await rejection(outboundFetch(`${srv.url}/`, {}, LOCAL))).to.be.instanceOf(InvalidInput);
  });

  it('stops after too many redirects', async () => {
    srv.handler = (req, res) => { res.writeHead(302, { location: `/r${req.url.length}` }); res.end(); };
    const err = await rejection(outboundFetch(`${srv.url}/`, { maxRedirects: 3 }, LOCAL));
    expect(err).to.be.instanceOf(UpstreamFailed);
    expect(err.message).to.match(/more than 3 times/);
    expect(srv.seen).to.have.length(4);
  });

  it('aborts a body past the size cap, declared or streamed', async () => {
    srv.handler = (_req, res) => { res.writeHead(200, { 'content-length': '5000' }); res.end('x'.repeat(5000)); };
    const declared = await rejection(outboundFetch(`${srv.url}/`, { maxBytes: 1000 }, LOCAL));
    expect(declared).to.be.instanceOf(UpstreamFailed);
    expect(declared.message).to.match(/larger than 1000 bytes/);
    srv.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => { if (!res.write('y'.repeat(512))) return; }, 1);
      res.on('close', () => clearInterval(timer));
    };
    const streamed = await rejection(outboundFetch(`${srv.url}/`, { maxBytes: 4096, timeoutMs: 5000 }, LOCAL));
    expect(streamed).to.be.instanceOf(UpstreamFailed);
    expect(streamed.message).to.match(/larger than 4096 bytes/);
  });

  it('times out a server that never answers', async () => {
    srv.handler = () => undefined;
    const started = Date.now();
    const err = await rejection(outboundFetch(`${srv.url}/`, { timeoutMs: 150 }, LOCAL));
    expect(err).to.be.instanceOf(Timeout);
    expect(err.status).to.equal(504);
    expect(Date.now() - started).to.be.lessThan(2000);
  });

  it('fails on a refused connection, naming the host but not the path', async () => {
    const port = srv.port;
    await srv.close();
    const err = await rejection(outboundFetch(`http://127.0.0.1:${port}/secret?key=k`, {}, LOCAL));
    expect(err).to.be.instanceOf(UpstreamFailed);
    expect(err.message).to.match(/127\.0\.0\.1/).and.not.match(/secret|key=k/);
    srv = await startLocalHttp();
  });

  it('refuses bad URLs, schemes, methods and transport headers', async () => {
    expect(await rejection(outboundFetch('not a url', {}, LOCAL))).to.be.instanceOf(InvalidInput);
    expect((await rejection(outboundFetch('ftp://example.com/', {}, LOCAL))).message).to.match(/scheme 'ftp'/);
    expect((await rejection(outboundFetch('http://u:p@example.com/', {}, LOCAL))).message).to.match(/credentials/);
    expect((await rejection(outboundFetch(srv.url, { method: 'TRACE' }, LOCAL))).message).to.match(/method 'TRACE'/);
    expect((await rejection(outboundFetch(srv.url, { headers: { Host: 'evil' } }, LOCAL))).message).to.match(/'host' is set by the server/);
    expect((await rejection(outboundFetch(srv.url, { headers: { 'x-a': 'a\r\nb: c' } }, LOCAL))).message).to.match(/control characters/);
    expect(srv.seen).to.have.length(0);
  });
});

describe('outboundFetch through a forward proxy', () => {
  let srv: LocalHttp;
  let proxy: ForwardProxy;
  beforeEach(async () => {
    srv = await startLocalHttp();
    proxy = await startForwardProxy();
    proxy.hosts.set('api.example.test', srv.port);
  });
  afterEach(async () => { await closeOutboundPools(); await proxy.close(); await srv.close(); });

  it('sends http requests through HTTP_PROXY, which resolves the name; the proxy on loopback is never blocked', async () => {
    const policy: OutboundPolicy = { hosts: hostPolicy([], false), proxy: proxyFromEnv({ HTTP_PROXY: proxy.url }) };
    const r = await outboundFetch('http://api.example.test/data?x=1', { headers: { accept: 'application/json' } }, policy);
    expect(r.status).to.equal(200);
    expect(JSON.parse(r.body.toString())).to.deep.equal({ ok: true });
    expect(proxy.seen).to.deep.equal(['GET http://api.example.test/data?x=1']);
    expect(srv.seen[0]!.url).to.equal('/data?x=1');
  });

  it('still checks literal addresses and local names in the URL', async () => {
    const policy: OutboundPolicy = { hosts: hostPolicy([], false), proxy: proxyFromEnv({ HTTP_PROXY: proxy.url }) };
    expect(await rejection(outboundFetch(`${srv.url}/`, {}, policy))).to.be.instanceOf(OutboundDenied);
    expect(await rejection(outboundFetch('http://localhost/', {}, policy))).to.be.instanceOf(OutboundDenied);
    expect(await rejection(outboundFetch('http://10.1.2.3/', {}, policy))).to.be.instanceOf(OutboundDenied);
    expect(proxy.seen).to.deep.equal([]);
  });

  it('tunnels https through HTTPS_PROXY with CONNECT', async () => {
    const policy: OutboundPolicy = { hosts: hostPolicy([], false), proxy: proxyFromEnv({ HTTPS_PROXY: proxy.url }) };
    // The local target speaks plain HTTP, so the TLS handshake inside the tunnel fails; the CONNECT shows the route.
    const err = await rejection(outboundFetch('https://api.example.test/secure', { timeoutMs: 3000 }, policy));
    expect(err).to.be.instanceOf(UpstreamFailed);
    expect(proxy.seen).to.deep.equal(['CONNECT api.example.test:443']);
  });

  it('goes direct for NO_PROXY hosts', async () => {
    const policy: OutboundPolicy = { hosts: hostPolicy(['127.0.0.1'], false), proxy: proxyFromEnv({ HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' }) };
    const r = await outboundFetch(`${srv.url}/direct`, {}, policy);
    expect(r.status).to.equal(200);
    expect(proxy.seen).to.deep.equal([]);
    expect(srv.seen[0]!.url).to.equal('/direct');
  });
});
