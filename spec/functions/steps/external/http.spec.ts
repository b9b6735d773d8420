import { expect } from 'chai';
import { closeOutboundPools } from '../../../../lib/outbound/index.js';
import { swrSettled } from '../../../../lib/functions/index.js';
import { FunctionHarness, rejection } from '../../../helpers/function-harness.js';
import { startLocalHttp, type LocalHttp } from '../../../helpers/local-http.js';
import { startForwardProxy } from '../../../helpers/forward-proxy.js';

describe('functions: HttpRequest step', () => {
  let h: FunctionHarness;
  let srv: LocalHttp;
  beforeEach(async () => {
    h = await FunctionHarness.open();
    await h.db.updateSettings({ outbound_allow_hosts: ['127.0.0.1'] });
    srv = await startLocalHttp();
  });
  afterEach(async () => {
    await srv.close();
    await h.close();
  });
  after(async () => {
    await closeOutboundPools();
  });

  it('writes the body to http_response (JSON parsed) and the status and headers beside it, usable by later steps', async () => {
    srv.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'x-rate': '5' });
      res.end('{"title":"hello","n":9007199254740993}');
    };
    const r = await h.run(
      [
        { type: 'HttpRequest', url: `${srv.url}/posts/{{id}}`, headers: { accept: 'application/json' } },
        {
          type: 'Insert',
          collection: 'cache',
          record: {
            title: '{{http_response.title}}',
            status: '{{http_response_status}}',
            raw: '{{http_response}}',
            rate: '{{http_response_headers.x-rate}}',
          },
        },
      ],
      { id: 7 },
    );
    expect(srv.seen[0]).to.deep.include({ method: 'GET', url: '/posts/7' });
    expect(srv.seen[0]!.headers.accept).to.equal('application/json');
    const rec = h.records('cache')[0]!;
    expect(rec).to.include({ title: 'hello', status: 200, rate: '5' });
    expect(rec.raw).to.deep.equal({ title: 'hello', n: 9007199254740993n });
    expect(r.records).to.have.length(1);
  });

  it('caches the body itself with KvSet of {{http_response}}, as the official SWR example does', async () => {
    srv.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id":1,"name":"Leanne Graham"}');
    };
    const r = await h.run([
      { type: 'HttpRequest', url: `${srv.url}/users/1`, method: 'GET', headers: { Accept: 'application/json' } },
      { type: 'KvSet', key: 'api:user:1', value: '{{http_response}}', ttl: 300 },
      { type: 'KvGet', key: 'api:user:1' },
      { type: 'Project', fields: ['value'], exclude: false },
    ]);
    expect(r.records).to.deep.equal([{ value: { id: 1, name: 'Leanne Graham' } }]);
  });

  it('keeps a non-JSON body as text and a non-2xx answer as an answer', async () => {
    srv.handler = (_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<h1>missing</h1>');
    };
    const r = await h.run([{ type: 'HttpRequest', url: `${srv.url}/nope`, output_field: 'resp' }]);
    expect(r.records[0]).to.deep.include({ resp: '<h1>missing</h1>', resp_status: 404 });
    expect((r.records[0]!.resp_headers as Record<string, string>)['content-type']).to.equal('text/html');
  });

  it('adds the response to every working record, sending once', async () => {
    await h.db.session(undefined).insert('users', { name: 'a' });
    await h.db.session(undefined).insert('users', { name: 'b' });
    const r = await h.run([
      { type: 'FindAll', collection: 'users' },
      { type: 'HttpRequest', url: `${srv.url}/x`, output_field: 'out.res' },
    ]);
    expect(r.records.map((x: any) => [x.name, x.out.res.ok, x.out.res_status])).to.have.deep.members([
      ['a', true, 200],
      ['b', true, 200],
    ]);
    expect(srv.seen).to.have.length(1);
  });

  it('sends a JSON body with its content type, a text body as it is, and the method given', async () => {
    await h.run(
      [
        { type: 'HttpRequest', url: srv.url, method: 'POST', body: { name: '{{name}}', tags: ['a'] } },
        {
          type: 'HttpRequest',
          url: srv.url,
          method: 'put',
          body: 'plain {{name}}',
          headers: { 'content-type': 'text/plain' },
        },
      ],
      { name: 'Ann' },
    );
    expect(srv.seen.map((s) => [s.method, s.headers['content-type'], s.body])).to.deep.equal([
      ['POST', 'application/json', '{"name":"Ann","tags":["a"]}'],
      ['PUT', 'text/plain', 'plain Ann'],
    ]);
  });

  it('fails the step on a timeout, a refused destination and an oversized body', async () => {
    srv.handler = () => undefined;
    const slow = await rejection(h.run([{ type: 'HttpRequest', url: srv.url, timeout_seconds: 0.2 }]));
    expect(slow.status).to.equal(504);
    expect(slow.type).to.equal('HttpRequest');
    const denied = await rejection(h.run([{ type: 'HttpRequest', url: 'http://169.254.169.254/latest/meta-data/' }]));
    expect(denied.status).to.equal(400);
    expect(denied.message).to.match(/denied/);
    srv.handler = (_req, res) => {
      res.writeHead(200, { 'content-length': String(11 * 1024 * 1024) });
      res.end();
    };
    const big = await rejection(h.run([{ type: 'HttpRequest', url: srv.url }]));
    expect(big.status).to.equal(502);
  });

  it("bounds its timeout by the call's remaining wall time", async () => {
    srv.handler = () => undefined;
    h.bounds = { maxSteps: 1000, maxRecords: 1000, maxMs: 300 };
    const started = Date.now();
    const err = await rejection(h.run([{ type: 'HttpRequest', url: srv.url, timeout_seconds: 60 }]));
    expect(err.status).to.equal(504);
    expect(Date.now() - started).to.be.lessThan(3000);
  });

  it('denies loopback when the allow-list is empty', async () => {
    await h.db.updateSettings({ outbound_allow_hosts: [] });
    const err = await rejection(h.run([{ type: 'HttpRequest', url: srv.url }]));
    expect(err.message).to.match(/'127\.0\.0\.1' denied/);
    expect(srv.seen).to.have.length(0);
  });

  it('refuses bad members at save time and bad values at call time', () => {
    expect(() => h.define({ label: 'a', functions: [{ type: 'HttpRequest' }] })).to.throw(
      /functions\[0\]: missing required member .url./,
    );
    expect(() =>
      h.define({ label: 'b', functions: [{ type: 'HttpRequest', url: 'http://x', output_field: '__proto__' }] }),
    ).to.throw(/forbidden/);
    expect(() =>
      h.define({
        label: 'c',
        transaction_config: { enabled: true, auto_rollback: true },
        functions: [{ type: 'HttpRequest', url: 'http://x' }],
      }),
    ).to.throw(/cannot take part in a transactional function/);
  });

  it('rejects a timeout beyond the maximum and non-string headers', async () => {
    expect((await rejection(h.run([{ type: 'HttpRequest', url: srv.url, timeout_seconds: 301 }]))).message).to.match(
      /at most 300/,
    );
    expect(
      (await rejection(h.run([{ type: 'HttpRequest', url: srv.url, headers: { a: { b: 1 } } }]))).message,
    ).to.match(/header 'a'/);
  });

  it('goes through HTTP_PROXY from the environment', async () => {
    const proxy = await startForwardProxy();
    proxy.hosts.set('api.example.test', srv.port);
    // Only the proxy knows this name; listed by name, it is not resolved here before the proxy (outbound-fetch.spec
    // covers that check).
    await h.db.updateSettings({ outbound_allow_hosts: ['127.0.0.1', 'api.example.test'] });
    const saved = process.env.HTTP_PROXY;
    process.env.HTTP_PROXY = proxy.url;
    try {
      const r = await h.run([{ type: 'HttpRequest', url: 'http://api.example.test/users?page=2' }]);
      expect(r.records[0]!.http_response_status).to.equal(200);
      expect(proxy.seen).to.deep.equal(['GET http://api.example.test/users?page=2']);
    } finally {
      if (saved === undefined) delete process.env.HTTP_PROXY;
      else process.env.HTTP_PROXY = saved;
      await closeOutboundPools();
      await proxy.close();
    }
  });
});

