/**
 * A primary and a replica (in-process servers) on one real nats-server:
 * the replica follows, answers reads with its applied seq, waits for the seq
 * a client wrote, redirects writes, serves subscriptions; the primary cut
 * off from NATS answers `replicated` writes 503.
 */
import { expect } from 'chai';
import http from 'node:http';
import { TestServer } from '../helpers/test-server.js';
import { natsServerAvailable, startNats, type NatsFixture } from '../helpers/nats-server.js';
import { eventually } from '../helpers/cluster-nodes.js';
import { DEFAULT_STREAM_BOUNDS } from '../../lib/cluster/index.js';

const LEASE_TTL_MS = 1500;

function clusterConfig(nats: NatsFixture, name: string) {
  return {
    cluster: {
      servers: nats.servers.map((s) => s.url),
      name,
      advertiseUrl: 'http://127.0.0.1:0',
      leaseTtlMs: LEASE_TTL_MS,
      streamBounds: DEFAULT_STREAM_BOUNDS,
    },
    settings: { durability: 'replicated' as const },
  };
}

async function role(t: TestServer): Promise<string | undefined> {
  const r = await fetch(t.url + '/api/health');
  return ((await r.json()) as { cluster?: { role: string } }).cluster?.role;
}

describe('cluster: a replica follows the primary (one NATS server)', function () {
  this.timeout(60_000);
  let nats: NatsFixture;
  let primary: TestServer;
  let replica: TestServer;
  let replicaToken: string;

  before(async function () {
    if (!natsServerAvailable()) this.skip();
    nats = await startNats(1);
    primary = await TestServer.start(clusterConfig(nats, 'follow'));
    await eventually('a primary', async () => ((await role(primary)) === 'primary' ? true : undefined), 10_000);
    replica = await TestServer.start(clusterConfig(nats, 'follow'));
    replicaToken = await eventually(
      'the admin key on the replica',
      () => replica.adminToken().catch(() => undefined),
      10_000,
    );
  });

  after(async () => {
    await replica?.stop();
    await primary?.stop();
    await nats?.stop();
  });

  it('shows each node its role, the primary and how far it applied, in health', async () => {
    const health = (await (await fetch(replica.url + '/api/health')).json()) as Record<string, any>;
    expect(health.cluster).to.include({
      name: 'follow',
      role: 'replica',
      primary_url: primary.url,
      lease_ttl_ms: 1500,
    });
    expect(health.lease_ttl_ms).to.equal(1500);
    expect(health.cluster.applied_seq).to.be.a('number');
    expect(health.cluster.lag).to.be.a('number');
    expect(health.cluster.node_id).to.match(/^[0-9a-f]{16}$/);
  });

  it('applies each write of steady writing within tens of milliseconds', async () => {
    const lags: number[] = [];
    for (let i = 0; i < 100; i++) {
      // From the client's send to the replica's apply.
      const sent = performance.now();
      const r = await primary.request('POST', '/api/insert/steady', { i });
      expect(r.status).to.equal(201);
      const seq = Number(r.headers.get('x-eddydb-seq'));
      while (replica.server.db.state.seq < seq) await new Promise((r) => setImmediate(r));
      lags.push(performance.now() - sent);
    }
    lags.sort((a, b) => a - b);
    const p50 = lags[50]!;
    const p99 = lags[98]!;
    // Reported, and bounded loosely: the machine is shared.
    console.log(`      replica lag under steady writes: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms`);
    expect(p50).to.be.below(100);
    const found = await replica.request('POST', '/api/find/steady', {}, { token: replicaToken });
    expect(found.body).to.have.length(100);
  });

  it('answers a read at once with its applied seq, and waits for the seq a client last wrote', async () => {
    const write = await primary.request('POST', '/api/insert/ryw', { name: 'Ann' });
    const seq = write.headers.get('x-eddydb-seq')!;
    const read = await replica.request(
      'POST',
      '/api/find/ryw',
      {},
      {
        token: replicaToken,
        headers: { 'X-EddyDB-Min-Seq': seq },
      },
    );
    expect(read.status).to.equal(200);
    expect(Number(read.headers.get('x-eddydb-seq'))).to.be.at.least(Number(seq));
    expect(read.body.map((r: any) => r.name.value ?? r.name)).to.deep.equal(['Ann']);
  });

  it('answers 504 naming both seqs when the seq asked for does not arrive in time', async () => {
    const far = replica.server.db.state.seq + 1_000_000;
    const read = await replica.request('GET', '/api/collections', undefined, {
      token: replicaToken,
      headers: { 'X-EddyDB-Min-Seq': String(far) },
    });
    expect(read.status).to.equal(504);
    expect(read.body.message).to.match(new RegExp(`seq ${far} did not arrive within 5000 ms`));
  });

  it("takes a token from any node: they are signed with the cluster's shared key", async () => {
    const fromPrimary = await primary.adminToken();
    const read = await replica.request('GET', '/api/collections', undefined, { token: fromPrimary });
    expect(read.status).to.equal(200);
  });

  it('redirects a write to the primary (307, Location on the primary with the same path)', async () => {
    const r = await fetch(`${replica.url}/api/insert/ryw?x=1`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${replicaToken}` },
      body: '{"name":"Bob"}',
    });
    expect(r.status).to.equal(307);
    expect(r.headers.get('location')).to.equal(`${primary.url}/api/insert/ryw?x=1`);
    expect(((await r.json()) as { primary_url: string }).primary_url).to.equal(primary.url);
  });

  it('serves change subscriptions (SSE) on the replica from the changes it applies', async () => {
    const events: string[] = [];
    const req = http.get(
      `${replica.url}/api/subscribe/subs`,
      { headers: { accept: 'text/event-stream', authorization: `Bearer ${replicaToken}` } },
      (res) => res.setEncoding('utf8').on('data', (chunk: string) => events.push(chunk)),
    );
    try {
      await eventually('subscribed', async () => (events.join('').includes('subscribed') ? true : undefined), 5000);
      await primary.request('POST', '/api/insert/subs', { name: 'Cy' });
      await eventually('the insert', async () => (events.join('').includes('Cy') ? true : undefined), 5000);
    } finally {
      req.destroy();
    }
  });

  it('answers replicated writes 503 on a primary cut off from NATS, and takes them again once it is back', async () => {
    nats.servers[0]!.proc.kill('SIGSTOP');
    try {
      const r = await primary.request('POST', '/api/insert/cutoff', { name: 'lost' });
      expect(r.status).to.equal(503);
      expect(r.body.message).to.match(/NATS/);
    } finally {
      nats.servers[0]!.proc.kill('SIGCONT');
    }
    // The lease may have lapsed meanwhile: whichever node is primary now takes the write.
    const back = await eventually(
      'writes again',
      async () => {
        for (const node of [primary, replica]) {
          const token = node === replica ? replicaToken : await primary.adminToken();
          const r = await node.request('POST', '/api/insert/cutoff', { name: 'after' }, { token });
          if (r.status === 201) return r;
        }
        return undefined;
      },
      20_000,
      200,
    ).catch((err: Error) => {
      console.log(primary.logged.map((l) => `${l.level} ${l.msg}`).join('\n'));
      console.log(replica.logged.map((l) => `${l.level} ${l.msg}`).join('\n'));
      throw err;
    });
    expect(back.status).to.equal(201);
  });
});
