/**
 * End-to-end specs for the wire conventions of protocol.md 1.1-1.7 and 2.16:
 * typed values over JSON and MessagePack, bare ids, gzip, non-empty bodies,
 * DELETE bodies, percent-encoded segments and the config routes.
 */
import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import { Unpackr } from 'msgpackr';
import { decode as mpDecode, encode as mpEncode } from '@msgpack/msgpack';
import { TestServer, type RequestOptions } from '../helpers/test-server.js';

/** A raw request over node:http, which leaves Content-Encoding alone. */
function rawGet(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(chunks) }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** A raw JSON POST over node:http, which leaves Content-Encoding alone. */
function rawPost(
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const UUID = '123e4567-e89b-12d3-a456-426614174000';

/** Sent value -> expected typed output, with binary output given as byte arrays. */
const TYPED_CASES: Array<{ name: string; sent: unknown; type: string; value: unknown }> = [
  { name: 'String', sent: { type: 'String', value: 'héllo' }, type: 'String', value: 'héllo' },
  { name: 'bare string', sent: 'plain', type: 'String', value: 'plain' },
  { name: 'bare UUID-looking string', sent: UUID, type: 'String', value: UUID },
  { name: 'bare base64-looking string', sent: 'AQID/w==', type: 'String', value: 'AQID/w==' },
  { name: 'Integer', sent: { type: 'Integer', value: 42 }, type: 'Integer', value: 42 },
  { name: 'bare integer', sent: -7, type: 'Integer', value: -7 },
  { name: 'Float', sent: { type: 'Float', value: 99.99 }, type: 'Float', value: 99.99 },
  { name: 'whole Float', sent: { type: 'Float', value: 60 }, type: 'Float', value: 60 },
  { name: 'bare float', sent: 0.5, type: 'Float', value: 0.5 },
  { name: 'Number', sent: { type: 'Number', value: 3 }, type: 'Number', value: 3 },
  { name: 'fractional Number', sent: { type: 'Number', value: 2.25 }, type: 'Number', value: 2.25 },
  { name: 'Boolean', sent: { type: 'Boolean', value: false }, type: 'Boolean', value: false },
  { name: 'bare boolean', sent: true, type: 'Boolean', value: true },
  {
    name: 'Array',
    sent: { type: 'Array', value: [1, 'a', { x: 1 }, [2]] },
    type: 'Array',
    value: [1, 'a', { x: 1 }, [2]],
  },
  { name: 'bare array', sent: [0.1, 0.2], type: 'Array', value: [0.1, 0.2] },
  {
    name: 'Object',
    sent: { type: 'Object', value: { a: 1, b: { c: [1, 'x'] } } },
    type: 'Object',
    value: { a: 1, b: { c: [1, 'x'] } },
  },
  { name: 'bare object', sent: { value: 1, currency: 'USD' }, type: 'Object', value: { value: 1, currency: 'USD' } },
  {
    name: 'bare RFC 3339 string',
    sent: '2026-07-14T13:50:18.375Z',
    type: 'DateTime',
    value: '2026-07-14T13:50:18.375+00:00',
  },
  {
    name: 'bare RFC 3339 string with nanoseconds',
    sent: '2026-07-14T13:50:18.123456789Z',
    type: 'DateTime',
    value: '2026-07-14T13:50:18.123456789+00:00',
  },
  {
    name: 'bare RFC 3339 string with an offset',
    sent: '2026-07-14T15:50:18.5+02:00',
    type: 'DateTime',
    value: '2026-07-14T13:50:18.5+00:00',
  },
  {
    name: 'DateTime',
    sent: { type: 'DateTime', value: '2026-01-02T03:04:05Z' },
    type: 'DateTime',
    value: '2026-01-02T03:04:05+00:00',
  },
  {
    name: 'DateTime of a year before 100',
    sent: '0050-06-01T12:00:00Z',
    type: 'DateTime',
    value: '0050-06-01T12:00:00+00:00',
  },
  {
    name: 'DateTime on a leap day',
    sent: '2024-02-29T00:00:00Z',
    type: 'DateTime',
    value: '2024-02-29T00:00:00+00:00',
  },
  {
    name: 'bare string with an impossible date',
    sent: '2023-02-29T00:00:00Z',
    type: 'String',
    value: '2023-02-29T00:00:00Z',
  },
  { name: 'Decimal', sent: { type: 'Decimal', value: '1234.5600' }, type: 'Decimal', value: '1234.5600' },
  {
    name: 'long Decimal',
    sent: { type: 'Decimal', value: '12345678901234567890.000000000001' },
    type: 'Decimal',
    value: '12345678901234567890.000000000001',
  },
  { name: 'UUID', sent: { type: 'UUID', value: UUID }, type: 'UUID', value: UUID },
  { name: 'Vector', sent: { type: 'Vector', value: [0.1, -0.2, 3] }, type: 'Vector', value: [0.1, -0.2, 3] },
  { name: 'Set', sent: { type: 'Set', value: [1, 2, 2, 3, 'a', 'a', 1] }, type: 'Set', value: [1, 2, 3, 'a'] },
  { name: 'Binary', sent: { type: 'Binary', value: 'AQID/w==' }, type: 'Binary', value: [1, 2, 3, 255] },
  { name: 'Bytes', sent: { type: 'Bytes', value: 'AAEC' }, type: 'Bytes', value: [0, 1, 2] },
  { name: 'Duration in ms', sent: { type: 'Duration', value: 1500 }, type: 'Duration', value: 1500 },
  {
    name: 'Duration as {secs, nanos}',
    sent: { type: 'Duration', value: { secs: 2, nanos: 500 } },
    type: 'Duration',
    value: { secs: 2, nanos: 500 },
  },
  { name: 'Null', sent: { type: 'Null', value: null }, type: 'Null', value: null },
  { name: 'bare null', sent: null, type: 'Null', value: null },
];

function isBinary(type: string): boolean {
  return type === 'Binary' || type === 'Bytes';
}

describe('wire format over HTTP', () => {
  let t: TestServer;
  let call: TestServer['request'];
  before(async () => {
    // Behind a proxy: a request naming a remote client in X-Forwarded-For is answered as one (gzip below).
    t = await TestServer.start({ trustProxy: true });
    call = t.request.bind(t);
  });
  after(async () => {
    await t.stop();
  });

  for (const format of ['json', 'msgpack'] as const) {
    describe(`typed values over ${format}`, () => {
      let read: Record<string, any>;
      let listed: Record<string, any>;
      let id: string;
      before(async () => {
        const record: Record<string, unknown> = { id: `typed-${format}` };
        TYPED_CASES.forEach((c, i) => {
          record[`f${i}`] = c.sent;
        });
        const ins = await call('POST', `/api/insert/typed_${format}`, record, { format });
        expect(ins.status, ins.text).to.equal(201);
        id = ins.body.id;
        read = (await call('GET', `/api/find/typed_${format}/${id}`, undefined, { format })).body;
        listed = (await call('POST', `/api/find/typed_${format}`, {}, { format })).body[0];
      });

      it('returns only {id} from insert, with the client-supplied id', () => {
        expect(id).to.equal(`typed-${format}`);
      });

      it('keeps id bare in reads', () => {
        expect(read.id).to.equal(`typed-${format}`);
        expect(listed.id).to.equal(`typed-${format}`);
      });

      TYPED_CASES.forEach((c, i) => {
        it(`round-trips ${c.name} as {type: ${c.type}}`, () => {
          for (const got of [read[`f${i}`], listed[`f${i}`]]) {
            expect(got).to.have.all.keys('type', 'value');
            expect(got.type).to.equal(c.type);
            if (isBinary(c.type) && format === 'msgpack') {
              expect(got.value).to.be.instanceOf(Uint8Array);
              expect(Array.from(got.value as Uint8Array)).to.deep.equal(c.value);
            } else {
              expect(got.value).to.deep.equal(c.value);
            }
          }
        });
      });
    });
  }

  it('refuses a typed DateTime that is not a real instant with 400', async () => {
    for (const value of ['2024-04-31T00:00:00Z', '0000-01-01T00:00:00+01:00', 12.5e99, 'soon']) {
      const r = await call('POST', '/api/insert/bad_dates', { at: { type: 'DateTime', value } });
      expect(r.status, String(value)).to.equal(400);
    }
  });

  it('accepts binary sent as MessagePack bin and as a byte array', async () => {
    const ins = await call(
      'POST',
      '/api/insert/bins',
      {
        raw: Buffer.from([9, 8, 7]),
        arr: { type: 'Bytes', value: [4, 5] },
        bin: { type: 'Binary', value: Buffer.from([1]) },
      },
      { format: 'msgpack' },
    );
    expect(ins.status).to.equal(201);
    const json = await call('GET', `/api/find/bins/${ins.body.id}`);
    expect(json.body.raw).to.deep.equal({ type: 'Binary', value: [9, 8, 7] });
    expect(json.body.arr).to.deep.equal({ type: 'Bytes', value: [4, 5] });
    expect(json.body.bin).to.deep.equal({ type: 'Binary', value: [1] });
  });

  it('round-trips 64-bit integers over MessagePack exactly and refuses larger ones instead of rounding', async () => {
    const ok = await call(
      'POST',
      '/api/insert/bigints',
      { n: Number.MAX_SAFE_INTEGER, m: -Number.MAX_SAFE_INTEGER },
      { format: 'msgpack' },
    );
    expect(ok.status).to.equal(201);
    const read = await call('GET', `/api/find/bigints/${ok.body.id}`, undefined, { format: 'msgpack' });
    expect(read.body.n).to.deep.equal({ type: 'Integer', value: Number.MAX_SAFE_INTEGER });
    expect(read.body.m).to.deep.equal({ type: 'Integer', value: -Number.MAX_SAFE_INTEGER });
    for (const big of [2n ** 53n + 1n, 2n ** 63n - 1n, -(2n ** 63n)]) {
      const raw = Buffer.from(mpEncode({ n: big }, { useBigInt64: true }));
      const r = await call('POST', '/api/insert/bigints', undefined, { format: 'msgpack', raw });
      expect(r.status, String(big)).to.equal(201);
      const res = await fetch(`${t.url}/api/find/bigints/${r.body.id}`, {
        headers: { Accept: 'application/msgpack', Authorization: `Bearer ${await t.adminToken()}` },
      });
      expect(mpDecode(Buffer.from(await res.arrayBuffer()), { useBigInt64: true })).to.deep.include({
        n: { type: 'Integer', value: big },
      });
    }
    const raw = Buffer.from(mpEncode({ n: 2n ** 64n - 1n }, { useBigInt64: true }));
    const r = await call('POST', '/api/insert/bigints', undefined, { format: 'msgpack', raw });
    expect(r.status).to.equal(400);
    expect(r.body.error)
      .to.contain(String(2n ** 64n - 1n))
      .and.to.contain("'n'");
    expect((await call('GET', '/api/bigints/count')).body.count).to.equal(4);
  });

  it('reports a whole float beyond 2^53 as Float and refuses it as an Integer', async () => {
    const ins = await call('POST', '/api/insert/huge', undefined, {
      raw: '{"v":1e300,"w":9007199254740991,"x":9.007199254740992e15}',
    });
    expect(ins.status).to.equal(201);
    const read = await call('GET', `/api/find/huge/${ins.body.id}`);
    expect(read.body.v).to.deep.equal({ type: 'Float', value: 1e300 });
    expect(read.body.w).to.deep.equal({ type: 'Integer', value: 9007199254740991 });
    expect(read.body.x).to.deep.equal({ type: 'Float', value: 2 ** 53 });
    expect(
      (
        await call('POST', '/api/insert/huge', undefined, {
          raw: '{"v":{"type":"Integer","value":9.007199254740992e15}}',
        })
      ).status,
    ).to.equal(400);
    await call('POST', '/api/collections/huge_schema', { fields: { n: { field_type: 'Integer' } } });
    const r = await call('POST', '/api/insert/huge_schema', { n: 1e21 });
    expect(r.status).to.equal(400);
    expect(r.body.details[0]).to.include({ field: 'n', constraint: 'type', expected: 'Integer', actual: 'Float' });
  });

  it('accepts the Rust positional [secs, nanos] Duration over MessagePack', async () => {
    const ins = await call(
      'POST',
      '/api/insert/durs',
      { d: { type: 'Duration', value: [3, 7] } },
      { format: 'msgpack' },
    );
    expect(ins.status).to.equal(201);
    const read = await call('GET', `/api/find/durs/${ins.body.id}`);
    expect(read.body.d).to.deep.equal({ type: 'Duration', value: { secs: 3, nanos: 7 } });
  });

  it('answers MessagePack byte for byte, every byte value and non-ASCII text included, with its length in bytes', async () => {
    const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const ins = await call(
      'POST',
      '/api/insert/mpbytes',
      { text: 'Zoë ✓ 漢字 🚀', blob: { type: 'Binary', value: bytes.toString('base64') } },
      { format: 'msgpack' },
    );
    for (const id of [ins.body.id as string, 'no-such-record']) {
      const res = await fetch(`${t.url}/api/find/mpbytes/${id}`, {
        headers: {
          Accept: 'application/msgpack',
          Authorization: `Bearer ${await t.adminToken()}`,
          'Accept-Encoding': 'identity',
        },
      });
      const body = Buffer.from(await res.arrayBuffer());
      expect(res.headers.get('content-length')).to.equal(String(body.length));
      if (id === 'no-such-record') {
        expect(res.status).to.equal(404);
        continue;
      }
      const record = mpDecode(body) as Record<string, unknown>;
      expect(record.text).to.deep.equal({ type: 'String', value: 'Zoë ✓ 漢字 🚀' });
      const blob = record.blob as { type: string; value: Uint8Array };
      expect(blob.type).to.equal('Binary');
      expect(Buffer.from(blob.value).equals(bytes)).to.equal(true);
    }
  });

  it('answers MessagePack with string map keys and no extension types', async () => {
    const ins = await call(
      'POST',
      '/api/insert/mpkeys',
      { a: 1, nested: { b: [{ c: 2 }] }, at: '2026-01-01T00:00:00Z' },
      { format: 'msgpack' },
    );
    const res = await fetch(`${t.url}/api/find/mpkeys/${ins.body.id}`, {
      headers: {
        Accept: 'application/msgpack',
        Authorization: `Bearer ${await t.adminToken()}`,
        'Accept-Encoding': 'identity',
      },
    });
    expect(res.headers.get('content-type')).to.contain('application/msgpack');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(
      (bytes[0]! >= 0x80 && bytes[0]! <= 0x8f) || bytes[0] === 0xde || bytes[0] === 0xdf,
      'a map at the top',
    ).to.equal(true);
    const decoded = new Unpackr({ mapsAsObjects: false, useRecords: false }).unpack(bytes);
    const keyTypes = new Set<string>();
    (function walk(v: unknown): void {
      if (v instanceof Map)
        for (const [k, x] of v) {
          keyTypes.add(typeof k);
          walk(x);
        }
      else if (Array.isArray(v)) v.forEach(walk);
      else if (v !== null && typeof v === 'object' && !(v instanceof Uint8Array))
        throw new Error(`unexpected ${v.constructor.name}`);
    })(decoded);
    expect([...keyTypes]).to.deep.equal(['string']);
  });

  it('answers a remembered MessagePack record byte for byte on every read, and the new version after a write', async () => {
    const ins = await call('POST', '/api/insert/mpremembered', { name: 'Zoë 🎉', n: 300000, m: -70000, x: 1.5 });
    const read = async () => {
      const res = await fetch(`${t.url}/api/find/mpremembered/${ins.body.id}`, {
        headers: {
          Accept: 'application/msgpack',
          Authorization: `Bearer ${await t.adminToken()}`,
          'Accept-Encoding': 'identity',
        },
      });
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(Number(res.headers.get('content-length'))).to.equal(bytes.length);
      return bytes;
    };
    const first = await read();
    const json = (await call('GET', `/api/find/mpremembered/${ins.body.id}`)).body;
    expect(new Unpackr({ useRecords: false }).unpack(first)).to.deep.equal(json);
    expect(first.some((b) => b > 0x7f)).to.equal(true);
    for (let i = 0; i < 3; i++) expect((await read()).equals(first)).to.equal(true);
    await call('PUT', `/api/update/mpremembered/${ins.body.id}`, { name: 'Zoë ✓' });
    const after = new Unpackr({ useRecords: false }).unpack(await read()) as { name: unknown };
    expect(after.name).to.deep.equal({ type: 'String', value: 'Zoë ✓' });
  });

  it('returns bare values when use_typed_values is off, and typed ones again when on', async () => {
    const ins = await call('POST', '/api/insert/untyped', { n: 5, at: '2026-01-01T00:00:00Z' });
    expect((await call('PUT', '/api/config', { use_typed_values: false })).status).to.equal(200);
    try {
      const bare = await call('GET', `/api/find/untyped/${ins.body.id}`);
      expect(bare.body).to.deep.equal({ id: ins.body.id, n: 5, at: '2026-01-01T00:00:00+00:00' });
    } finally {
      await call('PUT', '/api/config', { use_typed_values: true });
    }
    expect((await call('GET', `/api/find/untyped/${ins.body.id}`)).body.n).to.deep.equal({ type: 'Integer', value: 5 });
  });

  describe('gzip', () => {
    /** Compression is for clients elsewhere: the proxy in front says the request comes from one. */
    const REMOTE = { 'X-Forwarded-For': '203.0.113.7' };
    let bigId: string;
    before(async () => {
      bigId = (await call('POST', '/api/insert/big', { text: 'lorem ipsum '.repeat(500) })).body.id;
    });

    it('compresses a large body when the client accepts gzip', async () => {
      const r = await rawGet(`${t.url}/api/find/big/${bigId}`, {
        Authorization: `Bearer ${await t.adminToken()}`,
        'Accept-Encoding': 'gzip',
        ...REMOTE,
      });
      expect(r.status).to.equal(200);
      expect(r.headers['content-encoding']).to.equal('gzip');
      const body = JSON.parse(gunzipSync(r.bytes).toString('utf8'));
      expect(body.text.value).to.equal('lorem ipsum '.repeat(500));
    });

    it('compresses a large MessagePack body too', async () => {
      const r = await rawGet(`${t.url}/api/find/big/${bigId}`, {
        Authorization: `Bearer ${await t.adminToken()}`,
        'Accept-Encoding': 'gzip, deflate',
        Accept: 'application/msgpack',
        ...REMOTE,
      });
      expect(r.headers['content-encoding']).to.equal('gzip');
      const body = new Unpackr({ useRecords: false }).unpack(gunzipSync(r.bytes));
      expect(body.text.value).to.have.length(6000);
    });

    it('entropy-codes a large answer of random ids, and still compresses a large repetitive one fully', async () => {
      const auth = { Authorization: `Bearer ${await t.adminToken()}`, 'Accept-Encoding': 'gzip', ...REMOTE };
      const inserts = Array.from({ length: 4000 }, (_, i) => ({
        data: { name: `user ${i}`, bio: 'Member likes long walks and short queries.' },
      }));
      const ids = await rawPost(`${t.url}/api/batch/insert/gz_ids`, auth, { inserts });
      expect(ids.headers['content-encoding']).to.equal('gzip');
      const plain = gunzipSync(ids.bytes);
      expect(JSON.parse(plain.toString('utf8')).successful).to.have.length(4000);
      // Random ids barely compress either way; the answer is still smaller than the text.
      expect(ids.bytes.length / plain.length).to.be.within(0.6, 0.9);
      const found = await rawPost(`${t.url}/api/find/gz_ids`, auth, { limit: 4000 });
      expect(found.headers['content-encoding']).to.equal('gzip');
      const records = gunzipSync(found.bytes);
      expect(JSON.parse(records.toString('utf8'))).to.have.length(4000);
      expect(
        found.bytes.length / records.length,
        'records compress with matching, not only entropy coding',
      ).to.be.below(0.35);
    });

    it('does not compress when the client does not ask for it', async () => {
      const r = await rawGet(`${t.url}/api/find/big/${bigId}`, { Authorization: `Bearer ${await t.adminToken()}` });
      expect(r.headers['content-encoding']).to.equal(undefined);
      expect(JSON.parse(r.bytes.toString('utf8')).id).to.equal(bigId);
    });

    it('answers a client on this machine uncompressed, though it accepts gzip: a loopback has no bandwidth to save', async () => {
      const auth = { Authorization: `Bearer ${await t.adminToken()}`, 'Accept-Encoding': 'gzip' };
      const r = await rawGet(`${t.url}/api/find/big/${bigId}`, auth);
      expect(r.headers['content-encoding']).to.equal(undefined);
      expect(JSON.parse(r.bytes.toString('utf8')).id).to.equal(bigId);
      const listed = await rawPost(`${t.url}/api/find/gz_ids`, auth, { limit: 4000 });
      expect(listed.headers['content-encoding']).to.equal(undefined);
      expect(JSON.parse(listed.bytes.toString('utf8'))).to.have.length(4000);
    });

    it('does not compress a small body', async () => {
      const r = await rawGet(`${t.url}/api/health`, { 'Accept-Encoding': 'gzip', ...REMOTE });
      expect(r.headers['content-encoding']).to.equal(undefined);
      expect(JSON.parse(r.bytes.toString('utf8')).status).to.equal('ok');
    });
  });

  describe('bodies', () => {
    it('answers every 2xx with a non-empty parsable body', async () => {
      const key = await call('POST', '/api/auth/keys', { name: 'tmp' });
      const ins = await call('POST', '/api/insert/bodies', { id: 'b1', n: 1, tags: ['a'] });
      await call('POST', '/api/insert/bodies', { id: 'b2', n: 2 });
      const steps: Array<[string, string, unknown?, RequestOptions?]> = [
        ['GET', '/api/health'],
        ['POST', '/api/auth/token', { api_key: key.body.key }, { token: null }],
        ['GET', '/api/auth/keys'],
        ['GET', '/api/config'],
        ['PUT', '/api/config', { max_function_call_depth: 16 }],
        ['POST', '/api/collections/bodies2'],
        ['GET', '/api/collections'],
        ['GET', '/api/collections/bodies'],
        ['GET', '/api/schemas/bodies'],
        ['PUT', '/api/schemas/bodies', { constraints: { n: { field_type: 'Integer' } } }],
        ['PUT', '/api/schemas/bodies2/primary-key-alias', { alias: 'sku' }],
        ['GET', `/api/find/bodies/${ins.body.id}`],
        ['POST', '/api/find/bodies', {}],
        ['PUT', '/api/update/bodies/b1', { n: 5 }],
        ['PUT', '/api/update/bodies/b1/action/increment', { field: 'n', value: 1 }],
        ['PUT', '/api/update/sequence/bodies/b1', [['push', 'tags', 'b']]],
        ['POST', '/api/distinct/bodies/n'],
        ['GET', '/api/bodies/count'],
        ['DELETE', '/api/delete/bodies/b2'],
        ['POST', '/api/trash/bodies/b2'],
        ['DELETE', '/api/delete/bodies/b2'],
        ['POST', '/api/trash/bodies'],
        ['POST', '/api/admin/snapshot'],
        ['DELETE', `/api/auth/keys/${key.body.id}`],
        ['DELETE', '/api/collections/bodies2'],
      ];
      for (const [method, path, body, opts] of steps) {
        const r = await call(method, path, body, opts);
        expect(r.status, `${method} ${path}: ${r.text}`).to.be.within(200, 299);
        expect(r.text, `${method} ${path}`).to.not.equal('');
        expect(() => JSON.parse(r.text), `${method} ${path}`).to.not.throw();
      }
      for (const [method, path, body] of [
        ['POST', '/api/insert/bodies', { n: 9 }],
        ['PUT', '/api/update/bodies/b1', { n: 6 }],
        ['DELETE', '/api/delete/bodies/b1'],
      ] as const) {
        const r = await call(method, path, body, { format: 'msgpack' });
        expect(r.status, `${method} ${path}`).to.be.within(200, 299);
        expect(r.headers.get('content-type')).to.contain('application/msgpack');
        expect(r.body, `${method} ${path}`).to.be.an('object');
      }
    });

    it('treats an empty body as {} whether or not a content type is sent', async () => {
      await call('POST', '/api/insert/empty', { id: 'e1', a: 1 });
      await call('DELETE', '/api/delete/empty/e1');
      const withType = await call('POST', '/api/trash/empty/e1', undefined, { raw: '' });
      expect(withType.status).to.equal(200);
      await call('DELETE', '/api/delete/empty/e1');
      const res = await fetch(`${t.url}/api/trash/empty/e1`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${await t.adminToken()}` },
      });
      expect(res.status).to.equal(200);
      expect(await res.json()).to.include({ status: 'restored' });
    });

    it('reads the body of a DELETE request', async () => {
      await call('POST', '/api/insert/delbody', { id: 'd1', a: 1 });
      const malformed = await call('DELETE', '/api/delete/delbody/d1', undefined, { raw: '{"broken":' });
      expect(malformed.status).to.equal(400);
      expect(malformed.body.error).to.contain('JSON');
      expect((await call('GET', '/api/find/delbody/d1')).status).to.equal(200);
      const mp = await call('DELETE', '/api/delete/delbody/d1', undefined, {
        format: 'msgpack',
        raw: Buffer.from([0xc1]),
      });
      expect(mp.status).to.equal(400);
      const ok = await call('DELETE', '/api/delete/delbody/d1', { bypass_ripple: true });
      expect(ok.status).to.equal(200);
    });
  });

  describe('paths', () => {
    it('keeps a %2F-encoded segment as one segment', async () => {
      const ins = await call('POST', '/api/insert/paths', { id: 'session/abc', v: 1 });
      expect(ins.body.id).to.equal('session/abc');
      const read = await call('GET', '/api/find/paths/session%2Fabc');
      expect(read.status).to.equal(200);
      expect(read.body.id).to.equal('session/abc');
      expect((await call('GET', '/api/find/paths/session/abc')).status).to.equal(404);
      expect((await call('DELETE', '/api/delete/paths/session%2Fabc')).status).to.equal(200);
    });

    it('decodes other percent-encoded characters in a segment', async () => {
      await call('POST', '/api/insert/paths', { id: 'a b#c?d', v: 1 });
      const read = await call('GET', `/api/find/paths/${encodeURIComponent('a b#c?d')}`);
      expect(read.status).to.equal(200);
      expect(read.body.id).to.equal('a b#c?d');
    });

    it('treats an encoded slash in a collection name as part of the name', async () => {
      const r = await call('POST', '/api/insert/a%2Fb', { v: 1 });
      expect(r.status).to.equal(400);
      expect(r.body.error).to.equal('Invalid collection name');
    });

    it('tolerates a trailing slash', async () => {
      expect((await call('GET', '/api/collections/')).status).to.equal(200);
    });
  });

  describe('config', () => {
    it('shows the server settings with GET /api/config', async () => {
      const r = await call('GET', '/api/config');
      expect(r.status).to.equal(200);
      expect(r.body).to.include({
        use_typed_values: true,
        default_isolation_level: 'ReadUncommitted',
        durable_operations: true,
        max_function_call_depth: 16,
      });
      expect(r.body.client_tool_timeout_secs).to.be.a('number');
    });

    it('applies a valid PUT /api/config patch and keeps it', async () => {
      const r = await call('PUT', '/api/config', {
        max_function_call_depth: 32,
        default_isolation_level: 'Serializable',
      });
      expect(r.status).to.equal(200);
      const after = await call('GET', '/api/config');
      expect(after.body).to.include({ max_function_call_depth: 32, default_isolation_level: 'Serializable' });
      await call('PUT', '/api/config', { max_function_call_depth: 16, default_isolation_level: 'ReadUncommitted' });
    });

    it('maps durable_operations onto the durability setting', async () => {
      expect((await call('PUT', '/api/config', { durable_operations: false })).status).to.equal(200);
      expect((await call('GET', '/api/config')).body).to.include({ durable_operations: false, durability: 'none' });
      await call('PUT', '/api/config', { durable_operations: true });
      expect((await call('GET', '/api/config')).body).to.include({ durable_operations: true, durability: 'always' });
    });

    for (const [why, patch] of [
      ['an unknown key', { use_typed_values: false, no_such_setting: 1 }],
      ['the key toString', { use_typed_values: false, toString: 1 }],
      ['the key constructor', { use_typed_values: false, constructor: 1 }],
      ['the key hasOwnProperty', { use_typed_values: false, hasOwnProperty: true }],
      ['a wrong type', { use_typed_values: false, max_function_call_depth: 'deep' }],
      ['an out-of-range value', { use_typed_values: false, max_function_call_depth: 1000 }],
      ['a non-boolean flag', { use_typed_values: 'no' }],
      ['an invalid isolation level', { use_typed_values: false, default_isolation_level: 'Snapshot' }],
      ['a non-object body', [1, 2]],
    ] as const) {
      it(`refuses PUT /api/config with ${why} with 400 and changes nothing`, async () => {
        const before = await call('GET', '/api/config');
        const r = await call('PUT', '/api/config', patch);
        expect(r.status).to.equal(400);
        expect(r.body.error).to.be.a('string').and.not.empty;
        expect((await call('GET', '/api/config')).body).to.deep.equal(before.body);
      });
    }
  });
});
