/**
 * The key-value store obeys permissions. A key restricted by
 * `collection_permissions` used to read, overwrite and clear the whole store.
 * Now restricted keys need a `kv_permissions` grant (read/write, optional key
 * prefixes), every KV route checks it before touching anything, and clearing
 * the store is admin-only. Over real HTTP and a real WebSocket.
 */
import { expect } from 'chai';
import WebSocket from 'ws';
import { TestServer, type Reply } from '../helpers/test-server.js';

type Call = [method: string, path: string, body?: unknown];

/** One request per KV route; a key named `key` (and `other` for pairs). */
function everyKvRoute(key: string, other = key): Call[] {
  const k = encodeURIComponent(key);
  return [
    ['POST', `/api/kv/set/${k}`, { value: 'overwritten' }],
    ['GET', `/api/kv/get/${k}`],
    ['DELETE', `/api/kv/delete/${k}`],
    ['DELETE', '/api/kv/clear'],
    ['POST', '/api/kv/batch/get', { keys: [key, other] }],
    ['POST', '/api/kv/batch/set', { keys: [key, other], values: ['overwritten', 'overwritten'] }],
    ['DELETE', '/api/kv/batch/delete', { keys: [key, other] }],
    ['POST', '/api/kv/find', {}],
    ['GET', `/api/kv/links/${k}`],
    ['POST', '/api/kv/link', { key, collection: 'orders', document_id: 'o2' }],
    ['POST', '/api/kv/unlink', { key, collection: 'orders', document_id: 'o1' }],
  ];
}

function expect403(r: Reply, what: string): void {
  expect(r.status, `${what}: ${r.text}`).to.equal(403);
  expect(r.body.error, what).to.be.a('string').and.not.empty;
}

