/**
 * Prometheus metrics through real servers: GET /metrics after traffic over
 * HTTP and WebSocket, read with a strict reader of the exposition format;
 * every family there with sane values; labels that are route patterns, never
 * a path with an id; the admin token required on the API port; the metrics
 * port serving without one, on loopback unless told otherwise; and two
 * servers in one process each with their own figures.
 */
import { expect } from 'chai';
import { WebSocket } from 'ws';
import { ProviderFailed } from '../../../lib/errors.js';
import { ManualClock } from '../../../lib/engine/index.js';
import { hnswlibBuild } from '../../../lib/vector/index.js';
import { parsePrometheusText, valueOf, type Family } from '../../helpers/prometheus-text.js';
import { directory, ScriptedProvider } from '../../helpers/scripted-provider.js';
import { TestServer } from '../../helpers/test-server.js';

const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Scrapes `url` (a server's /metrics) with `token`, expecting 200 and the exposition format. */
async function scrape(url: string, token?: string): Promise<{ text: string; families: Map<string, Family> }> {
  const res = await fetch(url, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  const text = await res.text();
  expect(res.status, text).to.equal(200);
  expect(res.headers.get('content-type')).to.equal(CONTENT_TYPE);
  return { text, families: parsePrometheusText(text) };
}

const scrapeApi = async (t: TestServer) => scrape(`${t.url}/metrics`, await t.adminToken());

describe('http: Prometheus metrics', function () {
  this.timeout(20_000);
  const servers: TestServer[] = [];
  const start = async (...args: Parameters<typeof TestServer.start>) => {
    const t = await TestServer.start(...args);
    servers.push(t);
    return t;
  };
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((t) => t.stop()));
  });

  it('counts requests by route pattern, method and status, and never puts an id or a raw path in a label', async () => {
    const t = await start();
    const ids: string[] = [];
    for (const name of ['Ann', 'Bob', 'Cy']) {
      const r = await t.request('POST', '/api/insert/users', { name });
      expect(r.status).to.equal(201);
      ids.push(r.body.id);
    }
    for (const id of ids) expect((await t.request('GET', `/api/find/users/${id}`)).status).to.equal(200);
    expect((await t.request('GET', `/api/find/users/no-such-${ids[0]}`)).status).to.equal(404);
    expect((await t.request('GET', `/api/nowhere/${ids[1]}`)).status).to.equal(404);
    expect((await t.request('DELETE', `/api/kv/${ids[2]}-key`)).status).to.be.lessThan(500);

    const { text, families } = await scrapeApi(t);
    for (const id of ids) expect(text).not.to.contain(id);
    const requests = families.get('eddydb_http_requests_total')!;
    expect(requests.type).to.equal('counter');
    const total = (labels: Record<string, string>) => valueOf(families, 'eddydb_http_requests_total', labels);
    expect(total({ route: '/api/insert/:collection', method: 'POST', status: '201' })).to.equal(3);
    expect(total({ route: '/api/find/:collection/:id', method: 'GET', status: '200' })).to.equal(3);
    expect(total({ route: '/api/find/:collection/:id', method: 'GET', status: '404' })).to.equal(1);
    expect(total({ route: '(unmatched)', method: 'GET', status: '404' })).to.equal(1);
    const routes = new Set(requests.samples.map((s) => s.labels.route));
    for (const route of routes) expect(route === '(unmatched)' || route!.startsWith('/'), route).to.equal(true);
    for (const route of routes) expect(route).not.to.match(/\/(users|nowhere)\b/);

    const latency = families.get('eddydb_http_request_duration_seconds')!;
    expect(latency.type).to.equal('histogram');
    const reads = { route: '/api/find/:collection/:id', method: 'GET', status: '200' };
    expect(valueOf(families, 'eddydb_http_request_duration_seconds_count', reads)).to.equal(3);
    const seconds = valueOf(families, 'eddydb_http_request_duration_seconds_sum', reads)!;
    expect(seconds).to.be.greaterThan(0).and.lessThan(10);
  });

  it('counts a request the transport refused before routing it, without timing it', async () => {
    const t = await start({ memory: true });
    const res = await fetch(`${t.url}/api/insert/users`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ blob: 'x'.repeat(100 * 1024) }),
    });
    expect(res.status).to.equal(413);
    const { families } = await scrapeApi(t);
    const refused = { route: '(unmatched)', method: 'POST', status: '413' };
    expect(valueOf(families, 'eddydb_http_requests_total', refused)).to.equal(1);
    expect(valueOf(families, 'eddydb_http_request_duration_seconds_count', refused)).to.equal(0);
  });

  it('shows the engine: log appends and fsyncs, group sizes, queue depth, records, snapshots', async () => {
    const t = await start();
    await Promise.all(Array.from({ length: 20 }, (_, i) => t.request('POST', '/api/insert/items', { i })));
    await t.request('POST', '/api/insert/other', { x: 1 });
    expect((await t.request('POST', '/api/admin/snapshot')).status).to.equal(200);
    const { families } = await scrapeApi(t);

    const appends = valueOf(families, 'eddydb_log_append_seconds_count')!;
    expect(appends).to.be.greaterThan(0);
    expect(valueOf(families, 'eddydb_log_fsync_seconds_count')).to.be.greaterThan(0);
    expect(valueOf(families, 'eddydb_log_appended_bytes_total')).to.be.greaterThan(0);
    // Every write is in some group; groups are at most as many as appends.
    expect(valueOf(families, 'eddydb_write_group_writes_sum')).to.be.at.least(21);
    expect(valueOf(families, 'eddydb_write_group_writes_count')).to.equal(appends);
    expect(valueOf(families, 'eddydb_write_queue_depth')).to.equal(0);
    expect(valueOf(families, 'eddydb_collection_records', { collection: 'items' })).to.equal(20);
    expect(valueOf(families, 'eddydb_collection_records', { collection: 'other' })).to.equal(1);
    expect(valueOf(families, 'eddydb_snapshots_total', { outcome: 'success' })).to.equal(1);
    expect(valueOf(families, 'eddydb_snapshots_total', { outcome: 'failure' })).to.equal(0);
    expect(valueOf(families, 'eddydb_snapshot_duration_seconds_count')).to.equal(1);
    expect(valueOf(families, 'eddydb_snapshot_age_seconds')).to.be.at.least(0).and.lessThan(60);
  });

  it('tells the snapshot age on the engine clock, and none for a memory-only server', async () => {
    const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
    const t = await start({ clock });
    clock.advance(90_000);
    expect(valueOf((await scrapeApi(t)).families, 'eddydb_snapshot_age_seconds')).to.equal(90);
    await t.request('POST', '/api/admin/snapshot');
    clock.advance(5_000);
    expect(valueOf((await scrapeApi(t)).families, 'eddydb_snapshot_age_seconds')).to.equal(5);

    const memory = await start({ memory: true });
    const { families } = await scrapeApi(memory);
    expect(families.has('eddydb_snapshot_age_seconds')).to.equal(false);
    expect(valueOf(families, 'eddydb_log_append_seconds_count')).to.equal(0);
  });

  it('shows the process: heap, resident memory, event-loop delay, and the server version', async () => {
    const t = await start({ memory: true });
    await scrapeApi(t);
    const { families } = await scrapeApi(t);
    expect(valueOf(families, 'process_resident_memory_bytes')).to.be.greaterThan(1024 * 1024);
    expect(valueOf(families, 'nodejs_heap_size_used_bytes')).to.be.greaterThan(1024 * 1024);
    expect(families.has('nodejs_eventloop_lag_p99_seconds')).to.equal(true);
    for (const figure of ['p50', 'p99', 'max']) {
      const delay = valueOf(families, `eddydb_event_loop_delay_${figure}_seconds`);
      expect(delay, figure).to.be.at.least(0).and.lessThan(10);
    }
    expect(valueOf(families, 'eddydb_build_info', { version: '0.1.0', hnswlib: hnswlibBuild })).to.equal(1);
    for (const family of families.values()) expect(family.help, family.name).not.to.equal('');
  });

  it('counts WebSocket connections and subscriptions while they are open', async () => {
    const t = await start({ memory: true });
    const ws = new WebSocket(`${t.url.replace('http', 'ws')}/api/ws`, {
      headers: { authorization: `Bearer ${await t.adminToken()}` },
    });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const subscribed = new Promise((resolve) => ws.once('message', resolve));
    ws.send(JSON.stringify({ type: 'Subscribe', messageId: 'm1', payload: { collection: 'feed' } }));
    await subscribed;
    let { families } = await scrapeApi(t);
    expect(valueOf(families, 'eddydb_websocket_connections')).to.equal(1);
    expect(valueOf(families, 'eddydb_subscriptions')).to.equal(1);
    expect(valueOf(families, 'eddydb_http_requests_total', { route: '/api/ws', status: '101' })).to.equal(1);
    ws.close();
    await new Promise((resolve) => ws.once('close', resolve));
    for (let i = 0; i < 50 && valueOf(families, 'eddydb_websocket_connections') !== 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      ({ families } = await scrapeApi(t));
    }
    expect(valueOf(families, 'eddydb_websocket_connections')).to.equal(0);
    expect(valueOf(families, 'eddydb_subscriptions')).to.equal(0);
  });

  it('counts stored-function calls by label and outcome, never by id', async () => {
    const t = await start({ memory: true });
    const id = await t.saveFunction({
      label: 'add_item',
      functions: [{ type: 'Insert', collection: 'items', record: { n: 1 } }],
    });
    await t.saveFunction({
      label: 'needs_x',
      parameters: { x: { required: true } },
      functions: [{ type: 'Insert', collection: 'items', record: { x: '{{x}}' } }],
    });
    expect((await t.callFunction('add_item')).status).to.equal(200);
    expect((await t.request('POST', `/api/functions/${id}`, {})).status).to.equal(200);
    expect((await t.callFunction('needs_x')).status).to.equal(400);
    const { text, families } = await scrapeApi(t);
    expect(text).not.to.contain(id);
    const calls = (labels: Record<string, string>) => valueOf(families, 'eddydb_function_calls_total', labels);
    expect(calls({ function: 'add_item', outcome: 'success' })).to.equal(2);
    expect(calls({ function: 'needs_x', outcome: 'error' })).to.equal(1);
    expect(valueOf(families, 'eddydb_function_duration_seconds_count', { function: 'add_item' })).to.equal(2);
  });

  it('counts schedule runs by outcome', async () => {
    const clock = new ManualClock(Date.parse('2026-01-01T08:00:00Z'));
    const t = await start({ memory: true, clock, schedulerTickMs: 0, schedulerStopGraceMs: 50 });
    await t.saveFunction({ label: 'beat', functions: [{ type: 'Insert', collection: 'beats', record: { n: 1 } }] });
    const made = await t.request('POST', '/api/schedules', {
      name: 'often',
      cron: '* * * * * *',
      functionName: 'beat',
    });
    expect(made.status, made.text).to.equal(200);
    for (let i = 0; i < 2; i++) {
      clock.advance(1000);
      await t.server.scheduler.tick();
      await t.server.scheduler.idle();
    }
    const { families } = await scrapeApi(t);
    expect(valueOf(families, 'eddydb_schedule_runs_total', { outcome: 'success' })).to.equal(2);
    expect(valueOf(families, 'eddydb_schedule_runs_total', { outcome: 'failure' })).to.equal(0);
    expect(valueOf(families, 'eddydb_function_calls_total', { function: 'beat', outcome: 'success' })).to.equal(2);
  });

  it('times LLM provider calls, counts their tokens, and counts failures by kind', async () => {
    const provider = new ScriptedProvider('openai');
    const t = await start({ memory: true, providers: directory(provider, ['openai']) });
    const body = { system_prompt: 'be brief', message: 'three little words', provider: 'openai' };
    expect((await t.request('POST', '/api/chat/complete', body)).status).to.equal(200);
    provider.failWith = new ProviderFailed('slow down', 'provider_rate_limited', 'openai', 429);
    expect((await t.request('POST', '/api/chat/complete', body)).status).to.equal(429);
    const { families } = await scrapeApi(t);
    const labels = { provider: 'openai', operation: 'complete' };
    expect(valueOf(families, 'eddydb_chat_provider_duration_seconds_count', labels)).to.equal(1);
    const prompt = valueOf(families, 'eddydb_chat_provider_tokens_total', { provider: 'openai', direction: 'prompt' });
    expect(prompt).to.be.greaterThan(0);
    const kind = { provider: 'openai', kind: 'provider_rate_limited' };
    expect(valueOf(families, 'eddydb_chat_provider_errors_total', kind)).to.equal(1);
  });

  it('shows ripple lag per peer, labelled by its URL without credentials', async () => {
    // A peer that refuses connections: nothing is acknowledged, so the lag is every batch committed.
    const t = await start({
      ripplePeers: [{ url: 'http://ops:secret@127.0.0.1:9/', key: 'k' }],
      rippleMaxBackoffMs: 50,
    });
    for (let i = 0; i < 3; i++) await t.request('POST', '/api/insert/r', { i });
    const { text, families } = await scrapeApi(t);
    expect(text).not.to.contain('secret');
    expect(valueOf(families, 'eddydb_ripple_lag_batches', { peer: 'http://127.0.0.1:9' })).to.be.at.least(3);
  });

  it('refuses GET /metrics without a token (401) and to a key that is not an admin (403)', async () => {
    const t = await start({ memory: true });
    expect((await fetch(`${t.url}/metrics`)).status).to.equal(401);
    const user = await t.userToken();
    expect((await fetch(`${t.url}/metrics`, { headers: { Authorization: `Bearer ${user}` } })).status).to.equal(403);
  });

  it('serves the metrics port without a token, on loopback by default, and nothing else there', async () => {
    const t = await start({ memory: true, metricsPort: 0 });
    expect(t.server.metrics.address?.address).to.equal('127.0.0.1');
    const base = `http://127.0.0.1:${t.server.metrics.address!.port}`;
    await t.request('POST', '/api/insert/users', { name: 'Ann' });
    const { families } = await scrape(`${base}/metrics`);
    const inserts = { route: '/api/insert/:collection', method: 'POST', status: '201' };
    expect(valueOf(families, 'eddydb_http_requests_total', inserts)).to.equal(1);
    expect((await fetch(`${base}/api/health`)).status).to.equal(404);
    expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).to.equal(405);
    expect(t.logged.some((l) => l.msg.includes(`${base}/metrics`))).to.equal(true);
  });

  it('listens on the metrics host it is given', async () => {
    const t = await start({ memory: true, metricsPort: 0, metricsHost: '::1' });
    expect(t.server.metrics.address?.address).to.equal('::1');
    await scrape(`http://[::1]:${t.server.metrics.address!.port}/metrics`);
  });

  it('keeps each server of a process to its own figures', async () => {
    const a = await start({ memory: true });
    const b = await start({ memory: true });
    for (let i = 0; i < 4; i++) await a.request('POST', '/api/insert/only_a', { i });
    const [fromA, fromB] = [(await scrapeApi(a)).families, (await scrapeApi(b)).families];
    const inserts = { route: '/api/insert/:collection', method: 'POST', status: '201' };
    expect(valueOf(fromA, 'eddydb_http_requests_total', inserts)).to.equal(4);
    expect(valueOf(fromB, 'eddydb_http_requests_total', inserts)).to.equal(undefined);
    expect(valueOf(fromA, 'eddydb_collection_records', { collection: 'only_a' })).to.equal(4);
    expect(valueOf(fromB, 'eddydb_collection_records', { collection: 'only_a' })).to.equal(undefined);
  });
});
