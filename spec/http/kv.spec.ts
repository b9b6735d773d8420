import { expect } from 'chai';
import { TestServer } from '../helpers/test-server.js';

describe('key-value store over HTTP', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await TestServer.start();
  });
  afterEach(async () => {
    await t.stop();
  });

  it('sets and gets a value as a typed wrapper, keeping typed wrappers inside', async () => {
    expect(
      (await t.request('POST', '/api/kv/set/user:1', { value: { userId: 123, username: 'john' } })).status,
    ).to.equal(200);
    const got = await t.request('GET', '/api/kv/get/user:1');
    expect(got.body).to.deep.equal({ value: { type: 'Object', value: { userId: 123, username: 'john' } } });
    await t.request('POST', '/api/kv/set/price', { value: { type: 'Decimal', value: '29.99' } });
    expect((await t.request('GET', '/api/kv/get/price')).body.value).to.deep.equal({ type: 'Decimal', value: '29.99' });
  });

  it('answers 404 for a missing key, and keys with / travel percent-encoded as one segment', async () => {
    expect((await t.request('GET', '/api/kv/get/nope')).status).to.equal(404);
    await t.request('POST', `/api/kv/set/${encodeURIComponent('session/abc')}`, { value: 'x' });
    expect((await t.request('GET', `/api/kv/get/${encodeURIComponent('session/abc')}`)).body.value.value).to.equal('x');
  });

  it('expires keys on the clock, for integer-second and duration-string TTLs', async () => {
    await t.request('POST', '/api/kv/set/a', { value: 1, ttl: 60 });
    await t.request('POST', '/api/kv/set/b', { value: 2, ttl: '1h' });
    t.clock.advance(61_000);
    expect((await t.request('GET', '/api/kv/get/a')).status).to.equal(404);
    expect((await t.request('GET', '/api/kv/get/b')).status).to.equal(200);
    expect(
      (await t.request('POST', '/api/kv/find', { include_expired: true })).body.map((e: { key: string }) => e.key),
    ).to.include('a');
    expect(await t.server.db.kv.sweep()).to.equal(1);
    expect(
      (await t.request('POST', '/api/kv/find', { include_expired: true })).body.map((e: { key: string }) => e.key),
    ).to.deep.equal(['b']);
  });

  it('deletes, clears, and answers every call with a JSON body', async () => {
    await t.request('POST', '/api/kv/set/a', { value: 1 });
    const del = await t.request('DELETE', '/api/kv/delete/a');
    expect(del.body).to.include({ deleted: true });
    expect((await t.request('DELETE', '/api/kv/delete/a')).body).to.include({ deleted: false });
    await t.request('POST', '/api/kv/set/b', { value: 2 });
    expect((await t.request('DELETE', '/api/kv/clear')).body).to.include({ message: 'success' });
    expect((await t.request('POST', '/api/kv/find', {})).body).to.deep.equal([]);
  });

  it('batch-gets raw values in key order with null for missing keys, batch-sets and batch-deletes with pairs', async () => {
    const set = await t.request('POST', '/api/kv/batch/set', {
      keys: ['k1', 'k2'],
      values: [{ a: 1 }, 'two'],
      ttl: 30,
    });
    expect(set.body).to.deep.equal([
      ['k1', true],
      ['k2', true],
    ]);
    expect((await t.request('POST', '/api/kv/batch/get', { keys: ['k2', 'missing', 'k1'] })).body).to.deep.equal([
      'two',
      null,
      { a: 1 },
    ]);
    const del = await t.request('DELETE', '/api/kv/batch/delete', { keys: ['k1', 'missing'] });
    expect(del.body).to.deep.equal([
      ['k1', true],
      ['missing', false],
    ]);
  });

  it('finds keys by an unanchored regular expression', async () => {
    for (const k of ['config:app:theme', 'config:app:lang', 'config:db', 'cache:product:1', 'my-config:app'])
      await t.request('POST', `/api/kv/set/${k}`, { value: k });
    const keys = async (pattern: string) =>
      (await t.request('POST', '/api/kv/find', { pattern })).body.map((e: { key: string }) => e.key);
    expect(await keys('cache:product:.*')).to.deep.equal(['cache:product:1']);
    expect(await keys('config:app:*')).to.deep.equal(['config:app:lang', 'config:app:theme', 'my-config:app']);
    expect(await keys('^config:')).to.deep.equal(['config:app:lang', 'config:app:theme', 'config:db']);
    expect((await t.request('POST', '/api/kv/find', { pattern: '(' })).status).to.equal(400);
  });

  it('finds one page at a time with limit and after, in key order, within a prefix grant', async () => {
    for (const k of ['app:a', 'app:b', 'app:c', 'app:d', 'other:x'])
      await t.request('POST', `/api/kv/set/${k}`, { value: k });
    const keys = async (body: object, token?: string) =>
      (await t.request('POST', '/api/kv/find', body, { token })).body.map((e: { key: string }) => e.key);
    expect(await keys({ limit: 2 })).to.deep.equal(['app:a', 'app:b']);
    expect(await keys({ limit: 2, after: 'app:b' })).to.deep.equal(['app:c', 'app:d']);
    expect(await keys({ pattern: ':[bx]$', limit: 1, after: 'app:b' })).to.deep.equal(['other:x']);
    const limited = await t.userToken({
      collection_permissions: {},
      kv_permissions: { read: true, prefixes: ['other:'] },
    });
    expect(await keys({ limit: 1 }, limited)).to.deep.equal(['other:x']);
    for (const bad of [{ limit: 0 }, { limit: 10_001 }, { limit: 1.5 }, { after: 3 }])
      expect((await t.request('POST', '/api/kv/find', bad)).status).to.equal(400);
  });

  it('links keys to records and unlinks them', async () => {
    const link = await t.request('POST', '/api/kv/link', { key: 'cache:u1', collection: 'users', document_id: 'u1' });
    expect(link.body).to.include({ status: 'linked' });
    expect((await t.request('GET', '/api/kv/links/cache:u1')).body.links).to.deep.equal([
      { collection: 'users', document_id: 'u1' },
    ]);
    await t.request('POST', '/api/kv/unlink', { key: 'cache:u1', collection: 'users', document_id: 'u1' });
    expect((await t.request('GET', '/api/kv/links/cache:u1')).body.links).to.deep.equal([]);
  });

  it('keeps values, TTLs and links across a restart', async () => {
    await t.request('POST', '/api/kv/set/durable', { value: { n: 1 }, ttl: 3600 });
    await t.request('POST', '/api/kv/link', { key: 'durable', collection: 'c', document_id: 'd' });
    const dir = t.dataDir;
    await t.stop({ keepData: true });
    t = await TestServer.start({ dataDir: dir });
    expect((await t.request('GET', '/api/kv/get/durable')).body.value.value).to.deep.equal({ n: 1 });
    expect((await t.request('GET', '/api/kv/links/durable')).body.links).to.have.length(1);
  });

  it('rejects bad input with 400 and changes nothing', async () => {
    expect((await t.request('POST', '/api/kv/set/x', { nope: 1 })).status).to.equal(400);
    expect((await t.request('POST', '/api/kv/set/x', { value: 1, ttl: 'soon' })).status).to.equal(400);
    expect(
      (
        await t.request(
          'POST',
          '/api/kv/set/x',
          { value: { __proto__: { polluted: 1 } } },
          { raw: '{"value":{"__proto__":{"polluted":1}}}' },
        )
      ).status,
    ).to.equal(400);
    expect((await t.request('POST', '/api/kv/batch/get', { keys: 'k' })).status).to.equal(400);
    expect((await t.request('POST', '/api/kv/batch/set', { keys: ['a'], values: [] })).status).to.equal(400);
    expect(
      (await t.request('POST', '/api/kv/link', { key: 'k', collection: '__proto__', document_id: 'd' })).status,
    ).to.equal(400);
    expect((await t.request('POST', '/api/kv/find', {})).body).to.deep.equal([]);
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
  });
});
