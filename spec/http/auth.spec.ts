/**
 * End-to-end specs for authentication, admin-only routes, collection
 * permissions, API key management and rate limiting (product.md
 * Authentication; protocol.md 1.2, 1.3, 1.8).
 * Over 400 lines because the five concerns share one server-per-suite setup
 * and each of them is one describe block.
 */
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { expect } from 'chai';
import { ADMIN_KEY, TestServer, type Reply, errorBody } from '../helpers/test-server.js';

function jwtPayload(token: string): Record<string, unknown> {
  const parts = token.split('.');
  expect(parts).to.have.length(3);
  return JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
}

function expect401(r: Reply): void {
  expect(r.status).to.equal(401);
  expect(r.body.code).to.equal(401);
  expect(r.body.message).to.be.a('string').and.not.empty;
}

describe('authentication over HTTP', () => {
  let t: TestServer;
  let call: TestServer['request'];
  beforeEach(async () => {
    t = await TestServer.start();
    call = t.request.bind(t);
  });
  afterEach(async () => {
    await t.stop();
  });

  it('exchanges an API key for a three-part JWT with a numeric exp one hour ahead', async () => {
    const r = await call('POST', '/api/auth/token', { api_key: ADMIN_KEY }, { token: null });
    expect(r.status).to.equal(200);
    expect(r.body).to.have.all.keys('token');
    expect(r.body.token).to.match(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    const payload = jwtPayload(r.body.token);
    expect(payload.exp).to.be.a('number');
    expect(payload.exp).to.be.closeTo(Math.floor(t.clock.now() / 1000) + 3600, 5);
  });

  it('accepts the token as a bearer header on other routes', async () => {
    const token = await t.tokenFor(ADMIN_KEY);
    const r = await call('GET', '/api/config', undefined, { token });
    expect(r.status).to.equal(200);
  });

  it('answers 401 {code, message} to an unknown API key and to a non-string one', async () => {
    expect401(await call('POST', '/api/auth/token', { api_key: 'not-a-key' }, { token: null }));
    expect401(await call('POST', '/api/auth/token', { api_key: 42 }, { token: null }));
  });

  it('answers 401 {code, message} without an Authorization header', async () => {
    expect401(await call('GET', '/api/config', undefined, { token: null }));
    expect401(await call('POST', '/api/insert/things', { a: 1 }, { token: null }));
  });

  for (const header of ['Token abc', 'Bearer', 'Bearer ', 'bearer', 'Basic dXNlcjpwYXNz', 'Bearer a b']) {
    it(`answers 401 {code, message} to the malformed header '${header}'`, async () => {
      expect401(await call('GET', '/api/config', undefined, { token: null, headers: { Authorization: header } }));
    });
  }

  it('answers 401 {code, message} to a garbage token and to a token signed with another key', async () => {
    expect401(await call('GET', '/api/config', undefined, { token: 'garbage' }));
    const good = await t.tokenFor(ADMIN_KEY);
    const [h, p] = good.split('.');
    expect401(
      await call('GET', '/api/config', undefined, {
        token: `${h}.${p}.${Buffer.from('forged').toString('base64url')}`,
      }),
    );
    const other = await TestServer.start();
    try {
      expect401(await call('GET', '/api/config', undefined, { token: await other.tokenFor(ADMIN_KEY) }));
    } finally {
      await other.stop();
    }
  });

  it('answers 401 {code, message} once the token has expired', async () => {
    const token = await t.tokenFor(ADMIN_KEY);
    t.clock.advance(3599 * 1000);
    expect((await call('GET', '/api/config', undefined, { token })).status).to.equal(200);
    t.clock.advance(2 * 1000);
    const r = await call('GET', '/api/config', undefined, { token });
    expect401(r);
    const fresh = await t.tokenFor(ADMIN_KEY);
    expect((await call('GET', '/api/config', undefined, { token: fresh })).status).to.equal(200);
  });

  it('answers 401 to a revoked key, both for its live tokens and for a new exchange', async () => {
    const created = await call('POST', '/api/auth/keys', { name: 'temp' });
    const token = await t.tokenFor(created.body.key);
    expect((await call('GET', '/api/config', undefined, { token })).status).to.equal(200);
    const del = await call('DELETE', `/api/auth/keys/${created.body.id}`);
    expect(del.status).to.equal(200);
    expect401(await call('GET', '/api/config', undefined, { token }));
    expect401(await call('POST', '/api/auth/token', { api_key: created.body.key }, { token: null }));
  });

  it('answers 401 to tokens of the previous admin key once the admin key is rotated', async () => {
    const oldToken = await t.tokenFor(ADMIN_KEY);
    await t.stop({ keepData: true });
    const rotated = await TestServer.start({ dataDir: t.dataDir, adminKey: 'rotated-admin-key-9876543210' });
    try {
      expect401(await rotated.request('GET', '/api/collections', undefined, { token: oldToken }));
      expect401(await rotated.request('POST', '/api/auth/token', { api_key: ADMIN_KEY }, { token: null }));
      const fresh = await rotated.tokenFor('rotated-admin-key-9876543210');
      expect((await rotated.request('GET', '/api/collections', undefined, { token: fresh })).status).to.equal(200);
    } finally {
      await rotated.stop();
      rmSync(t.dataDir, { recursive: true, force: true });
      t = await TestServer.start();
    }
  });

  it('keeps the tokens of a user key valid across a restart', async () => {
    const created = await call('POST', '/api/auth/keys', { name: 'durable' });
    const token = await t.tokenFor(created.body.key);
    await t.stop({ keepData: true });
    const again = await TestServer.start({ dataDir: t.dataDir });
    try {
      expect((await again.request('GET', '/api/config', undefined, { token })).status).to.equal(200);
    } finally {
      await again.stop();
      rmSync(t.dataDir, { recursive: true, force: true });
      t = await TestServer.start();
    }
  });

  it('serves /api/health without a token, and ignores a bad one there', async () => {
    const r = await call('GET', '/api/health', undefined, { token: null });
    expect(r.status).to.equal(200);
    expect(r.body).to.include({ status: 'ok', integrity_ok: true });
    expect((await call('GET', '/api/health', undefined, { token: 'garbage' })).status).to.equal(200);
  });
});

describe('admin-only routes over HTTP', () => {
  let t: TestServer;
  let call: TestServer['request'];
  let user: string;
  before(async () => {
    t = await TestServer.start();
    call = t.request.bind(t);
    user = await t.userToken({ name: 'plain user' });
    await call('POST', '/api/collections/existing');
    await call('POST', '/api/insert/existing', { id: 'r1', a: 1 });
    await call('DELETE', '/api/delete/existing/r1');
  });
  after(async () => {
    await t.stop();
  });

  const ADMIN_ROUTES: Array<[string, string, unknown?]> = [
    ['POST', '/api/collections/new_one', { fields: {} }],
    ['GET', '/api/collections'],
    ['DELETE', '/api/collections/existing'],
    ['POST', '/api/trash/existing/r1'],
    ['POST', '/api/trash/existing'],
    ['PUT', '/api/schemas/existing', { constraints: { a: { field_type: 'Integer' } } }],
    ['PUT', '/api/schemas/existing/primary-key-alias', { alias: 'sku' }],
    ['PUT', '/api/config', { use_typed_values: false }],
    ['POST', '/api/auth/keys', { name: 'escalate', admin: true }],
    ['GET', '/api/auth/keys'],
    ['DELETE', '/api/auth/keys/admin'],
  ];

  it('shows /api/health details to an admin only: anyone else gets {status, integrity_ok}', async () => {
    for (const token of [null, 'garbage', user]) {
      const r = await call('GET', '/api/health', undefined, { token });
      expect(r.status, String(token)).to.equal(200);
      expect(r.body, String(token)).to.deep.equal({ status: 'ok', integrity_ok: true });
    }
    const admin = await call('GET', '/api/health');
    expect(admin.body).to.include({ status: 'ok', integrity_ok: true, read_only: false });
    expect(admin.body).to.have.keys(
      'status',
      'integrity_ok',
      'integrity',
      'read_only',
      'version',
      'uptime_secs',
      'storage',
      'recovery',
      'indexes',
    );
  });

  for (const [method, path, body] of ADMIN_ROUTES) {
    it(`answers 403 {error} to a non-admin key on ${method} ${path}`, async () => {
      const r = await call(method, path, body, { token: user });
      expect(r.status).to.equal(403);
      expect(errorBody(r)).to.have.all.keys('error');
      expect(r.body.error).to.be.a('string').and.not.empty;
    });
  }

  it('changed nothing through the refused admin calls', async () => {
    const list = await call('GET', '/api/collections');
    expect(list.body.collections).to.include('existing').and.not.include('new_one');
    expect((await call('GET', '/api/config')).body.use_typed_values).to.equal(true);
    const schema = await call('GET', '/api/schemas/existing');
    expect(schema.body.fields).to.deep.equal({});
    expect(schema.body.primary_key_alias).to.equal('id');
    expect((await call('GET', '/api/find/existing/r1')).status).to.equal(404);
    const keys = await call('GET', '/api/auth/keys');
    expect(keys.body.keys.map((k: { name: string }) => k.name)).to.not.include('escalate');
  });

  it('lets a non-admin key without collection_permissions use every collection', async () => {
    const ins = await call('POST', '/api/insert/anything', { a: 1 }, { token: user });
    expect(ins.status).to.equal(201);
    expect((await call('GET', `/api/find/anything/${ins.body.id}`, undefined, { token: user })).status).to.equal(200);
    expect((await call('GET', '/api/collections/anything', undefined, { token: user })).status).to.equal(200);
    expect((await call('GET', '/api/config', undefined, { token: user })).status).to.equal(200);
  });

  it('lets an admin key created through the API use admin routes', async () => {
    const created = await call('POST', '/api/auth/keys', { name: 'second admin', admin: true });
    const token = await t.tokenFor(created.body.key);
    expect((await call('GET', '/api/collections', undefined, { token })).status).to.equal(200);
  });
});

describe('collection permissions over HTTP', () => {
  let t: TestServer;
  let call: TestServer['request'];
  let reader: string;
  let writer: string;
  let fielded: string;
  let seeded: string;
  before(async () => {
    t = await TestServer.start();
    call = t.request.bind(t);
    seeded = (await call('POST', '/api/insert/orders', { name: 'seed', price: 10 })).body.id;
    await call('POST', '/api/insert/secrets', { a: 1 });
    reader = await t.userToken({ name: 'reader', collection_permissions: { orders: { read: true, write: false } } });
    writer = await t.userToken({ name: 'writer', collection_permissions: { orders: { read: false, write: true } } });
    fielded = await t.userToken({
      name: 'fielded',
      collection_permissions: { orders: { read: true, write: true, writable_fields: ['name', 'qty'] } },
    });
  });
  after(async () => {
    await t.stop();
  });

  async function count(): Promise<number> {
    return (await call('GET', '/api/collections/orders')).body.record_count;
  }

  it('lets a read-only key read its collection and refuses its writes with 403 {error}', async () => {
    expect((await call('GET', `/api/find/orders/${seeded}`, undefined, { token: reader })).status).to.equal(200);
    expect((await call('POST', '/api/find/orders', {}, { token: reader })).status).to.equal(200);
    const before = await count();
    for (const [method, path, body] of [
      ['POST', '/api/insert/orders', { name: 'x' }],
      ['PUT', `/api/update/orders/${seeded}`, { name: 'x' }],
      ['DELETE', `/api/delete/orders/${seeded}`, undefined],
    ] as const) {
      const r = await call(method, path, body, { token: reader });
      expect(r.status, `${method} ${path}`).to.equal(403);
      expect(r.body.error).to.be.a('string');
    }
    expect(await count()).to.equal(before);
    expect((await call('GET', `/api/find/orders/${seeded}`)).body.name.value).to.equal('seed');
  });

  it('lets a write-only key write but not read', async () => {
    expect((await call('POST', '/api/insert/orders', { name: 'w' }, { token: writer })).status).to.equal(201);
    expect((await call('GET', `/api/find/orders/${seeded}`, undefined, { token: writer })).status).to.equal(403);
    expect((await call('POST', '/api/find/orders', {}, { token: writer })).status).to.equal(403);
  });

  it('refuses collections the key does not list, for reads and writes', async () => {
    for (const token of [reader, writer, fielded]) {
      expect((await call('POST', '/api/find/secrets', {}, { token })).status).to.equal(403);
      expect((await call('POST', '/api/insert/secrets', { a: 2 }, { token })).status).to.equal(403);
      expect((await call('GET', '/api/collections/secrets', undefined, { token })).status).to.equal(403);
    }
    expect((await call('GET', '/api/collections/secrets')).body.record_count).to.equal(1);
  });

  it('accepts writes of writable fields only', async () => {
    const r = await call('POST', '/api/insert/orders', { name: 'ok', qty: 2 }, { token: fielded });
    expect(r.status).to.equal(201);
    const upd = await call('PUT', `/api/update/orders/${r.body.id}`, { qty: 3 }, { token: fielded });
    expect(upd.status).to.equal(200);
  });

  it('refuses non-writable fields with 403 listing them, and writes nothing', async () => {
    const before = await count();
    const r = await call('POST', '/api/insert/orders', { name: 'n', price: 1, discount: 5 }, { token: fielded });
    expect(r.status).to.equal(403);
    expect(r.body.error).to.contain('price').and.contain('discount');
    expect(r.body.error).to.not.contain('name');
    expect(await count()).to.equal(before);
  });

  it('refuses a batch whose bodies name a non-writable field anywhere, however their keys differ', async () => {
    const before = await count();
    for (const [bodies, bad] of [
      [[{ name: 'a' }, { name: 'b' }, { name: 'c', price: 1 }], ['price']],
      [[{ name: 'a', qty: 1 }, { name: 'b' }, { qty: 2, discount: 3 }], ['discount']],
      [
        [
          { price: 1, name: 'a' },
          { name: 'b', price: 2 },
          { name: 'c', price: 3, note: 'x' },
        ],
        ['price', 'note'],
      ],
      [
        [
          { name: 'a', qty: 1 },
          { name: 'b', qty: 2, extra: 1 },
          { name: 'c', qty: 3 },
        ],
        ['extra'],
      ],
    ] as const) {
      const inserts = bodies.map((data) => ({ data }));
      const r = await call('POST', '/api/batch/insert/orders', { inserts }, { token: fielded });
      expect(r.status, JSON.stringify(bodies)).to.equal(403);
      const listed = (r.body.error as string).split(': ').pop()!.split(', ');
      expect(listed.sort(), JSON.stringify(bodies)).to.deep.equal([...bad].sort());
    }
    expect(await count()).to.equal(before);
    const ok = { inserts: [{ data: { name: 'a' } }, { data: { qty: 1, name: 'b' } }, { data: { name: 'c' } }] };
    expect((await call('POST', '/api/batch/insert/orders', ok, { token: fielded })).status).to.equal(201);
  });

  it('refuses an update touching a non-writable field and leaves the record unchanged', async () => {
    const r = await call('PUT', `/api/update/orders/${seeded}`, { name: 'changed', price: 0 }, { token: fielded });
    expect(r.status).to.equal(403);
    expect(r.body.error).to.contain('price');
    const read = await call('GET', `/api/find/orders/${seeded}`);
    expect(read.body.name.value).to.equal('seed');
    expect(read.body.price.value).to.equal(10);
  });

  it('refuses a join into a collection the key may not read', async () => {
    await call('POST', '/api/insert/secrets', { id: 'owner-1', password: 'hunter2' });
    await call('POST', '/api/insert/orders', { name: 'joined', owner: 'owner-1' });
    const r = await call(
      'POST',
      '/api/find/orders',
      {
        join: { collections: ['secrets'], local_field: 'owner', foreign_field: 'id', as_field: 'leak' },
      },
      { token: reader },
    );
    expect(r.status).to.equal(403);
    expect(r.text).to.not.contain('hunter2');
  });

  it('applies a "*" entry to every collection not listed by name', async () => {
    const token = await t.userToken({
      name: 'wildcard',
      collection_permissions: { '*': { read: true, write: false }, orders: { read: false, write: true } },
    });
    expect((await call('POST', '/api/find/secrets', {}, { token })).status).to.equal(200);
    expect((await call('POST', '/api/insert/secrets', { a: 3 }, { token })).status).to.equal(403);
    expect((await call('POST', '/api/find/orders', {}, { token })).status).to.equal(403);
    expect((await call('POST', '/api/insert/orders', { name: 'wild' }, { token })).status).to.equal(201);
  });

  it('refuses an update action on a non-writable field', async () => {
    const r = await call(
      'PUT',
      `/api/update/orders/${seeded}/action/increment`,
      { field: 'price', value: 1 },
      { token: fielded },
    );
    expect(r.status).to.equal(403);
    expect(r.body.error).to.contain('price');
    expect((await call('GET', `/api/find/orders/${seeded}`)).body.price.value).to.equal(10);
  });
});

describe('API key management over HTTP', () => {
  let t: TestServer;
  let call: TestServer['request'];
  before(async () => {
    t = await TestServer.start();
    call = t.request.bind(t);
  });
  after(async () => {
    await t.stop();
  });

  it('creates a key with 201 {key, id, name, admin} and shows the secret only then', async () => {
    const r = await call('POST', '/api/auth/keys', {
      name: 'svc',
      collection_permissions: { orders: { read: true, write: true, writable_fields: ['a'] } },
      rate_limit: 50,
    });
    expect(r.status).to.equal(201);
    expect(r.body).to.include({ name: 'svc', admin: false });
    expect(r.body.key).to.be.a('string').and.not.empty;
    expect(r.body.id).to.be.a('string').and.not.empty;
    const list = await call('GET', '/api/auth/keys');
    expect(list.status).to.equal(200);
    const listed = list.body.keys.find((k: { id: string }) => k.id === r.body.id);
    expect(listed).to.include({ name: 'svc', admin: false, rate_limit: 50 });
    expect(listed.collection_permissions).to.deep.equal({
      orders: { read: true, write: true, writable_fields: ['a'] },
    });
    expect(list.text).to.not.contain(r.body.key);
    expect(list.text).to.not.contain(createHash('sha256').update(r.body.key).digest('hex'));
    expect(list.text).to.not.contain(createHash('sha256').update(ADMIN_KEY).digest('hex'));
    for (const k of list.body.keys) expect(k).to.not.have.any.keys('key', 'hash', 'secret');
  });

  it('rejects malformed key bodies with 400', async () => {
    for (const body of [
      { name: 5 },
      { admin: 'yes' },
      { rate_limit: -1 },
      { bogus: true },
      { collection_permissions: { 'bad name': { read: true } } },
      { collection_permissions: { __proto__x: { read: 'yes' } } },
    ]) {
      expect((await call('POST', '/api/auth/keys', body)).status, JSON.stringify(body)).to.equal(400);
    }
  });

  it('answers 404 when revoking an unknown key', async () => {
    expect((await call('DELETE', '/api/auth/keys/no-such-key')).status).to.equal(404);
  });
});

describe('rate limiting over HTTP', () => {
  let t: TestServer;
  let call: TestServer['request'];
  beforeEach(async () => {
    t = await TestServer.start();
    call = t.request.bind(t);
  });
  afterEach(async () => {
    await t.stop();
  });

  function rateHeaders(r: Reply): Record<string, string | null> {
    return {
      limit: r.headers.get('x-ratelimit-limit'),
      remaining: r.headers.get('x-ratelimit-remaining'),
      reset: r.headers.get('x-ratelimit-reset'),
    };
  }

  it('is off by default: no X-RateLimit headers and no 429', async () => {
    for (let i = 0; i < 30; i++) {
      const r = await call('GET', '/api/config');
      expect(r.status).to.equal(200);
      expect(rateHeaders(r)).to.deep.equal({ limit: null, remaining: null, reset: null });
    }
  });

  it('limits each key to rate_limit_requests per window once configured, then resets after the window', async () => {
    expect((await call('PUT', '/api/config', { rate_limit_requests: 3, rate_limit_window_secs: 60 })).status).to.equal(
      200,
    );
    const nowSecs = Math.floor(t.clock.now() / 1000);
    for (let i = 1; i <= 3; i++) {
      const r = await call('GET', '/api/config');
      expect(r.status).to.equal(200);
      const h = rateHeaders(r);
      expect(h.limit).to.equal('3');
      expect(h.remaining).to.equal(String(3 - i));
      expect(Number(h.reset)).to.be.within(nowSecs, nowSecs + 60);
    }
    const limited = await call('GET', '/api/config');
    expect(limited.status).to.equal(429);
    expect(limited.body.code).to.equal(429);
    expect(limited.body.message).to.be.a('string').and.not.empty;
    const retry = Number(limited.headers.get('retry-after'));
    expect(retry).to.be.within(1, 60);
    t.clock.advance(60_000);
    const again = await call('GET', '/api/config');
    expect(again.status).to.equal(200);
    expect(rateHeaders(again).remaining).to.equal('2');
  });

  it('counts each key separately', async () => {
    const a = await t.userToken({ name: 'a' });
    const b = await t.userToken({ name: 'b' });
    await call('PUT', '/api/config', { rate_limit_requests: 2, rate_limit_window_secs: 60 });
    for (let i = 0; i < 2; i++)
      expect((await call('GET', '/api/config', undefined, { token: a })).status).to.equal(200);
    expect((await call('GET', '/api/config', undefined, { token: a })).status).to.equal(429);
    expect((await call('GET', '/api/config', undefined, { token: b })).status).to.equal(200);
  });

  it('applies a per-key rate_limit even when the global limit is off', async () => {
    const token = await t.userToken({ name: 'limited', rate_limit: 2 });
    for (let i = 1; i <= 2; i++) {
      const r = await call('GET', '/api/config', undefined, { token });
      expect(r.status).to.equal(200);
      expect(rateHeaders(r).limit).to.equal('2');
      expect(rateHeaders(r).remaining).to.equal(String(2 - i));
    }
    const limited = await call('GET', '/api/config', undefined, { token });
    expect(limited.status).to.equal(429);
    expect(limited.body).to.include({ code: 429 });
    expect(limited.headers.get('retry-after')).to.match(/^\d+$/);
    const admin = await call('GET', '/api/config');
    expect(admin.status).to.equal(200);
    expect(rateHeaders(admin).limit).to.equal(null);
    t.clock.advance(61_000);
    expect((await call('GET', '/api/config', undefined, { token })).status).to.equal(200);
  });

  it('turns off again when rate_limit_requests is set back to 0', async () => {
    await call('PUT', '/api/config', { rate_limit_requests: 100, rate_limit_window_secs: 60 });
    expect(rateHeaders(await call('GET', '/api/config')).limit).to.equal('100');
    await call('PUT', '/api/config', { rate_limit_requests: 0 });
    expect(rateHeaders(await call('GET', '/api/config')).limit).to.equal(null);
  });
});
