import { expect } from 'chai';
import http from 'node:http';
import { TestServer } from '../helpers/test-server.js';

interface Sse {
  events: Array<{ event: string; data: any }>;
  status: number;
  close(): void;
  ready: Promise<void>;
}

/** Opens an SSE stream with node:http and parses `event:` / `data:` frames the way the clients do. */
function open(url: string, token: string | null): Sse {
  const out: Sse = { events: [], status: 0, close: () => undefined, ready: Promise.resolve() };
  out.ready = new Promise((resolve) => {
    const req = http.get(
      url,
      { headers: { accept: 'text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) } },
      (res) => {
        out.status = res.statusCode ?? 0;
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buf += chunk;
          let i;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const frame = buf.slice(0, i);
            buf = buf.slice(i + 2);
            const event = /^event: (.*)$/m.exec(frame)?.[1] ?? 'message';
            const data = /^data: (.*)$/m.exec(frame)?.[1];
            out.events.push({ event, data: data ? JSON.parse(data) : undefined });
          }
          resolve();
        });
        res.on('end', resolve);
      },
    );
    out.close = () => req.destroy();
  });
  return out;
}

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('SSE subscriptions (GET /api/subscribe/{c})', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await TestServer.start({ sseHeartbeatMs: 100 });
  });
  afterEach(async () => {
    await t.stop();
  });

  it('sends subscribed first, then a mutation event per committed change, and heartbeats', async () => {
    const s = open(`${t.url}/api/subscribe/news`, await t.adminToken());
    await s.ready;
    expect(s.status).to.equal(200);
    expect(s.events[0]!.event).to.equal('subscribed');
    await t.request('POST', '/api/insert/news', { id: 'n1', title: 'hello' });
    await t.request('DELETE', '/api/delete/news/n1');
    await until(() => s.events.filter((e) => e.event === 'mutation').length === 2);
    const [ins, del] = s.events.filter((e) => e.event === 'mutation');
    expect(ins!.data).to.include({ collection: 'news', event: 'insert' });
    expect(ins!.data.record_ids).to.deep.equal(['n1']);
    expect(del!.data.event).to.equal('delete');
    await until(() => s.events.some((e) => e.event === 'heartbeat'));
    s.close();
  });

  it('filters by filter_field and filter_value (string comparison)', async () => {
    const s = open(`${t.url}/api/subscribe/orders?filter_field=status&filter_value=paid`, await t.adminToken());
    await s.ready;
    await t.request('POST', '/api/insert/orders', { status: 'open' });
    await t.request('POST', '/api/insert/orders', { status: 'paid' });
    await until(() => s.events.some((e) => e.event === 'mutation'));
    await new Promise((r) => setTimeout(r, 50));
    const muts = s.events.filter((e) => e.event === 'mutation');
    expect(muts).to.have.length(1);
    expect(muts[0]!.data.records.status.value).to.equal('paid');
    s.close();
  });

  it('answers 401 {code, message} without a token and 400 for a bad collection name', async () => {
    const s = open(`${t.url}/api/subscribe/news`, null);
    await s.ready;
    expect(s.status).to.equal(401);
    const bad = open(`${t.url}/api/subscribe/${encodeURIComponent('__proto__')}`, await t.adminToken());
    await bad.ready;
    expect(bad.status).to.equal(400);
  });

  it('releases the subscription when the client goes away', async () => {
    const s = open(`${t.url}/api/subscribe/gone`, await t.adminToken());
    await s.ready;
    expect(t.server.notifier.count()).to.equal(1);
    s.close();
    await until(() => t.server.notifier.count() === 0);
  });
});
