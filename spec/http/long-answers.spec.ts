/**
 * Long reads through a real server: a find of many records is streamed in
 * chunks (record-list.ts, transport/streamed-body.ts) in JSON, MessagePack
 * and gzip, with the same records a short answer would carry; and while a
 * long find, distinct or count runs, point reads from another client are
 * answered before it ends (query/collection-scan.ts).
 */
import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import WebSocket from 'ws';
import { decode as mpDecode, encode as mpEncode } from '@msgpack/msgpack';
import { until } from '../helpers/until.js';
import { STREAM_MIN_RECORDS } from '../../lib/http/wire/record-list.js';
import { TestServer } from '../helpers/test-server.js';
import { startExpress } from '../helpers/raw-http.js';

const COUNT = STREAM_MIN_RECORDS * 3 + 7;

/** The raw answer to a find, as bytes, with its headers. */
function rawFind(
  t: TestServer,
  token: string,
  body: unknown,
  headers: Record<string, string>,
  base = t.url,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${base}/api/find/items`,
      {
        method: 'POST',
        agent: false,
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}`, ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('http: long answers are streamed, and long reads do not hold other clients', () => {
  let t: TestServer;
  let token: string;
  before(async function () {
    this.timeout(60_000);
    // A request naming a remote client in X-Forwarded-For is answered as one: compressed when it asks.
    t = await TestServer.start({ trustProxy: true });
    token = await t.adminToken();
    const records = Array.from({ length: COUNT }, (_, i) => ({
      n: i,
      tag: `t${i % 13}`,
      text: `record ${i} "quoted" \u00e9`,
    }));
    for (let i = 0; i < COUNT; i += 2_000) {
      const r = await t.request('POST', '/api/batch/insert/items', {
        inserts: records.slice(i, i + 2_000).map((data) => ({ data })),
      });
      expect(r.status).to.equal(201);
    }
  });
  after(async () => {
    await t.stop();
  });

  const ns = (rows: Array<Record<string, any>>) => rows.map((r) => (typeof r.n === 'object' ? r.n.value : r.n));

  it('streams a long JSON answer without a Content-Length, holding every record in order', async () => {
    const r = await rawFind(t, token, {}, { Accept: 'application/json' });
    expect(r.status).to.equal(200);
    expect(r.headers['content-length']).to.equal(undefined);
    expect(r.headers['transfer-encoding']).to.equal('chunked');
    const rows = JSON.parse(r.bytes.toString('utf8'));
    expect(rows).to.have.length(COUNT);
    expect(ns(rows)).to.deep.equal(Array.from({ length: COUNT }, (_, i) => i));
    expect(rows[5].text.value ?? rows[5].text).to.equal('record 5 "quoted" \u00e9');
  });

  it('streams MessagePack with the array header counting every record', async () => {
    const r = await rawFind(t, token, { limit: COUNT - 3 }, { Accept: 'application/msgpack' });
    expect(r.headers['content-type']).to.contain('msgpack');
    const rows = mpDecode(r.bytes) as Array<Record<string, any>>;
    expect(rows).to.have.length(COUNT - 3);
    expect(ns(rows).slice(-2)).to.deep.equal([COUNT - 5, COUNT - 4]);
  });

  it('gzips a streamed answer when asked, in JSON and MessagePack', async () => {
    const json = await rawFind(
      t,
      token,
      { select_fields: ['n'] },
      { Accept: 'application/json', 'Accept-Encoding': 'gzip', 'X-Forwarded-For': '203.0.113.7' },
    );
    expect(json.headers['content-encoding']).to.equal('gzip');
    const rows = JSON.parse(gunzipSync(json.bytes).toString('utf8'));
    expect(rows).to.have.length(COUNT);
    expect(Object.keys(rows[0]).sort()).to.deep.equal(['id', 'n']);
    const packed = await rawFind(
      t,
      token,
      {},
      {
        Accept: 'application/msgpack',
        'Accept-Encoding': 'gzip',
        'X-Forwarded-For': '203.0.113.7',
      },
    );
    expect((mpDecode(gunzipSync(packed.bytes)) as unknown[]).length).to.equal(COUNT);
  });

  it('answers a short list whole, with a Content-Length, as before', async () => {
    const r = await rawFind(t, token, { limit: 10 }, { Accept: 'application/json' });
    expect(r.headers['content-length']).to.equal(String(r.bytes.length));
    expect(JSON.parse(r.bytes.toString('utf8'))).to.have.length(10);
  });

  it('streams through the express adapter too', async () => {
    const app = await startExpress(t.server.dispatcher);
    try {
      const r = await rawFind(t, token, {}, { Accept: 'application/json' }, app.url);
      expect(JSON.parse(r.bytes.toString('utf8'))).to.have.length(COUNT);
    } finally {
      await app.close();
    }
  });

  /** One WebSocket request's reply and every message that came with it, in arrival order. */
  async function wsExchange(frames: Array<Record<string, unknown>>, msgpack: boolean): Promise<any[]> {
    const ws = new WebSocket(`${t.url.replace('http', 'ws')}/api/ws`, {
      headers: { authorization: `Bearer ${token}` },
    });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const got: any[] = [];
    ws.on('message', (d: Buffer, binary: boolean) => got.push(binary ? mpDecode(d) : JSON.parse(d.toString('utf8'))));
    if (msgpack) {
      ws.send(JSON.stringify({ type: 'Hello', payload: { formats: ['msgpack'] } }));
      await until('the Welcome', () => got.length === 1, 5_000);
    }
    for (const f of frames) ws.send(msgpack ? Buffer.from(mpEncode(f)) : JSON.stringify(f));
    const replies = frames.filter((f) => f.messageId !== undefined).length;
    await until('every reply', () => got.filter((m) => m.messageId !== undefined).length === replies, 20_000);
    ws.close();
    return got;
  }

  for (const msgpack of [false, true]) {
    it(
      `sends a long WebSocket reply as one message in fragments (${msgpack ? 'MessagePack' : 'JSON'}), other ` +
        `replies around it whole`,
      async () => {
        const got = await wsExchange(
          [
            { type: 'FindAll', messageId: 'all', payload: { collection: 'items' } },
            { type: 'Query', messageId: 'few', payload: { collection: 'items', limit: 2 } },
            { type: 'Query', messageId: 'bare', payload: { collection: 'items', limit: COUNT - 1 } },
          ],
          msgpack,
        );
        const byId = new Map(got.filter((m) => m.messageId !== undefined).map((m) => [m.messageId, m]));
        expect(byId.get('all').type).to.equal('Success');
        expect(ns(byId.get('all').payload.data)).to.deep.equal(Array.from({ length: COUNT }, (_, i) => i));
        expect(byId.get('few').payload.data).to.have.length(2);
        expect(byId.get('bare').payload.data).to.have.length(COUNT - 1);
      },
    );
  }

  it('stops rendering when the client goes away, and keeps serving', async () => {
    await new Promise<void>((resolve) => {
      const req = http.request(
        `${t.url}/api/find/items`,
        {
          method: 'POST',
          agent: false,
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        },
        (res) => {
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        },
      );
      req.end('{}');
    });
    const r = await t.request('POST', '/api/find/items', { limit: 1 });
    expect(r.status).to.equal(200);
  });
});

describe('http: long reads do not hold other clients', () => {
  // Enough records that each long request runs several slices (4 ms each) on a fast machine, warm from earlier specs.
  const BIG = 150_000;
  let t: TestServer;
  before(async function () {
    this.timeout(120_000);
    t = await TestServer.start();
    for (let i = 0; i < BIG; i += 5_000) {
      const inserts = Array.from({ length: 5_000 }, (_, k) => ({
        data: { n: i + k, text: `text ${((i + k) * 7919) % BIG}`, pad: 'x'.repeat(60) },
      }));
      expect((await t.request('POST', '/api/batch/insert/big', { inserts })).status).to.equal(201);
    }
  });
  after(async () => {
    await t.stop();
  });

  for (const [name, method, path, body] of [
    [
      'a find sorted by an unindexed field, limit 10',
      'POST',
      '/api/find/big',
      { sort: [{ field: 'text', ascending: false }], limit: 10 },
    ],
    ['a find of every record', 'POST', '/api/find/big', {}],
    [
      'a find with a filter over every record',
      'POST',
      '/api/find/big',
      { filter: { type: 'Condition', content: { field: 'n', operator: 'Gte', value: 50_000 } } },
    ],
    ['a distinct', 'POST', '/api/distinct/big/text', {}],
  ] as const) {
    it(`answers point reads from another client while ${name} runs`, async function () {
      this.timeout(60_000);
      const probe = (await t.request('POST', '/api/find/big', { limit: 1 })).body[0].id;
      // A read sent after the long request reaches the server is answered first only if the long one yields;
      // a fast machine may finish it before the first read arrives, so it is tried a few times.
      let answeredBefore = 0;
      for (let attempt = 0; attempt < 5 && answeredBefore === 0; attempt++) {
        let longDone = false;
        const long = t.request(method, path, body).then((r) => {
          longDone = true;
          return r;
        });
        await new Promise((r) => setTimeout(r, 2));
        while (!longDone && answeredBefore < 3) {
          const r = await t.request('GET', `/api/find/big/${probe}`);
          expect(r.status).to.equal(200);
          if (!longDone) answeredBefore += 1;
        }
        expect((await long).status).to.equal(200);
      }
      expect(answeredBefore, 'point reads answered before the long request ended').to.be.at.least(1);
    });
  }
});
