/**
 * The express adapter serves EddyDB's routes from an existing express app,
 * through the same Dispatcher as the fastify server, so every answer
 * (successes and errors) is identical on both.
 */
import type { AddressInfo } from 'node:net';
import type { Server as NodeServer } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import express from 'express';
import { decode as mpDecode, encode as mpEncode } from '@msgpack/msgpack';
import { createConsoleHandler, createExpressHandler } from '../../lib/http/index.js';
import { ADMIN_KEY, TestServer } from '../helpers/test-server.js';

interface Answer {
  status: number;
  contentType: string;
  headers: Headers;
  body: unknown;
  text: string;
}

interface Call {
  method: string;
  path: string;
  body?: unknown;
  raw?: string | Buffer;
  format?: 'json' | 'msgpack';
  token?: string | null;
  headers?: Record<string, string>;
}

/** One request to `base`, encoded and decoded the way the clients do. */
/** An express app serving `t`'s dispatcher (plus `extra` routes) on an ephemeral port. */
async function mountExpress(
  t: TestServer,
  extra?: (app: express.Express) => void,
): Promise<{ server: NodeServer; url: string }> {
  const app = express();
  app.use(createExpressHandler(t.server.dispatcher));
  extra?.(app);
  const server = await new Promise<NodeServer>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function send(base: string, c: Call, adminToken: string): Promise<Answer> {
  const type = c.format === 'msgpack' ? 'application/msgpack' : 'application/json';
  const headers: Record<string, string> = {
    'Content-Type': type,
    Accept: type,
    'Accept-Encoding': 'identity',
    ...c.headers,
  };
  const token = c.token === undefined ? adminToken : c.token;
  if (token) headers.Authorization = `Bearer ${token}`;
  let payload = c.raw;
  if (payload === undefined && c.body !== undefined)
    payload = c.format === 'msgpack' ? Buffer.from(mpEncode(c.body)) : JSON.stringify(c.body);
  const res = await fetch(base + c.path, { method: c.method, headers, body: payload });
  const bytes = Buffer.from(await res.arrayBuffer());
  const contentType = res.headers.get('content-type') ?? '';
  const text = bytes.toString('utf8');
  let body: unknown;
  if (bytes.length > 0) body = contentType.includes('msgpack') ? mpDecode(bytes) : JSON.parse(text);
  return { status: res.status, contentType, headers: res.headers, body, text };
}

/** The message of an internal error names a per-request id; nothing else differs between requests. */
/** What must be the same from both: the status, the media type, and the body less its request id (one per request). */
function comparable(a: Answer): { status: number; contentType: string; body: unknown } {
  const body = a.body as Record<string, unknown> | null;
  const { request_id: _id, ...rest } = body !== null && typeof body === 'object' ? body : { request_id: undefined };
  return {
    status: a.status,
    contentType: a.contentType.replace(/\s+/g, ''),
    body: body !== null && typeof body === 'object' && !Array.isArray(body) ? rest : body,
  };
}

describe('express adapter', () => {
  let t: TestServer;
  let httpServer: NodeServer;
  let expressUrl: string;
  let admin: string;

  before(async () => {
    t = await TestServer.start();
    ({ server: httpServer, url: expressUrl } = await mountExpress(t));
    admin = await t.adminToken();
  });

  after(async () => {
    await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    await t.stop();
  });

  const viaExpress = (c: Call) => send(expressUrl, c, admin);
  const viaFastify = (c: Call) => send(t.url, c, admin);

  it('exchanges an API key for a token', async () => {
    const r = await viaExpress({ method: 'POST', path: '/api/auth/token', body: { api_key: ADMIN_KEY }, token: null });
    expect(r.status).to.equal(200);
    expect((r.body as { token: string }).token.split('.')).to.have.length(3);
    const token = (r.body as { token: string }).token;
    const used = await viaFastify({ method: 'GET', path: '/api/config', token });
    expect(used.status).to.equal(200);
  });

  it('serves /api/health without a token', async () => {
    const r = await viaExpress({ method: 'GET', path: '/api/health', token: null });
    expect(r.status).to.equal(200);
    expect(r.body).to.include({ status: 'ok' });
  });

  it('inserts over JSON and MessagePack and finds the records through either server', async () => {
    const json = await viaExpress({
      method: 'POST',
      path: '/api/insert/via_express',
      body: { name: 'a', at: '2026-01-01T00:00:00Z' },
    });
    expect(json.status).to.equal(201);
    const mp = await viaExpress({
      method: 'POST',
      path: '/api/insert/via_express',
      body: { name: 'b', n: 2 },
      format: 'msgpack',
    });
    expect(mp.status).to.equal(201);
    expect(mp.contentType).to.contain('application/msgpack');
    const id = (json.body as { id: string }).id;
    const byExpress = await viaExpress({ method: 'GET', path: `/api/find/via_express/${id}` });
    expect(byExpress.status).to.equal(200);
    expect(byExpress.body).to.deep.equal({
      id,
      name: { type: 'String', value: 'a' },
      at: { type: 'DateTime', value: '2026-01-01T00:00:00+00:00' },
    });
    expect(comparable(byExpress)).to.deep.equal(
      comparable(await viaFastify({ method: 'GET', path: `/api/find/via_express/${id}` })),
    );
    const found = await viaExpress({
      method: 'POST',
      path: '/api/find/via_express',
      body: { filter: { type: 'Condition', content: { field: 'name', operator: 'Eq', value: 'b' } } },
    });
    expect(found.status).to.equal(200);
    expect(found.body).to.have.length(1);
    const mpFind = await viaExpress({
      method: 'GET',
      path: `/api/find/via_express/${(mp.body as { id: string }).id}`,
      format: 'msgpack',
    });
    expect((mpFind.body as Record<string, unknown>).n).to.deep.equal({ type: 'Integer', value: 2 });
  });

  it('adds rate-limit headers the same way', async () => {
    const token = await t.userToken({ name: 'limited', rate_limit: 5 });
    const r = await viaExpress({ method: 'GET', path: '/api/config', token });
    expect(r.headers.get('x-ratelimit-limit')).to.equal('5');
    expect(r.headers.get('x-ratelimit-remaining')).to.equal('4');
    expect(r.headers.get('x-ratelimit-reset')).to.match(/^\d+$/);
  });

  const ERROR_CASES: Array<[string, Call]> = [
    ['an unknown route', { method: 'GET', path: '/api/nope' }],
    ['a wrong method', { method: 'DELETE', path: '/api/health' }],
    ['a missing token', { method: 'GET', path: '/api/config', token: null }],
    ['a garbage token', { method: 'GET', path: '/api/config', token: 'garbage' }],
    ['an invalid API key', { method: 'POST', path: '/api/auth/token', body: { api_key: 'wrong' }, token: null }],
    ['malformed JSON', { method: 'POST', path: '/api/insert/errs', raw: '{"a":' }],
    [
      'malformed MessagePack',
      { method: 'POST', path: '/api/insert/errs', raw: Buffer.from([0x82, 0xa1]), format: 'msgpack' },
    ],
    [
      'an unsupported content type',
      { method: 'POST', path: '/api/insert/errs', raw: '<a/>', headers: { 'Content-Type': 'text/xml' } },
    ],
    [
      'an unparsable content type',
      { method: 'POST', path: '/api/insert/errs', raw: '{"a":1}', headers: { 'Content-Type': 'foo' } },
    ],
    [
      'a content type of only a comma',
      { method: 'POST', path: '/api/find/errs', raw: '{}', headers: { 'Content-Type': ',' } },
    ],
    [
      'a list of content types',
      {
        method: 'POST',
        path: '/api/kv/set/errs',
        raw: '{"value":1}',
        headers: { 'Content-Type': 'application/json, application/msgpack' },
      },
    ],
    [
      'a list of content types on the token exchange',
      {
        method: 'POST',
        path: '/api/auth/token',
        raw: '{"api_key":"x"}',
        token: null,
        headers: { 'Content-Type': 'application/json, application/msgpack' },
      },
    ],
    ['an unknown method', { method: 'PURGE', path: '/api/health' }],
    ['a __proto__ key', { method: 'POST', path: '/api/insert/errs', raw: '{"__proto__":{"polluted":true}}' }],
    ['an invalid collection name', { method: 'POST', path: '/api/insert/a%2Fb', body: { a: 1 } }],
    ['bad percent-encoding', { method: 'GET', path: '/api/find/errs/%E0%A4%A' }],
    ['a missing record', { method: 'GET', path: '/api/find/errs/missing' }],
    ['an existing collection', { method: 'POST', path: '/api/collections/via_express' }],
    [
      'a schema violation',
      { method: 'POST', path: '/api/collections/errs_schema', body: { fields: { a: { required: true } } } },
    ],
    ['a bad config patch', { method: 'PUT', path: '/api/config', body: { nope: 1 } }],
  ];

  for (const [why, c] of ERROR_CASES) {
    it(`answers ${why} exactly as fastify does`, async () => {
      const e = await viaExpress(c);
      const f = await viaFastify(c);
      expect(e.status).to.be.within(400, 499);
      expect(comparable(e)).to.deep.equal(comparable(f));
      expect(e.headers.get('retry-after')).to.equal(f.headers.get('retry-after'));
    });
  }

  it('answers a non-admin key on an admin route exactly as fastify does', async () => {
    const token = await t.userToken({ name: 'plain' });
    const c: Call = { method: 'GET', path: '/api/collections', token };
    const e = await viaExpress(c);
    expect(e.status).to.equal(403);
    expect(comparable(e)).to.deep.equal(comparable(await viaFastify(c)));
  });

  it('answers an exceeded rate limit exactly as fastify does, with Retry-After', async () => {
    const token = await t.userToken({ name: 'tiny', rate_limit: 1 });
    await viaExpress({ method: 'GET', path: '/api/config', token });
    const e = await viaExpress({ method: 'GET', path: '/api/config', token });
    const f = await viaFastify({ method: 'GET', path: '/api/config', token });
    expect(e.status).to.equal(429);
    expect(comparable(e)).to.deep.equal(comparable(f));
    expect(e.headers.get('retry-after')).to.equal(f.headers.get('retry-after'));
  });

  it('leaves paths outside /api to the rest of the express app', async () => {
    const { server: s, url: base } = await mountExpress(t, (app) =>
      app.get('/hello', (_req, res) => {
        res.json({ hello: 'world' });
      }),
    );
    try {
      expect(await (await fetch(`${base}/hello`)).json()).to.deep.equal({ hello: 'world' });
      expect((await send(base, { method: 'GET', path: '/api/health', token: null }, admin)).status).to.equal(200);
    } finally {
      await new Promise<void>((resolve) => s.close(() => resolve()));
    }
  });

  it("serves the browser console at the root when asked to, after the app's own routes", async () => {
    const consoleDir = mkdtempSync(path.join(tmpdir(), 'eddydb-console-'));
    writeFileSync(path.join(consoleDir, 'index.html'), '<!doctype html><title>console</title>');
    const { server: s, url: base } = await mountExpress(t, (app) => {
      app.get('/hello', (_req, res) => {
        res.json({ hello: 'world' });
      });
      app.use(createConsoleHandler(consoleDir));
    });
    try {
      const page = await fetch(`${base}/collections/people`, { headers: { Accept: 'text/html' } });
      expect(page.status).to.equal(200);
      expect(page.headers.get('content-security-policy')).to.include("default-src 'self'");
      expect(await page.text()).to.include('<title>console</title>');
      const hello = await fetch(`${base}/hello`, { headers: { Accept: 'text/html' } });
      expect(await hello.json()).to.deep.equal({ hello: 'world' });
      const api = await send(base, { method: 'GET', path: '/api/health', token: null }, admin);
      expect(api.status).to.equal(200);
    } finally {
      await new Promise<void>((resolve) => s.close(() => resolve()));
      rmSync(consoleDir, { recursive: true, force: true });
    }
  });
});

describe('express adapter body limit', () => {
  let t: TestServer;
  let httpServer: NodeServer;
  let expressUrl: string;

  before(async () => {
    t = await TestServer.start({ bodyLimitBytes: 1024 });
    ({ server: httpServer, url: expressUrl } = await mountExpress(t));
  });

  after(async () => {
    await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    await t.stop();
  });

  it('answers an oversized body exactly as fastify does, and writes nothing', async () => {
    const admin = await t.adminToken();
    const c: Call = { method: 'POST', path: '/api/insert/big', body: { text: 'x'.repeat(4000) } };
    const e = await send(expressUrl, c, admin);
    const f = await send(t.url, c, admin);
    expect(e.status).to.equal(413);
    expect(comparable(e)).to.deep.equal(comparable(f));
    expect((await send(t.url, { method: 'GET', path: '/api/collections' }, admin)).body).to.deep.equal({
      collections: [],
    });
  });

  it('answers an oversized body without a token, or to an unknown route, exactly as fastify does', async () => {
    const admin = await t.adminToken();
    for (const c of [
      { method: 'POST', path: '/api/insert/big', body: { text: 'x'.repeat(4000) }, token: null },
      { method: 'POST', path: '/api/nope', body: { text: 'x'.repeat(4000) } },
    ] as Call[]) {
      const e = await send(expressUrl, c, admin);
      expect(e.status, c.path).to.equal(413);
      expect(comparable(e)).to.deep.equal(comparable(await send(t.url, c, admin)));
    }
  });

  it('accepts a body just under the limit', async () => {
    const r = await send(
      expressUrl,
      { method: 'POST', path: '/api/insert/small', body: { text: 'x'.repeat(900) } },
      await t.adminToken(),
    );
    expect(r.status).to.equal(201);
  });
});

describe('express adapter: server-sent events', () => {
  let t: TestServer;
  let httpServer: NodeServer;
  let expressUrl: string;

  before(async () => {
    t = await TestServer.start();
    ({ server: httpServer, url: expressUrl } = await mountExpress(t));
  });

  after(async () => {
    httpServer.closeAllConnections();
    await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    await t.stop();
  });

  it('serves the subscription stream as fastify does: subscribed, then a mutation per change, released on close', async () => {
    const ac = new AbortController();
    const res = await fetch(`${expressUrl}/api/subscribe/viaexpress?token=${await t.adminToken()}`, {
      signal: ac.signal,
    });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/event-stream');
    const reader = res.body!.getReader();
    let text = '';
    const until = async (part: string) => {
      while (!text.includes(part)) text += new TextDecoder().decode((await reader.read()).value);
    };
    await until('event: subscribed');
    await t.request('POST', '/api/insert/viaexpress', { id: 'e1' });
    await until('event: mutation');
    expect(text).to.contain('"record_ids":["e1"]');
    ac.abort();
    for (let i = 0; i < 100 && t.server.notifier.count() > 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(t.server.notifier.count()).to.equal(0);
  });

  it('serves a POSTed chat stream (data frames) as fastify does', async () => {
    const res = await fetch(`${expressUrl}/api/chat/complete/stream`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await t.adminToken()}`,
        'content-type': 'application/json',
        accept: 'text/event-stream',
      },
      body: JSON.stringify({ system_prompt: '', message: 'via express' }),
    });
    expect(res.status).to.equal(200);
    const data = (await res.text())
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)));
    expect(data.at(-1)).to.include({ content: 'Question: via express\nNo context was found.', done: true });
  });
});
