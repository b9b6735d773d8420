import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { lookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import {
  closeOutboundPools,
  guardedLookup,
  hostPolicy,
  isPublicAddress,
  NO_PROXY_CONFIG,
  OutboundDenied,
  outboundFetch,
  parseIp,
  proxyFromEnv,
  type HostLookup,
  type OutboundPolicy,
} from '../../lib/outbound/index.js';
import { InvalidInput, Timeout, UpstreamFailed } from '../../lib/errors.js';
import { startLocalHttp, type LocalHttp } from '../helpers/local-http.js';
import { startLocalHttps, type LocalHttps } from '../helpers/local-https.js';
import { startForwardProxy, type ForwardProxy } from '../helpers/forward-proxy.js';
import { rejection } from '../helpers/function-harness.js';

/** A resolver for test names (name -> addresses); other names do not resolve. `asked` records each name looked up. */
function testResolver(names: Record<string, string[]>): HostLookup & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (hostname: string): Promise<LookupAddress[]> => {
    asked.push(hostname);
    const addresses = names[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { asked });
}

const LOCAL: OutboundPolicy = { hosts: hostPolicy(['127.0.0.1'], false), proxy: NO_PROXY_CONFIG };
const DEFAULT: OutboundPolicy = { hosts: hostPolicy([], false), proxy: NO_PROXY_CONFIG };

describe('outboundFetch against real local servers', () => {
  let srv: LocalHttp;
  beforeEach(async () => {
    srv = await startLocalHttp();
  });
  afterEach(async () => {
    await srv.close();
  });
  after(async () => {
    await closeOutboundPools();
  });

  it('sends method, headers and body, and returns status, headers and body', async () => {
    srv.handler = (req, res) => {
      res.writeHead(201, { 'content-type': 'application/json', 'x-echo': req.headers['x-token'] as string });
      res.end(JSON.stringify({ got: req.body }));
    };
    const r = await outboundFetch(
      `${srv.url}/items?q=1`,
      { method: 'post', headers: { 'X-Token': 'abc', 'content-type': 'text/plain' }, body: 'hello' },
      LOCAL,
    );
    expect(r.status).to.equal(201);
    expect(r.headers['x-echo']).to.equal('abc');
    expect(JSON.parse(r.body.toString())).to.deep.equal({ got: 'hello' });
    expect(srv.seen[0]).to.deep.include({ method: 'POST', url: '/items?q=1', body: 'hello' });
  });

  it('returns a non-2xx answer as an answer', async () => {
    srv.handler = (_req, res) => {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('nope');
    };
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
    expect(await rejection(outboundFetch('http://169.254.169.254/latest/meta-data/', {}, DEFAULT))).to.be.instanceOf(
      OutboundDenied,
    );
    expect(await rejection(outboundFetch('http://[::ffff:7f00:1]:1/', {}, DEFAULT))).to.be.instanceOf(OutboundDenied);
    expect(await rejection(outboundFetch(`http://localhost:${srv.port}/`, {}, DEFAULT))).to.be.instanceOf(
      OutboundDenied,
    );
  });

  it('checks the addresses a name resolves to at connect time', async function () {
    // guardedLookup is the net.connect hook: 'localhost' resolves to loopback and is refused there.
    const denied = await new Promise<unknown>((resolve) =>
      guardedLookup(hostPolicy([], false))('localhost', {}, (err) => resolve(err)),
    );
    expect(denied).to.be.instanceOf(OutboundDenied);
    const kept = await new Promise<unknown>((resolve) =>
      guardedLookup(hostPolicy(['127.0.0.1', '::1'], false))('localhost', { all: true }, (_e, a) => resolve(a)),
    );
    expect((kept as Array<{ address: string }>).length).to.be.greaterThan(0);
    // End to end: this machine's own name is not a "local name" to the URL check, only its address tells.
    const name = hostname();
    const resolved = await lookup(name).catch(() => undefined);
    if (!resolved || isPublicAddress(parseIp(resolved.address)!)) this.skip();
    const err = await rejection(outboundFetch(`http://${name}:${srv.port}/`, {}, DEFAULT));
    expect(err).to.be.instanceOf(OutboundDenied);
    expect(srv.seen).to.have.length(0);
  });

  it('follows redirects, switching a 303 to GET and dropping credentials across origins', async () => {
    srv.handler = (req, res) => {
      if (req.url === '/start') {
        res.writeHead(303, { location: '/middle' });
        res.end();
        return;
      }
      if (req.url === '/middle') {
        res.writeHead(307, { location: `http://localhost:${srv.port}/end` });
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`${req.method} ${req.headers.authorization ?? 'no-auth'}`);
    };
    const policy: OutboundPolicy = { hosts: hostPolicy(['127.0.0.1', 'localhost'], false), proxy: NO_PROXY_CONFIG };
    const r = await outboundFetch(
      `${srv.url}/start`,
      { method: 'POST', body: 'x', headers: { authorization: 'Bearer s3cret' } },
      policy,
    );
    expect(r.body.toString()).to.equal('GET no-auth');
    expect(r.url).to.equal(`http://localhost:${srv.port}/end`);
    expect(srv.seen.map((s) => `${s.method} ${s.url} ${s.headers.authorization ?? '-'}`)).to.deep.equal([
      'POST /start Bearer s3cret',
      'GET /middle Bearer s3cret',
      'GET /end -',
    ]);
  });

  it('re-checks every redirect: a redirect to a denied host fails', async () => {
    srv.handler = (_req, res) => {
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
      res.end();
    };
    const err = await rejection(outboundFetch(`${srv.url}/`, {}, LOCAL));
    expect(err).to.be.instanceOf(OutboundDenied);
    expect(err.message).to.match(/169\.254\.169\.254/);
    srv.handler = (_req, res) => {
      res.writeHead(302, { location: 'file:///etc/passwd' });
      res.end();
    };
    expect(await rejection(outboundFetch(`${srv.url}/`, {}, LOCAL))).to.be.instanceOf(InvalidInput);
  });

  it('stops after too many redirects', async () => {
    srv.handler = (req, res) => {
      res.writeHead(302, { location: `/r${req.url.length}` });
      res.end();
    };
    const err = await rejection(outboundFetch(`${srv.url}/`, { maxRedirects: 3 }, LOCAL));
    expect(err).to.be.instanceOf(UpstreamFailed);
    expect(err.message).to.match(/more than 3 times/);
    expect(srv.seen).to.have.length(4);
  });

  it('aborts a body past the size cap, declared or streamed', async () => {
    srv.handler = (_req, res) => {
      res.writeHead(200, { 'content-length': '5000' });
      res.end('x'.repeat(5000));
    };
    const declared = await rejection(outboundFetch(`${srv.url}/`, { maxBytes: 1000 }, LOCAL));
    expect(declared).to.be.instanceOf(UpstreamFailed);
    expect(declared.message).to.match(/larger than 1000 bytes/);
    srv.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => {
        if (!res.write('y'.repeat(512))) return;
      }, 1);
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
    expect(err.message)
      .to.match(/127\.0\.0\.1/)
      .and.not.match(/secret|key=k/);
    srv = await startLocalHttp();
  });

  it('refuses bad URLs, schemes, methods and transport headers', async () => {
    expect(await rejection(outboundFetch('not a url', {}, LOCAL))).to.be.instanceOf(InvalidInput);
    expect((await rejection(outboundFetch('ftp://example.com/', {}, LOCAL))).message).to.match(/scheme 'ftp'/);
    expect((await rejection(outboundFetch('http://u:p@example.com/', {}, LOCAL))).message).to.match(/credentials/);
    expect((await rejection(outboundFetch(srv.url, { method: 'TRACE' }, LOCAL))).message).to.match(/method 'TRACE'/);
    expect((await rejection(outboundFetch(srv.url, { headers: { Host: 'evil' } }, LOCAL))).message).to.match(
      /'host' is set by the server/,
    );
    expect((await rejection(outboundFetch(srv.url, { headers: { 'x-a': 'a\r\nb: c' } }, LOCAL))).message).to.match(
      /control characters/,
    );
    expect(srv.seen).to.have.length(0);
  });
});

