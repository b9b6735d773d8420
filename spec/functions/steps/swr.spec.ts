import { expect } from 'chai';
import { closeOutboundPools } from '../../../lib/outbound/index.js';
import { swrSettled } from '../../../lib/functions/index.js';
import { FunctionHarness, rejection } from '../../helpers/function-harness.js';
import { startLocalHttp, type LocalHttp } from '../../helpers/local-http.js';

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
    srv.handler = (_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(JSON.stringify({ v: version })); };
  });
  afterEach(async () => { await swrSettled(h.db.kv); await srv.close(); await h.close(); });
  after(async () => { await closeOutboundPools(); });

  const swr = (extra: Record<string, unknown> = {}) => ({ type: 'SWR', cache_key: 'user:1', ttl: '15m', url: `${srv.url}/users/1`, ...extra });

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
    const gate = new Promise<void>((r) => { release = r; });
    srv.handler = (_req, res) => { void gate.then(() => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(JSON.stringify({ v: version })); }); };
    const misses = Array.from({ length: 10 }, () => h.run([swr({ ttl: PAST })]));
    await new Promise((r) => setTimeout(r, 50));
    release();
    const results = await Promise.all(misses);
    expect(results.map((r) => (r.records[0]!.response as any).v)).to.deep.equal(new Array(10).fill(1));
    expect(srv.seen).to.have.length(1);

    let releaseAgain!: () => void;
    const gate2 = new Promise<void>((r) => { releaseAgain = r; });
    srv.handler = (_req, res) => { void gate2.then(() => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"v":3}'); }); };
    const stale = await Promise.all(Array.from({ length: 10 }, () => h.run([swr({ ttl: PAST })])));
    expect(stale.every((r) => (r.records[0]!.response as any).v === 1)).to.equal(true);
    releaseAgain();
    await swrSettled(h.db.kv);
    expect(srv.seen).to.have.length(2);
  });

  it('serves a non-2xx answer without failing or caching it', async () => {
    srv.handler = (_req, res) => { res.writeHead(404, { 'content-type': 'application/json' }); res.end('{"error":"not found"}'); };
    const r = await h.run([swr(), { type: 'Insert', collection: 'after', record: { ok: true } }]);
    expect(r.records[0]).to.include({ ok: true });
    expect(h.records('after')).to.have.length(1);
    expect(() => h.db.kv.get('swr:user:1')).to.throw(/not found/);
    await h.run([swr()]);
    expect(srv.seen).to.have.length(2);
  });

  it('fails a miss on a network failure, but keeps serving a stale entry when revalidation fails', async () => {
    await h.run([swr({ ttl: PAST })]);
    srv.handler = (_req, res) => { res.destroy(); };
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
    const err = await rejection(h.run([swr({ collection: 'swr_audit' }), { type: 'Insert', collection: 'x', record: '{{missing}}' }], {}, tx));
    expect(err.type).to.equal('Insert');
    expect(h.records('swr_audit')).to.have.length(0);
    expect(srv.seen).to.have.length(1);
    expect(JSON.parse(h.db.kv.get('swr:user:1') as string).data).to.deep.equal({ v: 1 });
    const ok = await h.run([swr({ collection: 'swr_audit' })], {}, tx);
    expect(ok.records[0]!.response).to.deep.equal({ v: 1 });
    expect(h.records('swr_audit')).to.have.length(1);
  });

  it('refuses missing members at save and a bad ttl at call time', async () => {
    expect(() => h.define({ label: 'a', functions: [{ type: 'SWR', url: 'http://x', ttl: 60 }] })).to.throw(/cache_key/);
    expect(() => h.define({ label: 'b', functions: [{ type: 'SWR', cache_key: 'k', url: 'http://x' }] })).to.throw(/ttl/);
    expect((await rejection(h.run([swr({ ttl: 'soon' })]))).message).to.match(/Invalid ttl/);
    expect(srv.seen).to.have.length(0);
  });
});
