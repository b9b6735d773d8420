/**
 * Ripples over loopback: two and three real servers replicating committed
 * changes, with bypass_ripple, transactions, a peer that goes down and comes
 * back, a sender restarted with work pending, and resync after a bypassed
 * import.
 */
import { expect } from 'chai';
import { createServer } from 'node:net';
import { ADMIN_KEY, TestServer } from '../helpers/test-server.js';
import { tempDir, removeDir } from '../helpers/temp-dir.js';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

async function eventually(check: () => Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const count = async (t: TestServer, c: string) => (await t.request('GET', `/api/${c}/count`)).body.count as number;
const has = async (t: TestServer, c: string, id: string) =>
  (await t.request('GET', `/api/find/${c}/${encodeURIComponent(id)}`)).status === 200;
const peer = (t: TestServer) => ({ url: t.url, key: ADMIN_KEY });
const start = (extra: Parameters<typeof TestServer.start>[0] = {}) =>
  TestServer.start({ rippleMaxBackoffMs: 200, ...extra });

describe('ripples (replication between servers)', function () {
  this.timeout(60_000);
  const servers: TestServer[] = [];
  const track = (t: TestServer) => {
    servers.push(t);
    return t;
  };
  /** Stops every tracked server; a test stops them before removing a data dir one of them still writes to. */
  const stopAll = async () => {
    for (const t of servers.splice(0)) await t.stop().catch(() => undefined);
  };
  afterEach(stopAll);

  it('propagates inserts, updates and deletes to a peer, but not bypassed writes', async () => {
    const a = track(await start()),
      b = track(await start());
    a.server.ripples.setPeers([peer(b)]);
    const ins = await a.request('POST', '/api/insert/users', { id: 'u1', name: 'Ann' });
    expect(ins.status).to.equal(201);
    await a.request('POST', '/api/insert/users?bypass_ripple=true', { id: 'u2', name: 'Quiet' });
    await eventually(() => has(b, 'users', 'u1'), 'u1 on b');
    await a.request('PUT', '/api/update/users/u1', { name: 'Anne' });
    await eventually(
      async () => (await b.request('GET', '/api/find/users/u1')).body.name?.value === 'Anne',
      'update on b',
    );
    await a.request('DELETE', '/api/delete/users/u1');
    await eventually(async () => !(await has(b, 'users', 'u1')), 'delete on b');
    expect(await has(b, 'users', 'u2')).to.equal(false);
    const status = await a.request('GET', '/api/ripple/status');
    expect(status.body.peers[0]).to.include({ url: b.url, lag: 0 });
  });

  it("defers transaction writes to commit and honours each operation's bypass_ripple", async () => {
    const a = track(await start()),
      b = track(await start());
    a.server.ripples.setPeers([peer(b)]);
    const tx = (await a.request('POST', '/api/transactions', { isolation_level: 'ReadCommitted' })).body.transaction_id;
    await a.request('POST', `/api/insert/orders?transaction_id=${tx}`, { id: 'o1' });
    await a.request('POST', `/api/insert/orders?transaction_id=${tx}&bypass_ripple=true`, { id: 'o2' });
    await new Promise((r) => setTimeout(r, 200));
    expect(await has(b, 'orders', 'o1')).to.equal(false);
    expect((await a.request('POST', `/api/transactions/${tx}/commit`)).status).to.equal(200);
    await eventually(() => has(b, 'orders', 'o1'), 'o1 after commit');
    expect(await has(b, 'orders', 'o2')).to.equal(false);
  });

  it('converges two-way without echoing batches back and forth', async () => {
    const a = track(await start()),
      b = track(await start());
    a.server.ripples.setPeers([peer(b)]);
    b.server.ripples.setPeers([peer(a)]);
    for (let i = 0; i < 20; i++) {
      await a.request('POST', '/api/insert/items', { id: `a${i}` });
      await b.request('POST', '/api/insert/items', { id: `b${i}` });
    }
    await eventually(async () => (await count(a, 'items')) === 40 && (await count(b, 'items')) === 40, 'both at 40');
    const seqA = a.server.db.state.seq,
      seqB = b.server.db.state.seq;
    await new Promise((r) => setTimeout(r, 300));
    expect(a.server.db.state.seq).to.equal(seqA);
    expect(b.server.db.state.seq).to.equal(seqB);
  });

  it('converges around a three-node ring and then goes quiet', async () => {
    const a = track(await start()),
      b = track(await start()),
      c = track(await start());
    a.server.ripples.setPeers([peer(b)]);
    b.server.ripples.setPeers([peer(c)]);
    c.server.ripples.setPeers([peer(a)]);
    await a.request('POST', '/api/insert/ring', { id: 'from-a' });
    await c.request('POST', '/api/insert/ring', { id: 'from-c' });
    await b.request('POST', '/api/insert/ring', { id: 'from-b' });
    for (const t of [a, b, c]) await eventually(async () => (await count(t, 'ring')) === 3, 'ring converged');
    const seqs = [a, b, c].map((t) => t.server.db.state.seq);
    await new Promise((r) => setTimeout(r, 400));
    expect([a, b, c].map((t) => t.server.db.state.seq)).to.deep.equal(seqs);
  });

  it('retries a peer that is down and delivers everything once it restarts', async () => {
    const port = await freePort();
    const dirB = tempDir('eddydb-ripple-b-');
    try {
      const a = track(await start());
      let b = await start({ port, dataDir: dirB });
      a.server.ripples.setPeers([{ url: `http://127.0.0.1:${port}`, key: ADMIN_KEY }]);
      await a.request('POST', '/api/insert/stream', { id: 'before' });
      await eventually(() => has(b, 'stream', 'before'), 'first write');
      await b.stop({ keepData: true });
      for (let i = 0; i < 25; i++) await a.request('POST', '/api/insert/stream', { id: `during-${i}` });
      await eventually(
        async () => (await a.request('GET', '/api/ripple/status')).body.peers[0].last_error !== null,
        'error reported',
      );
      const st = (await a.request('GET', '/api/ripple/status')).body.peers[0];
      expect(st.lag).to.be.greaterThan(0);
      b = track(await start({ port, dataDir: dirB }));
      await eventually(async () => (await count(b, 'stream')) === 26, 'caught up after restart');
    } finally {
      await stopAll();
      removeDir(dirB);
    }
  });

  it('keeps undelivered changes across a restart of the sender (the log is the outbox)', async () => {
    const portB = await freePort();
    const dirA = tempDir('eddydb-ripple-a-');
    try {
      let a = await start({ dataDir: dirA, ripplePeers: [{ url: `http://127.0.0.1:${portB}`, key: ADMIN_KEY }] });
      for (let i = 0; i < 10; i++) await a.request('POST', '/api/insert/outbox', { id: `p${i}` });
      await a.stop({ keepData: true });
      a = track(await start({ dataDir: dirA, ripplePeers: [{ url: `http://127.0.0.1:${portB}`, key: ADMIN_KEY }] }));
      const b = track(await start({ port: portB }));
      await eventually(async () => (await count(b, 'outbox')) === 10, 'delivered after sender restart');
    } finally {
      await stopAll();
      removeDir(dirA);
    }
  });

  it('resyncs a replica after a bypassed bulk import', async () => {
    const a = track(await start()),
      b = track(await start());
    a.server.ripples.setPeers([peer(b)]);
    const inserts = Array.from({ length: 300 }, (_, i) => ({ data: { id: `r${i}`, n: i } }));
    expect((await a.request('POST', '/api/batch/insert/imported?bypass_ripple=true', { inserts })).status).to.equal(
      201,
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(await count(b, 'imported')).to.equal(0);
    const r = await a.request('POST', '/api/ripple/resync', { collections: ['imported'] });
    expect(r.status).to.equal(200);
    expect(r.body.records).to.equal(300);
    expect(await count(b, 'imported')).to.equal(300);
    await a.request('POST', '/api/insert/imported', { id: 'after' });
    await eventually(() => has(b, 'imported', 'after'), 'normal stream after resync');
  });

  it('accepts shipped batches only from admin keys and rejects malformed ones', async () => {
    const a = track(await start());
    const user = await a.userToken({ name: 'plain' });
    expect((await a.request('POST', '/api/ripple/apply', { batches: [] }, { token: user })).status).to.equal(403);
    expect(
      (await a.request('POST', '/api/ripple/apply', { batches: [{ origin: 'zz!', origin_seq: 1, effects: [] }] }))
        .status,
    ).to.equal(400);
    expect(
      (
        await a.request('POST', '/api/ripple/apply', {
          batches: [{ origin: 'abcd', origin_seq: 1, effects: [{ t: 'keyPut' }] }],
        })
      ).status,
    ).to.equal(400);
    expect((await a.request('GET', '/api/ripple/status', undefined, { token: user })).status).to.equal(403);
  });
});

describe('ripples to a peer killed with SIGKILL mid-stream (real process)', function () {
  this.timeout(90_000);

  it('delivers every change once the killed peer restarts on the same port and data', async () => {
    const { startChild, killChild, CHILD_ADMIN_KEY } = await import('../helpers/child-server.js');
    const port = await freePort();
    const dirB = tempDir('eddydb-ripple-kill-');
    const a = await start({ ripplePeers: [{ url: `http://127.0.0.1:${port}`, key: CHILD_ADMIN_KEY }] });
    let b = await startChild(dirB, ['--port', String(port)]);
    try {
      const countOnB = async () => {
        const tok = (await (
          await fetch(`${b.url}/api/auth/token`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ api_key: CHILD_ADMIN_KEY }),
          })
        ).json()) as { token: string };
        const r = await fetch(`${b.url}/api/stream/count`, { headers: { authorization: `Bearer ${tok.token}` } });
        return r.status === 200 ? ((await r.json()) as { count: number }).count : 0;
      };
      const writes = (async () => {
        for (let i = 0; i < 300; i++) await a.request('POST', '/api/insert/stream', { id: `w${i}`, i });
      })();
      await eventually(async () => (await countOnB()) > 20, 'replication under way');
      await killChild(b);
      await writes;
      b = await startChild(dirB, ['--port', String(port)]);
      await eventually(async () => (await countOnB()) === 300, 'all 300 on the restarted peer', 30_000);
    } finally {
      await killChild(b, 'SIGTERM');
      await a.stop();
      removeDir(dirB);
    }
  });
});
