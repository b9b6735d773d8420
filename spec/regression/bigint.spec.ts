/**
 * No number is silently changed. Integers beyond 2^53 sent
 * as JSON or MessagePack are stored as exact 64-bit Integers, found, sorted,
 * incremented and written back with their exact digits, across restarts;
 * anything that cannot hold them exactly is a 400 naming the field.
 */
import { expect } from 'chai';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { decode as mpDecode, encode as mpEncode } from '@msgpack/msgpack';
import { ADMIN_KEY, TestServer } from '../helpers/test-server.js';

const P53 = 9007199254740993n; // 2^53 + 1: the first integer a float cannot hold
const MIN = -(2n ** 63n);
const MAX = 2n ** 63n - 1n;

// The spec writes and reads big integers with its own small helpers, independent of the server's JSON code.
const BIG_MARK = /"@big:(-?\d+)"/g;
const toJson = (v: unknown) =>
  JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `@big:${x}` : x)).replace(BIG_MARK, '$1');
const fromJson = (text: string) =>
  JSON.parse(text.replace(/([:,[]\s*)(-?\d{16,})(?=\s*[,\]}])/g, '$1"@big:$2"'), (_k, x) =>
    typeof x === 'string' && x.startsWith('@big:') ? BigInt(x.slice(5)) : x,
  );

type Format = 'json' | 'msgpack';
interface Exact {
  status: number;
  text: string;
  body: any;
}

/** One request whose body is written and read exactly (bigints included), in JSON or MessagePack. */
async function send(
  t: TestServer,
  method: string,
  urlPath: string,
  body?: unknown,
  format: Format = 'json',
): Promise<Exact> {
  const type = format === 'msgpack' ? 'application/msgpack' : 'application/json';
  const headers = { 'Content-Type': type, Accept: type, Authorization: `Bearer ${await t.adminToken()}` };
  const payload =
    body === undefined
      ? undefined
      : format === 'msgpack'
        ? Buffer.from(mpEncode(body, { useBigInt64: true }))
        : toJson(body);
  const res = await fetch(t.url + urlPath, { method, headers, body: payload });
  const bytes = Buffer.from(await res.arrayBuffer());
  const text = bytes.toString('utf8');
  const isMsgpack = (res.headers.get('content-type') ?? '').includes('msgpack');
  const read = res.status >= 400 ? JSON.parse : fromJson; // error messages may quote long numbers
  return {
    status: res.status,
    text,
    body: bytes.length === 0 ? undefined : isMsgpack ? mpDecode(bytes, { useBigInt64: true }) : read(text),
  };
}

const cond = (field: string, operator: string, value: unknown) => ({
  type: 'Condition',
  content: { field, operator, value },
});