describe('outboundFetch through a forward proxy', () => {
  let srv: LocalHttp;
  let proxy: ForwardProxy;
  // The proxy reaches every test name at the local server; the resolver says what the names mean to the policy.
  const names = {
    'api.example.test': ['93.184.216.34', '2606:2800:220:1::1'],
    'metadata.example.test': ['169.254.169.254'],
    'mixed.example.test': ['93.184.216.34', '10.0.0.7'],
    'mapped.example.test': ['::ffff:127.0.0.1'],
    'internal.example.test': ['127.0.0.1'],
  };
  let resolver: ReturnType<typeof testResolver>;
  const through = (env: NodeJS.ProcessEnv, allowHosts: string[] = [], allowPrivate = false): OutboundPolicy => ({
    hosts: hostPolicy(allowHosts, allowPrivate),
    proxy: proxyFromEnv(env),
    lookup: resolver,
  });
  beforeEach(async () => {
    srv = await startLocalHttp();
    proxy = await startForwardProxy();
    for (const name of Object.keys(names)) proxy.hosts.set(name, srv.port);
    resolver = testResolver(names);
  });
  afterEach(async () => {
    await closeOutboundPools();
    await proxy.close();
    await srv.close();
  });

  it(
    'sends http requests through HTTP_PROXY once every address of the name is public; the proxy on loopback is ' +
      'never blocked',
    async () => {
      const r = await outboundFetch(
        'http://api.example.test/data?x=1',
        { headers: { accept: 'application/json' } },
        through({ HTTP_PROXY: proxy.url }),
      );
      expect(r.status).to.equal(200);
      expect(JSON.parse(r.body.toString())).to.deep.equal({ ok: true });
      expect(resolver.asked).to.deep.equal(['api.example.test']);
      expect(proxy.seen).to.deep.equal(['GET http://api.example.test/data?x=1']);
      expect(srv.seen[0]!.url).to.equal('/data?x=1');
    },
  );

  it('denies a name that resolves to a link-local, private or loopback address before the proxy sees it', async () => {
    const policy = through({ HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url });
    const metadata = await rejection(outboundFetch('http://metadata.example.test/latest/meta-data/', {}, policy));
    expect(metadata).to.be.instanceOf(OutboundDenied);
    expect(metadata.status).to.equal(400);
    expect(metadata.message)
      .to.match(/'metadata\.example\.test' \(169\.254\.169\.254\) denied \(linkLocal range\)/)
      .and.not.match(/meta-data/);
    const mixed = await rejection(outboundFetch('http://mixed.example.test/', {}, policy));
    expect(mixed).to.be.instanceOf(OutboundDenied);
    expect(mixed.message).to.match(/10\.0\.0\.7.*private range/);
    expect(await rejection(outboundFetch('http://mapped.example.test/', {}, policy))).to.be.instanceOf(OutboundDenied);
    expect(await rejection(outboundFetch('https://metadata.example.test/', {}, policy))).to.be.instanceOf(
      OutboundDenied,
    );
    expect(proxy.seen).to.deep.equal([]);
    expect(srv.seen).to.have.length(0);
  });

  it('gives the same denial through the proxy as directly', async () => {
    const direct = await rejection(
      outboundFetch(
        `http://metadata.example.test:${srv.port}/`,
        {},
        { hosts: hostPolicy([], false), proxy: NO_PROXY_CONFIG, lookup: resolver },
      ),
    );
    const proxied = await rejection(
      outboundFetch(`http://metadata.example.test:${srv.port}/`, {}, through({ HTTP_PROXY: proxy.url })),
    );
    expect(proxied).to.be.instanceOf(OutboundDenied);
    expect(direct).to.be.instanceOf(OutboundDenied);
    expect(proxied.message).to.equal(direct.message);
  });

  it('lets outbound_allow_hosts and outbound_allow_private open a name, without a lookup where nothing could be denied', async () => {
    expect(
      (
        await outboundFetch(
          'http://metadata.example.test/',
          {},
          through({ HTTP_PROXY: proxy.url }, ['metadata.example.test']),
        )
      ).status,
    ).to.equal(200);
    expect(
      (await outboundFetch('http://internal.example.test/', {}, through({ HTTP_PROXY: proxy.url }, [], true))).status,
    ).to.equal(200);
    expect(resolver.asked).to.deep.equal([]);
    expect(
      (await outboundFetch('http://mixed.example.test/', {}, through({ HTTP_PROXY: proxy.url }, ['10.0.0.0/24'])))
        .status,
    ).to.equal(200);
    expect(resolver.asked).to.deep.equal(['mixed.example.test']);
    expect(proxy.seen).to.have.length(3);
  });

  it('fails closed on a name that does not resolve here, since the policy cannot judge it', async () => {
    const err = await rejection(outboundFetch('http://unknown.example.test/', {}, through({ HTTP_PROXY: proxy.url })));
    expect(err).to.be.instanceOf(UpstreamFailed);
    expect(err.message).to.match(/'unknown\.example\.test' failed: ENOTFOUND/);
    expect(proxy.seen).to.deep.equal([]);
  });

  it('checks each redirect hop through the proxy again', async () => {
    srv.handler = (_req, res) => {
      res.writeHead(302, { location: 'http://metadata.example.test/latest/' });
      res.end();
    };
    const err = await rejection(outboundFetch('http://api.example.test/start', {}, through({ HTTP_PROXY: proxy.url })));
    expect(err).to.be.instanceOf(OutboundDenied);
    expect(proxy.seen).to.deep.equal(['GET http://api.example.test/start']);
  });

  it('still checks literal addresses and local names in the URL', async () => {
    const policy = through({ HTTP_PROXY: proxy.url });
    expect(await rejection(outboundFetch(`${srv.url}/`, {}, policy))).to.be.instanceOf(OutboundDenied);
    expect(await rejection(outboundFetch('http://localhost/', {}, policy))).to.be.instanceOf(OutboundDenied);
    expect(await rejection(outboundFetch('http://10.1.2.3/', {}, policy))).to.be.instanceOf(OutboundDenied);
    expect(resolver.asked).to.deep.equal([]);
    expect(proxy.seen).to.deep.equal([]);
  });

  it('tunnels https through HTTPS_PROXY with CONNECT', async () => {
    // The local target speaks plain HTTP, so the TLS handshake inside the tunnel fails; the CONNECT shows the route.
    const err = await rejection(
      outboundFetch('https://api.example.test/secure', { timeoutMs: 3000 }, through({ HTTPS_PROXY: proxy.url })),
    );
    expect(err).to.be.instanceOf(UpstreamFailed);
    expect(proxy.seen).to.deep.equal(['CONNECT api.example.test:443']);
  });

  it('goes direct for NO_PROXY hosts, their addresses checked at connect time', async () => {
    const env = { HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1,internal.example.test' };
    const r = await outboundFetch(`${srv.url}/direct`, {}, through(env, ['127.0.0.1']));
    expect(r.status).to.equal(200);
    expect(srv.seen[0]!.url).to.equal('/direct');
    const byName = await outboundFetch(
      `http://internal.example.test:${srv.port}/by-name`,
      {},
      through(env, ['127.0.0.1']),
    );
    expect(byName.status).to.equal(200);
    const denied = await rejection(outboundFetch(`http://internal.example.test:${srv.port}/denied`, {}, through(env)));
    expect(denied).to.be.instanceOf(OutboundDenied);
    expect(denied.message).to.match(/'internal\.example\.test' \(127\.0\.0\.1\) denied \(loopback range\)/);
    expect(proxy.seen).to.deep.equal([]);
    expect(srv.seen.map((s) => s.url)).to.deep.equal(['/direct', '/by-name']);
  });
});

describe('outboundFetch redirects across origins', () => {
  let first: LocalHttp;
  let second: LocalHttp;
  const LOOPBACK: OutboundPolicy = { hosts: hostPolicy(['127.0.0.1'], false), proxy: NO_PROXY_CONFIG };
  const SENT = {
    authorization: 'Bearer s3cret',
    cookie: 'sid=42',
    'x-api-key': 'k-123',
    accept: 'application/json',
    'accept-language': 'fr',
    'content-type': 'application/json',
  };
  beforeEach(async () => {
    first = await startLocalHttp();
    second = await startLocalHttp();
  });
  afterEach(async () => {
    await first.close();
    await second.close();
  });
  after(async () => {
    await closeOutboundPools();
  });

  const callerHeaders = (h: Record<string, unknown>) =>
    Object.fromEntries(
      Object.keys(SENT)
        .filter((k) => k in h)
        .map((k) => [k, h[k]]),
    );

  it('a 307 to another origin resends the method and body with only the safe headers', async () => {
    first.handler = (_req, res) => {
      res.writeHead(307, { location: `${second.url}/landing` });
      res.end();
    };
    const r = await outboundFetch(`${first.url}/start`, { method: 'POST', headers: SENT, body: '{"a":1}' }, LOOPBACK);
    expect(r.status).to.equal(200);
    expect(r.url).to.equal(`${second.url}/landing`);
    expect(callerHeaders(first.seen[0]!.headers)).to.deep.equal(SENT);
    const landed = second.seen[0]!;
    expect(landed).to.deep.include({ method: 'POST', url: '/landing', body: '{"a":1}' });
    expect(callerHeaders(landed.headers)).to.deep.equal({
      accept: 'application/json',
      'accept-language': 'fr',
      'content-type': 'application/json',
    });
    expect(landed.headers['user-agent']).to.equal('EddyDB');
  });

  it('a 302 after a POST to another origin sends a GET without body, credentials or custom headers', async () => {
    first.handler = (_req, res) => {
      res.writeHead(302, { location: `${second.url}/landing` });
      res.end();
    };
    await outboundFetch(`${first.url}/start`, { method: 'POST', headers: SENT, body: '{"a":1}' }, LOOPBACK);
    const landed = second.seen[0]!;
    expect(landed).to.deep.include({ method: 'GET', url: '/landing', body: '' });
    expect(callerHeaders(landed.headers)).to.deep.equal({ accept: 'application/json', 'accept-language': 'fr' });
  });

  it('keeps every header on a redirect within the origin', async () => {
    first.handler = (req, res) => {
      if (req.url === '/start') {
        res.writeHead(308, { location: '/again' });
        res.end();
        return;
      }
      res.writeHead(200);
      res.end();
    };
    await outboundFetch(`${first.url}/start`, { method: 'PUT', headers: SENT, body: 'x' }, LOOPBACK);
    expect(first.seen.map((s) => s.method)).to.deep.equal(['PUT', 'PUT']);
    expect(callerHeaders(first.seen[1]!.headers)).to.deep.equal(SENT);
    expect(first.seen[1]!.body).to.equal('x');
  });
});

describe('outboundFetch from https', function () {
  // A process of its own trusts the test certificate through NODE_EXTRA_CA_CERTS, as an operator trusts a private CA.
  this.timeout(30_000);
  let secure: LocalHttps;
  let plain: LocalHttp;
  before(async () => {
    secure = await startLocalHttps();
    plain = await startLocalHttp();
  });
  after(async () => {
    await secure.close();
    await plain.close();
  });

  /** The outcome of fetching each URL in turn, in a child process that trusts the test certificate. */
  const fetchInChild = (urls: string[]) =>
    new Promise<Array<Record<string, unknown>>>((resolve, reject) => {
      const jobs = JSON.stringify(
        urls.map((url) => ({
          url,
          request: { headers: { authorization: 'Bearer s3cret' } },
          allowHosts: ['127.0.0.1'],
        })),
      );
      const child = spawn(process.execPath, ['--import', 'tsx', 'spec/helpers/outbound-fetch-child.ts', jobs], {
        env: { ...process.env, NODE_EXTRA_CA_CERTS: secure.certFile },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
      });
      child.stderr.on('data', (c: Buffer) => {
        err += c.toString();
      });
      child.on('error', reject);
      child.on('close', () => {
        try {
          resolve(
            out
              .trim()
              .split('\n')
              .map((line) => JSON.parse(line) as Record<string, unknown>),
          );
        } catch {
          reject(new Error(`no outcome: ${out}${err}`));
        }
      });
    });

  it('follows a redirect within https, and refuses one from https to http before sending anything there', async () => {
    secure.handler = (req, res) => {
      if (req.url === '/start') {
        res.writeHead(302, { location: '/next' });
        res.end();
        return;
      }
      if (req.url === '/next') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(req.headers.authorization ?? 'no-auth');
        return;
      }
      res.writeHead(302, { location: `${plain.url}/clear` });
      res.end();
    };
    const [followed, refused] = await fetchInChild([`${secure.url}/start`, `${secure.url}/downgrade`]);
    expect(followed).to.deep.include({ status: 200, body: 'Bearer s3cret', url: `${secure.url}/next` });
    expect(refused).to.deep.include({ error: 'OutboundDenied', status: 400 });
    expect(refused!.message).to.match(/redirect from https '127\.0\.0\.1' to http '127\.0\.0\.1' refused/);
    expect(plain.seen).to.have.length(0);
    expect(secure.seen.map((s) => s.url)).to.deep.equal(['/start', '/next', '/downgrade']);
  });
});