const PAST = '2020-01-01T00:00:00Z';

describe('functions: SWR step', () => {
  let h: FunctionHarness;
  let srv: LocalHttp;
  let version: number;
  beforeEach(async () => {
    h = await FunctionHarness.open();
    await h.db.updateSettings({ outbound_allow_hosts: ['127.0.0.1'] });
    srv = await startLocalHttp();
    version = 1;
    srv.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ v: version }));
    };
  });
  afterEach(async () => {
    await swrSettled(h.db.kv);
    await srv.close();
    await h.close();
  });
  after(async () => {
    await closeOutboundPools();
  });

  const swr = (extra: Record<string, unknown> = {}) => ({
    type: 'SWR',
    cache_key: 'user:1',
    ttl: '15m',
    url: `${srv.url}/users/1`,
    ...extra,
  });

  it('fetches on a miss, caches in the KV store, and serves fresh entries without a request', async () => {
    const first = await h.run([swr()]);
    expect(first.records[0]!.response).to.deep.equal({ v: 1 });
    const stored = JSON.parse(h.db.kv.get('swr:user:1') as string);
    expect(stored).to.include({ status: 200 });
    expect(stored.data).to.deep.equal({ v: 1 });
    expect(stored.expires_at - stored.cached_at).to.equal(15 * 60 * 1000);
    version = 2;
    const second = await h.run([swr({ output_field: 'user' })]);
    expect(second.records[0]!.user).to.deep.equal({ v: 1 });
    expect(srv.seen).to.have.length(1);
  });

  it('serves a stale entry at once and revalidates it in the background', async () => {
    await h.run([swr({ ttl: PAST })]);
    version = 2;
    const stale = await h.run([swr({ ttl: PAST })]);
    expect(stale.records[0]!.response).to.deep.equal({ v: 1 });
    await swrSettled(h.db.kv);
    expect(srv.seen).to.have.length(2);
    expect(JSON.parse(h.db.kv.get('swr:user:1') as string).data).to.deep.equal({ v: 2 });
    const next = await h.run([swr({ ttl: PAST })]);
    expect(next.records[0]!.response).to.deep.equal({ v: 2 });
  });

  it('never runs two fetches for one key: concurrent misses share one, concurrent stale calls revalidate once', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    srv.handler = (_req, res) => {
      void gate.then(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ v: version }));
      });
    };
    const misses = Array.from({ length: 10 }, () => h.run([swr({ ttl: PAST })]));
    await new Promise((r) => setTimeout(r, 50));
    release();
    const results = await Promise.all(misses);
    expect(results.map((r) => (r.records[0]!.response as any).v)).to.deep.equal(new Array(10).fill(1));
    expect(srv.seen).to.have.length(1);

    let releaseAgain!: () => void;
    const gate2 = new Promise<void>((r) => {
      releaseAgain = r;
    });
    srv.handler = (_req, res) => {
      void gate2.then(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"v":3}');
      });
    };
    const stale = await Promise.all(Array.from({ length: 10 }, () => h.run([swr({ ttl: PAST })])));
    expect(stale.every((r) => (r.records[0]!.response as any).v === 1)).to.equal(true);
    releaseAgain();
    await swrSettled(h.db.kv);
    expect(srv.seen).to.have.length(2);
  });

  it('serves a non-2xx answer without failing or caching it', async () => {
    srv.handler = (_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"not found"}');
    };
    const r = await h.run([swr(), { type: 'Insert', collection: 'after', record: { ok: true } }]);
    expect(r.records[0]).to.include({ ok: true });
    expect(h.records('after')).to.have.length(1);
    expect(() => h.db.kv.get('swr:user:1')).to.throw(/not found/);
    await h.run([swr()]);
    expect(srv.seen).to.have.length(2);
  });

  it('fails a miss on a network failure, but keeps serving a stale entry when revalidation fails', async () => {
    await h.run([swr({ ttl: PAST })]);
    srv.handler = (_req, res) => {
      res.destroy();
    };
    const stale = await h.run([swr({ ttl: PAST })]);
    expect(stale.records[0]!.response).to.deep.equal({ v: 1 });
    await swrSettled(h.db.kv);
    expect(JSON.parse(h.db.kv.get('swr:user:1') as string).data).to.deep.equal({ v: 1 });
    const miss = await rejection(h.run([swr({ cache_key: 'other' })]));
    expect(miss.status).to.equal(502);
    expect(miss.type).to.equal('SWR');
  });

  it('writes an audit record to collection', async () => {
    await h.run([swr({ collection: 'swr_audit' })]);
    await h.run([swr({ collection: 'swr_audit' })]);
    const audit = h.records('swr_audit');
    expect(audit.map((a) => a.cache)).to.have.members(['miss', 'hit']);
    expect(audit[0]).to.include({ cache_key: 'user:1', status: 200 });
    expect(audit[0]!.data).to.deep.equal({ v: 1 });
    expect(audit[0]!.cached_at!.constructor.name).to.equal('Tagged');
  });

  it('in a transactional function: the audit write is rolled back with it, the HTTP call and the cache are not', async () => {
    const tx = { transaction_config: { enabled: true, auto_rollback: true } };
    const err = await rejection(
      h.run([swr({ collection: 'swr_audit' }), { type: 'Insert', collection: 'x', record: '{{missing}}' }], {}, tx),
    );
    expect(err.type).to.equal('Insert');
    expect(h.records('swr_audit')).to.have.length(0);
    expect(srv.seen).to.have.length(1);
    expect(JSON.parse(h.db.kv.get('swr:user:1') as string).data).to.deep.equal({ v: 1 });
    const ok = await h.run([swr({ collection: 'swr_audit' })], {}, tx);
    expect(ok.records[0]!.response).to.deep.equal({ v: 1 });
    expect(h.records('swr_audit')).to.have.length(1);
  });

  it('refuses missing members at save and a bad ttl at call time', async () => {
    expect(() => h.define({ label: 'a', functions: [{ type: 'SWR', url: 'http://x', ttl: 60 }] })).to.throw(
      /cache_key/,
    );
    expect(() => h.define({ label: 'b', functions: [{ type: 'SWR', cache_key: 'k', url: 'http://x' }] })).to.throw(
      /ttl/,
    );
    expect((await rejection(h.run([swr({ ttl: 'soon' })]))).message).to.match(/Invalid ttl/);
    expect(srv.seen).to.have.length(0);
  });
});