describe('regression: integers beyond 2^53 keep their exact value', function () {
  this.timeout(30_000);
  let t: TestServer;
  beforeEach(async () => {
    t = await TestServer.start();
  });
  afterEach(async () => {
    await t?.stop();
  });

  const RECORD = {
    a: P53,
    lo: MIN,
    hi: MAX,
    w: { type: 'Integer', value: MAX },
    o: { x: P53, y: [MIN] },
    arr: [MAX, 1],
  };

  function expectExactTyped(r: Exact): void {
    expect(r.status).to.equal(200);
    expect(r.body.a).to.deep.equal({ type: 'Integer', value: P53 });
    expect(r.body.lo).to.deep.equal({ type: 'Integer', value: MIN });
    expect(r.body.hi).to.deep.equal({ type: 'Integer', value: MAX });
    expect(r.body.w).to.deep.equal({ type: 'Integer', value: MAX });
    expect(r.body.o).to.deep.equal({ type: 'Object', value: { x: P53, y: [MIN] } });
    expect(r.body.arr).to.deep.equal({ type: 'Array', value: [MAX, 1] });
  }

  for (const format of ['json', 'msgpack'] as const) {
    it(`stores bare, wrapped and nested big integers sent as ${format} and reads them back exactly`, async () => {
      const ins = await send(t, 'POST', '/api/insert/big', RECORD, format);
      expect(ins.status, ins.text).to.equal(201);
      expectExactTyped(await send(t, 'GET', `/api/find/big/${ins.body.id}`, undefined, format));
    });
  }

  it('reads a MessagePack 64-bit int within ±(2^53 - 1) as an ordinary number', async () => {
    const ins = await send(t, 'POST', '/api/insert/small', { n: 5n, m: -(2n ** 40n), limit: 3n }, 'msgpack');
    expect(ins.status).to.equal(201);
    const read = await send(t, 'GET', `/api/find/small/${ins.body.id}`);
    expect(read.text).to.include('"n":{"type":"Integer","value":5},"m":{"type":"Integer","value":-1099511627776}');
    const found = await send(t, 'POST', '/api/find/small', { filter: cond('n', 'Eq', 5n), limit: 1n }, 'msgpack');
    expect(found.body).to.have.length(1);
  });

  it('writes the exact digits in the raw JSON text, typed and untyped', async () => {
    const id = (await send(t, 'POST', '/api/insert/big', RECORD)).body.id;
    const typed = (await send(t, 'GET', `/api/find/big/${id}`)).text;
    expect(typed).to.include('"a":{"type":"Integer","value":9007199254740993}');
    expect(typed).to.include('"lo":{"type":"Integer","value":-9223372036854775808}');
    expect(typed).to.include('"w":{"type":"Integer","value":9223372036854775807}');
    expect(typed).to.include('"o":{"type":"Object","value":{"x":9007199254740993,"y":[-9223372036854775808]}}');
    expect((await send(t, 'PUT', '/api/config', { use_typed_values: false })).status).to.equal(200);
    const untyped = (await send(t, 'GET', `/api/find/big/${id}`)).text;
    expect(untyped).to.include(
      '"a":9007199254740993,"lo":-9223372036854775808,"hi":9223372036854775807,"w":9223372036854775807',
    );
  });

  it('finds and sorts by exact value, with and without a btree or hash index', async () => {
    const values = [MAX, P53 + 1n, 5n, P53, MIN];
    for (const [i, n] of values.entries()) await send(t, 'POST', '/api/insert/nums', { id: `r${i}`, n });
    // The float 2^53 lies between 2^53 - 1 and 2^53 + 1, never equal to either.
    await send(t, 'POST', '/api/insert/nums', { id: 'float', n: { type: 'Float', value: 2 ** 53 } });
    const ids = async (body: unknown) => (await send(t, 'POST', '/api/find/nums', body)).body.map((r: any) => r.id);
    const check = async () => {
      expect(await ids({ filter: cond('n', 'Eq', P53) })).to.deep.equal(['r3']);
      expect(await ids({ filter: cond('n', 'Eq', MAX) })).to.deep.equal(['r0']);
      expect(await ids({ filter: cond('n', 'Gt', P53) })).to.have.members(['r0', 'r1']);
      expect(await ids({ filter: cond('n', 'Lt', P53) })).to.have.members(['r2', 'r4', 'float']);
      expect(await ids({ filter: cond('n', 'In', [MIN, P53 + 1n]) })).to.have.members(['r1', 'r4']);
      expect(await ids({ sort: [{ field: 'n', ascending: true }] })).to.deep.equal([
        'r4',
        'r2',
        'float',
        'r3',
        'r1',
        'r0',
      ]);
    };
    await check();
    for (const type of ['btree', 'hash']) {
      expect((await send(t, 'POST', '/api/indexes/query/nums', { field: 'n', type })).status).to.equal(201);
      const plan = (await send(t, 'POST', '/api/query/nums/explain', { filter: cond('n', 'Eq', P53) })).body.plan;
      expect(plan).to.deep.include({ type: 'index_scan', candidates: 1 });
      await check();
      expect((await send(t, 'DELETE', '/api/indexes/query/nums/n')).status).to.equal(200);
    }
  });

  it('increments exactly up to the 64-bit edge and refuses to overflow, leaving the record unchanged', async () => {
    const id = (await send(t, 'POST', '/api/insert/ctr', { n: MAX - 1n, m: 9007199254740991, lo: MIN })).body.id;
    const act = (action: string, field: string, value?: unknown) =>
      send(t, 'PUT', `/api/update/ctr/${id}/action/${action}`, { field, value });
    expect((await act('increment', 'n', 1)).body.n).to.deep.equal({ type: 'Integer', value: MAX });
    expect((await act('increment', 'm', 2)).body.m).to.deep.equal({ type: 'Integer', value: P53 });
    const over = await act('increment', 'n', 1);
    expect(over.status).to.equal(400);
    expect(over.body.error).to.contain('64-bit');
    expect((await act('decrement', 'lo', 1)).status).to.equal(400);
    expect((await act('multiply', 'n', 1.5)).status).to.equal(400);
    const read = await send(t, 'GET', `/api/find/ctr/${id}`);
    expect(read.body.n).to.deep.equal({ type: 'Integer', value: MAX });
    expect(read.body.lo).to.deep.equal({ type: 'Integer', value: MIN });
  });

  it('reads big integers back exactly after log replay and after a snapshot restart', async () => {
    const id = (await send(t, 'POST', '/api/insert/big', RECORD)).body.id;
    await send(t, 'POST', '/api/collections/bounded', { fields: { n: { field_type: 'Integer', max: MAX - 1n } } });
    // A copy of the live directory holds the log but no snapshot: starting on it replays the log.
    const copy = mkdtempSync(path.join(tmpdir(), 'eddydb-bigint-'));
    try {
      cpSync(t.dataDir, copy, { recursive: true });
      const replayed = await TestServer.start({ dataDir: copy });
      try {
        expectExactTyped(await send(replayed, 'GET', `/api/find/big/${id}`));
        expect((await send(replayed, 'POST', '/api/insert/bounded', { n: MAX })).status).to.equal(400);
      } finally {
        await replayed.stop();
      }
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
    const dir = t.dataDir;
    await t.stop({ keepData: true });
    t = await TestServer.start({ dataDir: dir });
    try {
      expectExactTyped(await send(t, 'GET', `/api/find/big/${id}`, undefined, 'msgpack'));
      expect((await send(t, 'POST', '/api/insert/bounded', { n: MAX })).status).to.equal(400);
    } finally {
      await t.stop();
      rmSync(dir, { recursive: true, force: true });
      t = undefined as unknown as TestServer;
    }
  });

  it('refuses an integer beyond 64 bits with a 400 naming the field, in JSON and MessagePack', async () => {
    const r = await send(t, 'POST', '/api/insert/big', { ok: 1, huge: 2n ** 64n });
    expect(r.status).to.equal(400);
    expect(r.body.error).to.contain("'huge'").and.to.contain('64-bit');
    const wrapped = await send(t, 'POST', '/api/insert/big', { w: { type: 'Integer', value: -(2n ** 63n) - 1n } });
    expect(wrapped.status).to.equal(400);
    expect(wrapped.body.error).to.contain("'w'");
    const mp = await send(t, 'POST', '/api/insert/big', { deep: { x: 2n ** 64n - 1n } }, 'msgpack');
    expect(mp.status).to.equal(400);
    expect(mp.body.error).to.contain('deep.x');
    expect((await send(t, 'GET', '/api/big/count')).body?.count ?? 0).to.equal(0);
  });

  it('refuses a big integer where a small number is required, naming the member', async () => {
    await send(t, 'POST', '/api/insert/lim', { n: 1 });
    for (const key of ['limit', 'skip']) {
      const r = await send(t, 'POST', '/api/find/lim', { [key]: MAX });
      expect(r.status).to.equal(400);
      expect(r.body.error).to.contain(key).and.to.contain('9223372036854775807');
    }
    const tx = await send(t, 'POST', '/api/transactions', { timeout_seconds: P53 });
    expect(tx.status).to.equal(400);
    expect(tx.body.error).to.contain('timeout_seconds');
    const ttl = await send(t, 'POST', '/api/insert/lim', { n: 2, ttl: P53 });
    expect(ttl.status).to.equal(400);
    expect(ttl.body.error).to.contain('ttl');
  });

  it('refuses a big integer a Float field or wrapper could not hold exactly, and keeps one it can', async () => {
    await send(t, 'POST', '/api/collections/floats', { fields: { f: { field_type: 'Float' } } });
    const bare = await send(t, 'POST', '/api/insert/floats', { f: P53 });
    expect(bare.status).to.equal(400);
    expect(bare.body.details[0]).to.include({ field: 'f', constraint: 'type', expected: 'Float' });
    const wrapped = await send(t, 'POST', '/api/insert/plain', { g: { type: 'Float', value: P53 } });
    expect(wrapped.status).to.equal(400);
    expect(wrapped.body.error).to.contain("'g'");
    for (const type of ['Number', 'Duration', 'DateTime']) {
      expect((await send(t, 'POST', '/api/insert/plain', { g: { type, value: P53 } })).status, type).to.equal(400);
    }
    expect((await send(t, 'POST', '/api/insert/plain', { v: { type: 'Vector', value: [1, P53] } })).status).to.equal(
      400,
    );
    // 2^60 is a float exactly, so a Float field keeps it; it is written back the way JS writes that float,
    // and that text is read again as the same float.
    const exact = await send(t, 'POST', '/api/insert/floats', { f: 2n ** 60n });
    expect(exact.status).to.equal(201);
    const written = (await send(t, 'GET', `/api/find/floats/${exact.body.id}`)).text;
    expect(written).to.include(`"f":{"type":"Float","value":${String(2 ** 60)}}`);
    const again = await send(t, 'POST', '/api/insert/floats', { f: BigInt(String(2 ** 60)) });
    expect(again.status).to.equal(201);
    const filter = { filter: cond('f', 'Eq', { type: 'Float', value: BigInt(String(2 ** 60)) }) };
    expect((await send(t, 'POST', '/api/find/floats', filter)).body).to.have.length(2);
  });

  it('compares a schema Integer field against big min and max exactly', async () => {
    const created = await send(t, 'POST', '/api/collections/bounds', {
      fields: { n: { field_type: 'Integer', min: P53, max: MAX - 1n } },
    });
    expect(created.status, created.text).to.equal(201);
    expect((await send(t, 'POST', '/api/insert/bounds', { n: P53 })).status).to.equal(201);
    expect((await send(t, 'POST', '/api/insert/bounds', { n: MAX - 1n })).status).to.equal(201);
    const over = await send(t, 'POST', '/api/insert/bounds', { n: MAX });
    expect(over.status).to.equal(400);
    expect(over.body.details[0]).to.include({ field: 'n', constraint: 'max' });
    expect(over.text).to.include('"actual":9223372036854775807');
    expect((await send(t, 'POST', '/api/insert/bounds', { n: P53 - 1n })).body.details[0]).to.include({
      constraint: 'min',
    });
    const schema = await send(t, 'GET', '/api/schemas/bounds');
    expect(schema.text).to.include('"max":9223372036854775806').and.to.include('"min":9007199254740993');
  });

  it('keeps big integers exact in the KV store, distinct values and a trash restore', async () => {
    expect((await send(t, 'POST', '/api/kv/set/k', { value: MAX })).status).to.equal(200);
    expect((await send(t, 'GET', '/api/kv/get/k')).text).to.equal(
      '{"value":{"type":"Integer","value":9223372036854775807}}',
    );
    await send(t, 'POST', '/api/kv/batch/set', { keys: ['a', 'b'], values: [MIN, { nested: P53 }] });
    expect((await send(t, 'POST', '/api/kv/batch/get', { keys: ['a', 'b'] })).text).to.equal(
      '[-9223372036854775808,{"nested":9007199254740993}]',
    );
    for (const n of [MAX, P53, 5n, MAX, P53 + 1n]) await send(t, 'POST', '/api/insert/d', { n });
    expect((await send(t, 'POST', '/api/distinct/d/n', {})).body.values).to.deep.equal([5, P53, P53 + 1n, MAX]);
    const id = (await send(t, 'POST', '/api/insert/tr', { n: MIN })).body.id;
    await send(t, 'DELETE', `/api/delete/tr/${id}`);
    expect((await send(t, 'POST', `/api/trash/tr/${id}`)).status).to.equal(200);
    expect((await send(t, 'GET', `/api/find/tr/${id}`)).body.n).to.deep.equal({ type: 'Integer', value: MIN });
  });

  it('ships big integers exactly to a ripple peer', async () => {
    const peer = await TestServer.start({ rippleMaxBackoffMs: 200 });
    try {
      t.server.ripples.setPeers([{ url: peer.url, key: ADMIN_KEY }]);
      const id = (await send(t, 'POST', '/api/insert/rip', { n: MAX, o: { m: MIN } })).body.id;
      await until(async () => (await send(peer, 'GET', `/api/find/rip/${id}`)).status === 200, 10_000);
      const read = await send(peer, 'GET', `/api/find/rip/${id}`);
      expect(read.body.n).to.deep.equal({ type: 'Integer', value: MAX });
      expect(read.body.o).to.deep.equal({ type: 'Object', value: { m: MIN } });
    } finally {
      t.server.ripples.setPeers([]);
      await peer.stop();
    }
  });

  it('sends exact digits in server-sent events', async () => {
    const frames: string[] = [];
    const req = http.get(
      `${t.url}/api/subscribe/sse`,
      { headers: { accept: 'text/event-stream', authorization: `Bearer ${await t.adminToken()}` } },
      (res) => {
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => frames.push(chunk));
      },
    );
    try {
      await until(() => frames.join('').includes('subscribed'));
      await send(t, 'POST', '/api/insert/sse', { id: 's1', n: MIN });
      await until(() => frames.join('').includes('s1'));
      expect(frames.join('')).to.include('-9223372036854775808');
    } finally {
      req.destroy();
    }
  });

  it('sends exact digits in WebSocket replies and mutation notifications', async () => {
    const ws = new WebSocket(t.url.replace('http', 'ws') + '/api/ws', {
      headers: { authorization: `Bearer ${await t.adminToken()}` },
    });
    const frames: string[] = [];
    ws.on('message', (d: Buffer) => frames.push(d.toString()));
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    try {
      ws.send(JSON.stringify({ type: 'Subscribe', messageId: 's', payload: { collection: 'feed' } }));
      await until(() => frames.some((f) => f.includes('"messageId":"s"')));
      ws.send(toJson({ type: 'Insert', messageId: 'i', payload: { collection: 'feed', record: { id: 'x', n: MAX } } }));
      await until(() => frames.some((f) => f.includes('MutationNotification')));
      ws.send(JSON.stringify({ type: 'FindById', messageId: 'f', payload: { collection: 'feed', id: 'x' } }));
      await until(() => frames.some((f) => f.includes('"messageId":"f"')));
      expect(frames.find((f) => f.includes('MutationNotification'))).to.include('9223372036854775807');
      expect(frames.find((f) => f.includes('"messageId":"f"'))).to.include(
        '"n":{"type":"Integer","value":9223372036854775807}',
      );
    } finally {
      ws.close();
    }
  });
});

