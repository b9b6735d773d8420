import { expect } from 'chai';
import WebSocket from 'ws';
import { decode as mpDecode, encode as mpEncode } from '@msgpack/msgpack';
import { TestServer } from '../helpers/test-server.js';

/** A WebSocket client that correlates replies by messageId and collects notifications. */
class Client {
  readonly notifications: any[] = [];
  private pending = new Map<string, (m: any) => void>();
  private n = 0;
  format: 'json' | 'msgpack' = 'json';
  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      const m = isBinary ? (mpDecode(data) as any) : JSON.parse(data.toString());
      if (m.type === 'Welcome') return;
      if (m.type === 'MutationNotification' || m.type === 'SchemaChanged') {
        this.notifications.push(m);
        return;
      }
      const cb = m.messageId !== undefined ? this.pending.get(m.messageId) : this.pending.values().next().value;
      if (cb) {
        this.pending.delete(m.messageId ?? [...this.pending.keys()][0]);
        cb(m);
      } else this.notifications.push(m);
    });
  }
  static async connect(url: string, opts: { token?: string; query?: string } = {}): Promise<Client> {
    const ws = new WebSocket(url.replace('http', 'ws') + '/api/ws' + (opts.query ?? ''), {
      headers: opts.token ? { authorization: `Bearer ${opts.token}` } : {},
    });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    return new Client(ws);
  }
  async hello(): Promise<any> {
    const reply = new Promise<any>((resolve) =>
      this.ws.once('message', (d: Buffer, bin: boolean) => resolve(bin ? null : JSON.parse(d.toString()))),
    );
    this.ws.send(JSON.stringify({ type: 'Hello', payload: { formats: ['msgpack', 'json'] } }));
    const w = await reply;
    if (w?.payload?.format === 'msgpack') this.format = 'msgpack';
    return w;
  }
  request(type: string, payload: unknown): Promise<any> {
    const messageId = `m${++this.n}`;
    const p = new Promise<any>((resolve) => this.pending.set(messageId, resolve));
    const frame = { type, messageId, payload };
    this.ws.send(this.format === 'msgpack' ? Buffer.from(mpEncode(frame)) : JSON.stringify(frame));
    return p;
  }
  raw(data: string | Buffer): Promise<any> {
    const p = new Promise<any>((resolve) => this.pending.set('__raw', resolve));
    this.ws.send(data);
    return p;
  }
  close(): void {
    this.ws.close();
  }
}

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('WebSocket transport (/api/ws)', function () {
  this.timeout(30_000);
  let t: TestServer;
  let token: string;
  beforeEach(async () => {
    t = await TestServer.start({ maxWsMessageBytes: 64 * 1024 });
    token = await t.adminToken();
  });
  afterEach(async () => {
    await t.stop();
  });

  it('rejects an upgrade without a valid token with 401, and accepts ?token=', async () => {
    let status = 0;
    const ws = new WebSocket(t.url.replace('http', 'ws') + '/api/ws');
    ws.on('unexpected-response', (_req, res) => {
      status = res.statusCode ?? 0;
      ws.terminate();
    });
    await new Promise((r) => {
      ws.on('close', r);
      ws.on('error', r);
    });
    expect(status).to.equal(401);
    const c = await Client.connect(t.url, { query: `?token=${token}` });
    expect((await c.request('GetCollections', {})).type).to.equal('Success');
    c.close();
  });

  it('answers Hello with a text Welcome and then speaks MessagePack', async () => {
    const c = await Client.connect(t.url, { token });
    const w = await c.hello();
    expect(w).to.deep.equal({ type: 'Welcome', payload: { format: 'msgpack' } });
    const r = await c.request('Insert', { collection: 'ws', record: { name: 'mp' } });
    expect(r.type).to.equal('Success');
    expect(r.messageId).to.equal('m1');
    expect(r.payload.data.id).to.be.a('string');
    c.close();
  });

  it('serves every request type with results and errors identical to HTTP', async () => {
    const c = await Client.connect(t.url, { token });
    expect((await c.request('CreateCollection', { name: 'people', schema: {} })).type).to.equal('Success');
    const ins = await c.request('Insert', { collection: 'people', record: { id: 'p1', name: 'Ann', age: 30 } });
    expect(ins.payload.data).to.deep.equal({ id: 'p1' });
    const byId = await c.request('FindById', { collection: 'people', id: 'p1' });
    const http = await t.request('GET', '/api/find/people/p1');
    expect(byId.payload.data).to.deep.equal(http.body);
    expect(
      (await c.request('Update', { collection: 'people', id: 'p1', record: { age: 31 } })).payload.data.age,
    ).to.deep.equal({ type: 'Integer', value: 31 });
    expect(
      (
        await c.request('UpdateWithAction', {
          collection: 'people',
          id: 'p1',
          action: 'increment',
          field: 'age',
          value: 1,
        })
      ).payload.data.age.value,
    ).to.equal(32);
    const batch = await c.request('BatchInsert', {
      collection: 'people',
      records: [
        { id: 'p2', name: 'Bo' },
        { id: 'p3', name: 'Cy' },
      ],
    });
    expect(batch.payload.data.successful).to.deep.equal(['p2', 'p3']);
    expect(
      (await c.request('BatchUpdate', { collection: 'people', updates: [['p2', { name: 'Bob' }]] })).payload.data
        .successful,
    ).to.deep.equal(['p2']);
    expect((await c.request('FindAll', { collection: 'people' })).payload.data).to.have.length(3);
    const q = await c.request('Query', {
      collection: 'people',
      filter: { type: 'Condition', content: { field: 'name', operator: 'StartsWith', value: 'B' } },
    });
    expect(q.payload.data.map((r: any) => r.id)).to.deep.equal(['p2']);
    expect(
      (await c.request('DistinctValues', { collection: 'people', field: 'name' })).payload.data.values,
    ).to.deep.equal(['Ann', 'Bob', 'Cy']);
    expect(
      (await c.request('BatchDelete', { collection: 'people', ids: ['p2', 'p3'] })).payload.data.successful,
    ).to.have.length(2);
    expect((await c.request('Delete', { collection: 'people', id: 'p1' })).type).to.equal('Success');
    const missing = await c.request('FindById', { collection: 'people', id: 'p1' });
    expect(missing).to.deep.equal({
      type: 'Error',
      code: 404,
      message: 'Record not found',
      messageId: missing.messageId,
      request_id: missing.request_id,
    });
    expect(missing.request_id).to.be.a('string');
    expect((await c.request('GetCollections', {})).payload.data).to.include('people');
    expect((await c.request('DeleteCollection', { name: 'people' })).type).to.equal('Success');
    c.close();
  });

  it('answers bad frames with Error and keeps the connection open', async () => {
    const c = await Client.connect(t.url, { token });
    const bad = await c.raw('{not json');
    expect(bad.type).to.equal('Error');
    expect(bad.code).to.equal(400);
    expect((await c.request('NoSuchType', {})).message).to.match(/Unknown message type/);
    const big = await c.request('Insert', { collection: 'x', record: { blob: 'x'.repeat(70 * 1024) } });
    expect(big.type).to.equal('Error');
    expect(
      (
        await c.raw(
          JSON.stringify({
            type: 'Insert',
            messageId: 'h',
            payload: { collection: 'x', record: { __proto__: 1 } },
          }).replace('"record":{}', '"record":{"__proto__":1}'),
        )
      ).type,
    ).to.equal('Error');
    expect((await c.request('GetCollections', {})).type).to.equal('Success');
    c.close();
  });

  it('notifies subscribers of inserts, updates, deletes and batches, after commit only', async () => {
    const c = await Client.connect(t.url, { token });
    await c.hello();
    const sub = await c.request('Subscribe', { collection: 'feed' });
    expect(sub.payload.data.subscription_id).to.match(/^sub_[0-9a-f]{32}$/);
    await t.request('POST', '/api/insert/feed', { id: 'a', v: 1 });
    await t.request('PUT', '/api/update/feed/a', { v: 2 });
    await t.request('POST', '/api/batch/insert/feed', { inserts: [{ data: { id: 'b' } }, { data: { id: 'c' } }] });
    await t.request('DELETE', '/api/delete/feed/a');
    const tx = (await t.request('POST', '/api/transactions', {})).body.transaction_id;
    await t.request('POST', `/api/insert/feed?transaction_id=${tx}`, { id: 'rolled-back' });
    await t.request('POST', `/api/transactions/${tx}/rollback`);
    const tx2 = (await t.request('POST', '/api/transactions', {})).body.transaction_id;
    await t.request('POST', `/api/insert/feed?transaction_id=${tx2}`, { id: 'committed' });
    await new Promise((r) => setTimeout(r, 50));
    expect(c.notifications.map((n) => n.payload.record_ids[0])).to.not.include('committed');
    await t.request('POST', `/api/transactions/${tx2}/commit`);
    await until(() => c.notifications.length === 5);
    const events = c.notifications.map((n) => [n.payload.event, n.payload.record_ids]);
    expect(events).to.deep.equal([
      ['insert', ['a']],
      ['update', ['a']],
      ['insert', ['b', 'c']],
      ['delete', ['a']],
      ['insert', ['committed']],
    ]);
    const first = c.notifications[0].payload;
    expect(first.collection).to.equal('feed');
    expect(first.records.v).to.deep.equal({ type: 'Integer', value: 1 });
    expect(first.timestamp).to.match(/\+00:00$/);
    expect(Array.isArray(c.notifications[2].payload.records)).to.equal(true);
    const un = await c.request('Unsubscribe', { collection: 'feed' });
    expect(un.payload.data).to.deep.equal({ collection: 'feed', found: true, unsubscribed: true });
    c.close();
  });

  it('filters notifications by field and sends SchemaChanged', async () => {
    const c = await Client.connect(t.url, { token });
    await c.request('Subscribe', { collection: 'f', filter_field: 'kind', filter_value: 'keep' });
    await t.request('POST', '/api/insert/f', { kind: 'drop' });
    await t.request('POST', '/api/insert/f', { kind: 'keep' });
    await t.request('PUT', '/api/schemas/f/primary-key-alias', { alias: 'kind' });
    await until(() => c.notifications.length === 2);
    expect(c.notifications[0].payload.records.kind.value).to.equal('keep');
    expect(c.notifications[1]).to.deep.include({ type: 'SchemaChanged' });
    expect(c.notifications[1].payload).to.include({ collection: 'f', primary_key_alias: 'kind' });
    c.close();
  });

  it('delivers every mutation in order to 100 concurrent subscribers', async () => {
    const clients = await Promise.all(Array.from({ length: 100 }, () => Client.connect(t.url, { token })));
    await Promise.all(clients.map((c) => c.request('Subscribe', { collection: 'fan' })));
    for (let i = 0; i < 30; i++) await t.request('POST', '/api/insert/fan', { id: `r${String(i).padStart(2, '0')}` });
    await until(() => clients.every((c) => c.notifications.length === 30), 10_000);
    const want = Array.from({ length: 30 }, (_, i) => `r${String(i).padStart(2, '0')}`);
    for (const c of clients) expect(c.notifications.map((n) => n.payload.record_ids[0])).to.deep.equal(want);
    for (const c of clients) c.close();
  });

  it('tells a consumer that stops reading that it is too slow, then drops it, and logs a warning', async () => {
    await t.stop();
    t = await TestServer.start({ maxQueuedBytes: 64 * 1024 });
    token = await t.adminToken();
    const c = await Client.connect(t.url, { token });
    await c.request('Subscribe', { collection: 'slow' });
    (c.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const closed = new Promise((r) => c.ws.on('close', r));
    // Batches make large notifications, enough to fill the loopback socket buffers quickly.
    const inserts = Array.from({ length: 100 }, () => ({ data: { blob: 'y'.repeat(8000) } }));
    for (let i = 0; i < 40 && t.server.notifier.count() > 0; i++)
      await t.request('POST', '/api/batch/insert/slow', { inserts });
    (c.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    await closed;
    expect(c.notifications.some((n) => n.type === 'Error' && /Slow consumer/.test(n.message))).to.equal(true);
    expect(t.server.notifier.count()).to.equal(0);
    const warned = t.logged.filter((l) => /dropped a slow WebSocket subscriber/.test(l.msg));
    expect(warned.map((l) => [l.level, l.extra])).to.deep.equal([['warn', { keyId: 'admin', collections: ['slow'] }]]);
  });
});