describe('the key-value store obeys permissions', () => {
  let t: TestServer;
  let call: TestServer['request'];

  /** The whole store as the admin sees it: entries and the links of every key. */
  async function storeSnapshot(): Promise<unknown> {
    const entries = (await call('POST', '/api/kv/find', {})).body as Array<{ key: string }>;
    const links = [];
    for (const e of entries) links.push((await call('GET', `/api/kv/links/${encodeURIComponent(e.key)}`)).body);
    return { entries, links };
  }

  beforeEach(async () => {
    t = await TestServer.start();
    call = t.request.bind(t);
    for (const k of ['cache:a', 'cache:b', 'session:1', 'secret:x'])
      await call('POST', `/api/kv/set/${k}`, { value: `v-${k}` });
    await call('POST', '/api/kv/link', { key: 'cache:a', collection: 'orders', document_id: 'o1' });
    await call('POST', '/api/kv/link', { key: 'cache:a', collection: 'secrets', document_id: 's1' });
  });
  afterEach(async () => {
    await t.stop();
  });

  it('answers 403 on every KV route to a key restricted to one collection, and changes nothing', async () => {
    const token = await t.userToken({
      name: 'orders-only',
      collection_permissions: { orders: { read: true, write: true } },
    });
    const before = await storeSnapshot();
    for (const [method, path, body] of everyKvRoute('cache:a', 'cache:b'))
      expect403(await call(method, path, body, { token }), `${method} ${path}`);
    expect(await storeSnapshot()).to.deep.equal(before);
  });

  it('lets a read-only KV grant read every key and refuses every write with 403', async () => {
    const token = await t.userToken({
      name: 'kv-reader',
      collection_permissions: { orders: { read: true } },
      kv_permissions: { read: true, write: false },
    });
    expect((await call('GET', '/api/kv/get/secret:x', undefined, { token })).body.value.value).to.equal('v-secret:x');
    expect((await call('POST', '/api/kv/batch/get', { keys: ['cache:a', 'nope'] }, { token })).body).to.deep.equal([
      'v-cache:a',
      null,
    ]);
    expect(
      (await call('POST', '/api/kv/find', { pattern: '^cache:' }, { token })).body.map((e: { key: string }) => e.key),
    ).to.deep.equal(['cache:a', 'cache:b']);
    expect((await call('GET', '/api/kv/links/cache:a', undefined, { token })).status).to.equal(200);
    const before = await storeSnapshot();
    const writes = everyKvRoute('cache:a').filter(
      ([m, p]) => m !== 'GET' && p !== '/api/kv/find' && p !== '/api/kv/batch/get',
    );
    expect(writes).to.have.length(7);
    for (const [method, path, body] of writes)
      expect403(await call(method, path, body, { token }), `${method} ${path}`);
    expect(await storeSnapshot()).to.deep.equal(before);
  });

  it('confines a prefix-scoped key to keys under its prefixes on every route', async () => {
    const token = await t.userToken({
      name: 'cache-svc',
      collection_permissions: { orders: { read: true, write: true } },
      kv_permissions: { read: true, write: true, prefixes: ['cache:', 'session:'] },
    });
    const before = await storeSnapshot();
    const outside = everyKvRoute('secret:x').filter(([, p]) => p !== '/api/kv/find');
    expect(outside).to.have.length(10);
    for (const [method, path, body] of outside)
      expect403(await call(method, path, body, { token }), `${method} ${path}`);
    expect(await storeSnapshot()).to.deep.equal(before);

    expect((await call('POST', '/api/kv/set/cache:new', { value: 1 }, { token })).status).to.equal(200);
    expect((await call('GET', '/api/kv/get/session:1', undefined, { token })).status).to.equal(200);
    expect((await call('DELETE', '/api/kv/delete/cache:new', undefined, { token })).body).to.include({ deleted: true });
    const found = await call('POST', '/api/kv/find', {}, { token });
    expect(found.body.map((e: { key: string }) => e.key)).to.deep.equal(['cache:a', 'cache:b', 'session:1']);
    expect((await call('POST', '/api/kv/find', { pattern: ':' }, { token })).body).to.have.length(3);
    expect(
      (await call('POST', '/api/kv/batch/set', { keys: ['cache:c', 'session:2'], values: [1, 2] }, { token })).status,
    ).to.equal(200);
    expect(
      (await call('DELETE', '/api/kv/batch/delete', { keys: ['cache:c', 'session:2'] }, { token })).body,
    ).to.deep.equal([
      ['cache:c', true],
      ['session:2', true],
    ]);
  });

  it('refuses a whole batch with 403 when one key is outside the grant, and writes nothing', async () => {
    const token = await t.userToken({
      name: 'cache-svc',
      collection_permissions: {},
      kv_permissions: { read: true, write: true, prefixes: ['cache:'] },
    });
    const before = await storeSnapshot();
    expect403(
      await call(
        'POST',
        '/api/kv/batch/set',
        { keys: ['cache:new', 'cache:a', 'secret:x'], values: [1, 2, 3] },
        { token },
      ),
      'batch set',
    );
    expect403(
      await call('DELETE', '/api/kv/batch/delete', { keys: ['cache:a', 'cache:b', 'secret:x'] }, { token }),
      'batch delete',
    );
    expect403(await call('POST', '/api/kv/batch/get', { keys: ['cache:a', 'secret:x'] }, { token }), 'batch get');
    expect(await storeSnapshot()).to.deep.equal(before);
    expect((await call('GET', '/api/kv/get/cache:new')).status).to.equal(404);
  });

  it('links only a writable key to a readable collection, and lists only links into readable collections', async () => {
    const token = await t.userToken({
      name: 'linker',
      collection_permissions: { orders: { read: true } },
      kv_permissions: { read: true, write: true, prefixes: ['cache:'] },
    });
    expect(
      (await call('POST', '/api/kv/link', { key: 'cache:b', collection: 'orders', document_id: 'o9' }, { token }))
        .status,
    ).to.equal(200);
    expect403(
      await call('POST', '/api/kv/link', { key: 'cache:b', collection: 'secrets', document_id: 's9' }, { token }),
      'link into an unreadable collection',
    );
    expect403(
      await call('POST', '/api/kv/unlink', { key: 'cache:a', collection: 'secrets', document_id: 's1' }, { token }),
      'unlink from an unreadable collection',
    );
    expect((await call('GET', '/api/kv/links/cache:a', undefined, { token })).body.links).to.deep.equal([
      { collection: 'orders', document_id: 'o1' },
    ]);
    expect((await call('GET', '/api/kv/links/cache:a')).body.links).to.have.length(2);
  });

  it('keeps full KV read and write for a non-admin key without any permissions, except clearing the store', async () => {
    const token = await t.userToken({ name: 'plain' });
    expect((await call('POST', '/api/kv/set/secret:y', { value: 2 }, { token })).status).to.equal(200);
    expect((await call('GET', '/api/kv/get/secret:x', undefined, { token })).status).to.equal(200);
    expect(
      (await call('POST', '/api/kv/batch/set', { keys: ['p:1', 'p:2'], values: [1, 2] }, { token })).status,
    ).to.equal(200);
    expect((await call('POST', '/api/kv/batch/get', { keys: ['p:1', 'secret:x'] }, { token })).body).to.deep.equal([
      1,
      'v-secret:x',
    ]);
    expect((await call('POST', '/api/kv/find', {}, { token })).body).to.have.length(7);
    expect((await call('GET', '/api/kv/links/cache:a', undefined, { token })).body.links).to.have.length(2);
    expect(
      (await call('POST', '/api/kv/link', { key: 'p:1', collection: 'secrets', document_id: 's2' }, { token })).status,
    ).to.equal(200);
    expect((await call('DELETE', '/api/kv/batch/delete', { keys: ['p:1', 'p:2'] }, { token })).status).to.equal(200);
    expect((await call('DELETE', '/api/kv/delete/secret:y', undefined, { token })).body).to.include({ deleted: true });
    expect403(await call('DELETE', '/api/kv/clear', undefined, { token }), 'clear by a non-admin key');
  });

  it('clears the whole store only for an admin key', async () => {
    const everything = await t.userToken({ name: 'kv-all', kv_permissions: { read: true, write: true } });
    expect403(await call('DELETE', '/api/kv/clear', undefined, { token: everything }), 'clear with a full KV grant');
    expect((await call('POST', '/api/kv/find', {})).body).to.have.length(4);
    const admin = await t.userToken({ name: 'second admin', admin: true });
    expect((await call('DELETE', '/api/kv/clear', undefined, { token: admin })).body).to.deep.equal({
      message: 'success',
      cleared: 4,
    });
  });

  it('validates kv_permissions at key creation with a 400 naming the member', async () => {
    const bad: unknown[] = [
      'yes',
      ['read', 'delete'],
      { read: 'yes' },
      { write: 1 },
      { bogus: true },
      { prefixes: 'cache:' },
      { prefixes: [] },
      { prefixes: [''] },
      { prefixes: [5] },
      { prefixes: ['a\u0001'] },
      { prefixes: ['x'.repeat(1025)] },
      { prefixes: Array.from({ length: 101 }, (_, i) => `p${i}:`) },
    ];
    for (const kv of bad) {
      const r = await call('POST', '/api/auth/keys', { name: 'bad', kv_permissions: kv });
      expect(r.status, JSON.stringify(kv)).to.equal(400);
      expect(r.body.error, JSON.stringify(kv)).to.contain('kv_permissions');
    }
    const hundred = Array.from({ length: 100 }, (_, i) => `p${i}:`);
    expect(
      (await call('POST', '/api/auth/keys', { name: 'ok', kv_permissions: { prefixes: hundred } })).status,
    ).to.equal(201);
    expect((await call('GET', '/api/auth/keys')).body.keys.map((k: { name: string }) => k.name)).to.not.include('bad');
  });

  it('stores kv_permissions durably with the key and lists them', async () => {
    const created = await call('POST', '/api/auth/keys', { name: 'svc', kv_permissions: ['read'] });
    expect(created.body.kv_permissions).to.deep.equal({ read: true, write: false });
    const scoped = await call('POST', '/api/auth/keys', {
      name: 'scoped',
      kv_permissions: { write: true, prefixes: ['cache:'] },
    });
    const dir = t.dataDir;
    await t.stop({ keepData: true });
    t = await TestServer.start({ dataDir: dir });
    call = t.request.bind(t);
    const listed = (await call('GET', '/api/auth/keys')).body.keys;
    expect(listed.find((k: { name: string }) => k.name === 'svc').kv_permissions).to.deep.equal({
      read: true,
      write: false,
    });
    expect(listed.find((k: { name: string }) => k.name === 'scoped').kv_permissions).to.deep.equal({
      read: true,
      write: true,
      prefixes: ['cache:'],
    });
    const token = await t.tokenFor(scoped.body.key);
    expect((await call('POST', '/api/kv/set/cache:z', { value: 1 }, { token })).status).to.equal(200);
    expect403(
      await call('POST', '/api/kv/set/secret:z', { value: 1 }, { token }),
      'set outside the prefix after a restart',
    );
  });

  it('offers a restricted key no WebSocket message that reaches the store', async () => {
    const token = await t.userToken({
      name: 'orders-only',
      collection_permissions: { orders: { read: true, write: true } },
    });
    const ws = new WebSocket(t.url.replace('http', 'ws') + '/api/ws', {
      headers: { authorization: `Bearer ${token}` },
    });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const replies: any[] = [];
    ws.on('message', (d: Buffer) => replies.push(JSON.parse(d.toString())));
    const frames = [
      { type: 'KvGet', messageId: 'g', payload: { key: 'secret:x' } },
      { type: 'KvSet', messageId: 's', payload: { key: 'secret:x', value: 'overwritten' } },
      { type: 'KvClear', messageId: 'c', payload: {} },
    ];
    for (const f of frames) ws.send(JSON.stringify(f));
    const deadline = Date.now() + 5000;
    while (replies.length < frames.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    ws.close();
    expect(replies.map((r) => [r.type, r.messageId])).to.deep.equal([
      ['Error', 'g'],
      ['Error', 's'],
      ['Error', 'c'],
    ]);
    expect(JSON.stringify(replies)).to.not.contain('v-secret:x');
    expect((await call('GET', '/api/kv/get/secret:x')).body.value.value).to.equal('v-secret:x');
  });
});