describe('regression: 64-bit integers in MessagePack WebSocket frames', function () {
  this.timeout(30_000);
  it('reads and writes big integers as MessagePack int64 after a msgpack Hello', async () => {
    const t = await TestServer.start();
    const ws = new WebSocket(t.url.replace('http', 'ws') + '/api/ws', {
      headers: { authorization: `Bearer ${await t.adminToken()}` },
    });
    const frames: any[] = [];
    ws.on('message', (d: Buffer, binary: boolean) =>
      frames.push(binary ? mpDecode(d, { useBigInt64: true }) : JSON.parse(d.toString())),
    );
    try {
      await new Promise((resolve, reject) => {
        ws.once('open', resolve);
        ws.once('error', reject);
      });
      ws.send(JSON.stringify({ type: 'Hello', payload: { formats: ['msgpack'] } }));
      await until(() => frames.some((f) => f.type === 'Welcome'));
      expect(frames.find((f) => f.type === 'Welcome').payload.format).to.equal('msgpack');
      ws.send(
        Buffer.from(
          mpEncode(
            {
              type: 'Insert',
              messageId: 'i',
              payload: { collection: 'mp', record: { id: 'm', n: MIN, o: { x: P53 } } },
            },
            { useBigInt64: true },
          ),
        ),
      );
      await until(() => frames.some((f) => f.messageId === 'i'));
      ws.send(Buffer.from(mpEncode({ type: 'FindById', messageId: 'f', payload: { collection: 'mp', id: 'm' } })));
      await until(() => frames.some((f) => f.messageId === 'f'));
      const record = frames.find((f) => f.messageId === 'f').payload.data;
      expect(record.n).to.deep.equal({ type: 'Integer', value: MIN });
      expect(record.o).to.deep.equal({ type: 'Object', value: { x: P53 } });
    } finally {
      ws.close();
      await t.stop();
    }
  });
});

async function until(check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}
