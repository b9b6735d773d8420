/**
 * eddydb/testing through real HTTP, as an application's tests use it:
 * memory-only start, seeding, reset and checkpoints, the test clock driving
 * TTLs, tokens and schedules, deterministic ids, isolation between servers,
 * and clear errors for misuse.
 */
import { expect } from 'chai';
import { mkdtempSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fixtureCall } from '../helpers/fixture-call.js';
import { startTestServer, SeedError, type TestServer } from '../../lib/testing.js';
import { closeOutboundPools } from '../../lib/outbound/index.js';
import { startLocalHttp } from '../helpers/local-http.js';

const call = fixtureCall;

/** The `name` of every record, in the order a find without a sort gives (typed values unwrapped). */
const names = async (t: TestServer, collection: string): Promise<string[]> =>
  ((await call(t, 'POST', `/api/find/${collection}`, {})).body as Array<{ name: { value: string } }>).map(
    (r) => r.name.value,
  );

describe('eddydb/testing: startTestServer', function () {
  this.timeout(20_000);
  const servers: TestServer[] = [];
  const start = async (...args: Parameters<typeof startTestServer>) => {
    const t = await startTestServer(...args);
    servers.push(t);
    return t;
  };
  afterEach(async () => {
    for (const t of servers.splice(0)) await t.close().catch(() => undefined);
  });
  after(() => closeOutboundPools());

  it('starts memory-only on an ephemeral port, writing nothing to disk', async () => {
    const cwd = process.cwd();
    const dir = mkdtempSync(path.join(tmpdir(), 'eddydb-fixture-'));
    process.chdir(dir);
    try {
      const t = await start();
      expect(t.url).to.match(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(t.wsUrl).to.equal(`ws://127.0.0.1:${t.port}/api/ws`);
      expect((await call(t, 'POST', '/api/insert/users', { name: 'Ann' })).status).to.equal(201);
      const health = await (await fetch(`${t.url}/api/health`)).json();
      expect(health).to.have.property('status');
      expect(readdirSync(dir)).to.deep.equal([]);
    } finally {
      process.chdir(cwd);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('resets to the seeded state: records written since go, seeded ones come back in their order', async () => {
    const t = await start({
      seed: { collections: { users: [{ name: 'Ann' }, { name: 'Bob' }, { name: 'Cy' }] }, kv: { flag: 'on' } },
    });
    const [ann, bob] = (await call(t, 'POST', '/api/find/users', {})).body as Array<{ id: string }>;
    await call(t, 'POST', '/api/insert/users', { name: 'Dee' });
    await call(t, 'PUT', `/api/update/users/${ann!.id}`, { name: 'Ann II' });
    await call(t, 'DELETE', `/api/delete/users/${bob!.id}`);
    await call(t, 'POST', '/api/kv/set/flag', { value: 'off' });
    await call(t, 'POST', '/api/insert/orders', { total: 1 });
    expect(await names(t, 'users')).to.deep.equal(['Ann II', 'Cy', 'Dee']);

    await t.reset();
    expect(await names(t, 'users')).to.deep.equal(['Ann', 'Bob', 'Cy']);
    expect((await call(t, 'GET', '/api/kv/get/flag')).body.value).to.deep.equal({ type: 'String', value: 'on' });
    expect((await call(t, 'GET', '/api/collections/orders')).status).to.equal(404);
    // And again: reset is repeatable.
    await call(t, 'POST', '/api/insert/users', { name: 'Eve' });
    await t.reset();
    expect(await names(t, 'users')).to.deep.equal(['Ann', 'Bob', 'Cy']);
  });

  it('restores checkpoints, and refuses one discarded by an older restore or taken on another server', async () => {
    const t = await start();
    await call(t, 'POST', '/api/insert/items', { name: 'one' });
    const first = await t.checkpoint();
    await call(t, 'POST', '/api/insert/items', { name: 'two' });
    const second = await t.checkpoint();
    await call(t, 'POST', '/api/insert/items', { name: 'three' });

    await t.restore(second);
    expect(await names(t, 'items')).to.deep.equal(['one', 'two']);
    await t.restore(first);
    expect(await names(t, 'items')).to.deep.equal(['one']);
    await t.restore(first);
    expect(await names(t, 'items')).to.deep.equal(['one']);
    let refused: unknown;
    await t.restore(second).catch((err: unknown) => (refused = err));
    expect((refused as Error).message).to.match(/discarded when an older checkpoint was restored/);

    const other = await start();
    refused = undefined;
    await other.restore(first).catch((err: unknown) => (refused = err));
    expect((refused as Error).message).to.match(/taken on another server/);
  });

  it('drives TTL expiry, key-value TTLs and token expiry from the clock, without sleeping', async () => {
    const t = await start({ clock: { frozen: true, start: '2030-01-01T00:00:00Z' } });
    const token = await t.token();
    const { body } = await call(t, 'POST', '/api/insert/sessions', { user: 'ann', ttl: '10m' }, token);
    await call(t, 'POST', '/api/kv/set/otp', { value: '1234', ttl: 60 }, token);
    await t.clock.advance('5m');
    expect((await call(t, 'GET', `/api/find/sessions/${body.id}`, undefined, token)).status).to.equal(200);
    expect((await call(t, 'GET', '/api/kv/get/otp', undefined, token)).status).to.equal(404);
    await t.clock.advance('6m');
    expect((await call(t, 'GET', `/api/find/sessions/${body.id}`, undefined, token)).status).to.equal(404);
    expect(t.clock.date().toISOString()).to.equal('2030-01-01T00:11:00.000Z');
    await t.clock.advance('2h');
    expect((await call(t, 'GET', '/api/collections', undefined, token)).status).to.equal(401);
    // A reset puts the clock back too.
    await t.reset();
    expect(t.clock.date().toISOString()).to.equal('2030-01-01T00:00:00.000Z');
  });

  it('purges trash past its retention when the clock moves past it', async () => {
    const t = await start({ clock: { frozen: true, start: '2030-01-01T00:00:00Z' } });
    const kept = (await call(t, 'POST', '/api/insert/items', { name: 'kept' })).body.id as string;
    const purged = (await call(t, 'POST', '/api/insert/items', { name: 'purged' })).body.id as string;
    await call(t, 'DELETE', `/api/delete/items/${kept}`);
    await call(t, 'DELETE', `/api/delete/items/${purged}`);
    await t.clock.advance('1d');
    expect((await call(t, 'POST', `/api/trash/items/${kept}`)).status).to.equal(200);
    await t.clock.advance('31d');
    expect((await call(t, 'POST', `/api/trash/items/${purged}`)).status).to.equal(404);
  });

  it('fires due schedules when the clock moves', async () => {
    const t = await start({ clock: { frozen: true, start: '2030-01-01T00:00:00Z' } });
    await call(t, 'POST', '/api/functions', {
      label: 'tick',
      name: 'tick',
      functions: [{ type: 'Insert', collection: 'ticks', record: { at: 'now' } }],
    });
    const created = await call(t, 'POST', '/api/schedules', {
      name: 'every minute',
      cron: '0 * * * * *',
      action: { type: 'function', label: 'tick' },
    });
    expect(created.status, JSON.stringify(created.body)).to.be.oneOf([200, 201]);
    await t.clock.advance('1m');
    expect((await call(t, 'POST', '/api/find/ticks', {})).body).to.have.length(1);
  });

  it('seeds schemas, indexes, records, key-value entries with TTLs and functions, checked like the API', async () => {
    const t = await start({
      seed: {
        collections: {
          users: {
            schema: { fields: { email: { field_type: 'String', required: true, unique: true } } },
            indexes: [{ field: 'email', type: 'hash' }],
            records: [{ email: 'ann@example.com' }],
          },
        },
        kv: [{ key: 'session', value: { user: 'ann' }, ttl: '1h' }],
        functions: [{ label: 'all_users', name: 'all', functions: [{ type: 'FindAll', collection: 'users' }] }],
      },
    });
    const duplicate = await call(t, 'POST', '/api/insert/users', { email: 'ann@example.com' });
    expect(duplicate.status).to.be.within(400, 409);
    expect(JSON.stringify(duplicate.body)).to.match(/unique/i);
    expect((await call(t, 'GET', '/api/indexes/query/users')).body).to.satisfy((b: unknown) =>
      JSON.stringify(b).includes('email'),
    );
    expect(JSON.stringify((await call(t, 'GET', '/api/kv/get/session')).body.value)).to.include('ann');
    expect((await call(t, 'POST', '/api/functions/all_users', {})).status).to.equal(200);

    let refused: unknown;
    await startTestServer({ seed: { collections: { users: { rows: [] } } } as never }).catch((e) => (refused = e));
    expect(refused).to.be.instanceOf(SeedError);
    expect((refused as Error).message).to.match(/seed\.collections\.users\.rows is not a collection member/);
    refused = undefined;
    await startTestServer({
      seed: {
        collections: {
          users: {
            schema: { fields: { email: { field_type: 'String', required: true } } },
            records: [{ name: 'x' }],
          },
        },
      },
    }).catch((e) => (refused = e));
    expect((refused as Error).message).to.match(/seed collection 'users', records 0-0/);
  });

  it('seeds from a folder of JSON and NDJSON files, and names a file that does not belong', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'eddydb-seed-'));
    try {
      mkdirSync(path.join(dir, 'collections'));
      writeFileSync(path.join(dir, 'collections', 'users.ndjson'), '{"name":"Ann"}\n{"name":"Bob"}\n');
      writeFileSync(
        path.join(dir, 'collections', 'orders.json'),
        JSON.stringify({ records: [{ total: 12345678901234567890n.toString() }] }),
      );
      writeFileSync(path.join(dir, 'kv.json'), '{"big": 1234567890123456789}');
      const t = await start({ seed: dir });
      expect(await names(t, 'users')).to.deep.equal(['Ann', 'Bob']);
      const big = await fetch(`${t.url}/api/kv/get/big`, { headers: { authorization: `Bearer ${await t.token()}` } });
      expect(await big.text()).to.include('1234567890123456789');

      writeFileSync(path.join(dir, 'users.json'), '[]');
      let refused: unknown;
      await startTestServer({ seed: dir }).catch((e) => (refused = e));
      expect((refused as Error).message).to.match(
        /users\.json is not part of a seed folder: records go in collections/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('makes the same ids from the same seed, test after test', async () => {
    const a = await start({ ids: 'fixture-seed' });
    const b = await start({ ids: 'fixture-seed' });
    const c = await start({ ids: 'another-seed' });
    const id = async (t: TestServer) => (await call(t, 'POST', '/api/insert/things', { n: 1 })).body.id as string;
    const first = await id(a);
    expect(await id(b)).to.equal(first);
    expect(await id(c)).to.not.equal(first);
    const second = await id(a);
    await a.reset();
    expect(await id(a)).to.equal(first);
    expect(await id(a)).to.equal(second);
  });

  it('keeps servers in one process apart: own state, own clock', async () => {
    const a = await start({ clock: { frozen: true, start: '2030-01-01T00:00:00Z' } });
    const b = await start({ clock: { frozen: true, start: '2040-01-01T00:00:00Z' } });
    await call(a, 'POST', '/api/insert/notes', { text: 'a' });
    await a.clock.advance('1d');
    expect((await call(b, 'POST', '/api/find/notes', {})).body).to.deep.equal([]);
    expect(b.clock.date().toISOString()).to.equal('2040-01-01T00:00:00.000Z');
  });

  it('ends subscriptions and rolls back open transactions at a reset', async () => {
    const t = await start();
    await call(t, 'POST', '/api/insert/items', { name: 'one' });
    const token = await t.token();
    const sse = await fetch(`${t.url}/api/subscribe/items?token=${token}`);
    const reader = sse.body!.getReader();
    await reader.read();
    const begun = await call(t, 'POST', '/api/transactions', {});
    const txId = begun.body.transaction_id as string;
    await call(t, 'POST', `/api/insert/items?transaction_id=${txId}`, { name: 'staged' });
    await t.reset();
    for (;;) {
      const { done } = await reader.read();
      if (done) break;
    }
    expect((await call(t, 'GET', `/api/transactions/${txId}`)).status).to.equal(404);
    expect(await names(t, 'items')).to.deep.equal([]);
  });

  it('waits for a request in flight before resetting, and names it when it takes too long', async () => {
    const slow = await startLocalHttp();
    slow.handler = (_req, res) => setTimeout(() => res.end('{}'), 400);
    try {
      const t = await start({
        settings: { outbound_allow_hosts: ['127.0.0.1'] },
        resetTimeoutMs: 100,
      });
      await call(t, 'POST', '/api/functions', {
        label: 'slow',
        name: 'slow',
        functions: [{ type: 'HttpRequest', url: `${slow.url}/slow` }],
      });
      const token = await t.token();
      const inFlight = call(t, 'POST', '/api/functions/slow', {}, token);
      await new Promise((r) => setTimeout(r, 100));
      let refused: unknown;
      await t.reset().catch((e) => (refused = e));
      expect((refused as Error).message).to.match(/requests still in flight: POST \/api\/functions\/slow/);
      expect((await inFlight).status).to.equal(200);
      await t.reset();
    } finally {
      await slow.close();
    }
  });

  it('refuses a second close with a message saying why', async () => {
    const t = await startTestServer();
    await t.close();
    let refused: unknown;
    await t.close().catch((e) => (refused = e));
    expect((refused as Error).message).to.match(/already closed: close it once/);
    refused = undefined;
    await t.reset().catch((e) => (refused = e));
    expect((refused as Error).message).to.match(/cannot reset: this test server is closed/);
  });

  it('answers chat offline with the local provider', async () => {
    const t = await start();
    const chat = await call(t, 'POST', '/api/chat', { collections: [], llm_provider: 'local' });
    expect(chat.status, JSON.stringify(chat.body)).to.be.oneOf([200, 201]);
  });

  it('with persist keeps its data across a restart, a reset included', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'eddydb-persist-'));
    try {
      const t = await startTestServer({ persist: dir, seed: { collections: { users: [{ name: 'Ann' }] } } });
      await call(t, 'POST', '/api/insert/users', { name: 'Bob' });
      await t.reset();
      await call(t, 'POST', '/api/insert/users', { name: 'Cy' });
      await t.close();
      const again = await start({ persist: dir, seed: { collections: { users: [{ name: 'Ann' }] } } });
      expect(await names(again, 'users')).to.deep.equal(['Ann', 'Cy']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
