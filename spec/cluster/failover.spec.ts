/**
 * Three EddyDB nodes (child processes) on a three-server NATS cluster, in
 * `replicated` mode: kill -9 of the primary under 16 writers, a NATS server
 * killed, the old primary restarted.
 */
import { expect } from 'chai';
import { natsServerAvailable, startNats, type NatsFixture } from '../helpers/nats-server.js';
import {
  clusterHealth,
  eventually,
  insert,
  nodeToken,
  restartNode,
  startNode,
  stopNode,
  type ClusterNodeProcess,
} from '../helpers/cluster-nodes.js';
import { removeDir } from '../helpers/temp-dir.js';

const LEASE_TTL_MS = 2000;
const ARGS = ['--lease-ttl', String(LEASE_TTL_MS), '--durability', 'replicated'];

/** The node that says it is primary, if any. */
async function primaryOf(nodes: readonly ClusterNodeProcess[]): Promise<ClusterNodeProcess | undefined> {
  for (const node of nodes) if ((await clusterHealth(node.child.url))?.role === 'primary') return node;
  return undefined;
}

/** Every id in `collection` on `node`. */
async function ids(node: ClusterNodeProcess, collection: string): Promise<Set<string>> {
  const r = await fetch(`${node.child.url}/api/find/${collection}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${node.token}` },
    body: '{}',
  });
  if (r.status === 404) return new Set();
  return new Set(((await r.json()) as Array<{ id: string }>).map((r) => r.id));
}

/**
 * `count` writers inserting into `collection` on whichever node is primary until `stop()`; every acknowledged
 * (201) id is kept.
 */
function writers(nodes: () => readonly ClusterNodeProcess[], collection: string, count: number) {
  const acked = new Set<string>();
  let running = true;
  let target: ClusterNodeProcess | undefined;
  const one = async (w: number) => {
    for (let i = 0; running; i++) {
      target ??= await primaryOf(nodes());
      if (!target) {
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      try {
        const r = await insert(target.child.url, target.token, collection, { w, i });
        if (r.status === 201) acked.add(((await r.json()) as { id: string }).id);
        else {
          await r.body?.cancel();
          target = undefined;
          await new Promise((r) => setTimeout(r, 20));
        }
      } catch {
        target = undefined;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  };
  const all = Promise.all(Array.from({ length: count }, (_, w) => one(w)));
  return {
    acked,
    stop: async () => {
      running = false;
      await all;
    },
  };
}

describe('cluster: failover on a three-server NATS cluster (replicated)', function () {
  this.timeout(180_000);
  let nats: NatsFixture;
  let nodes: ClusterNodeProcess[] = [];

  before(async function () {
    if (!natsServerAvailable()) this.skip();
    nats = await startNats(3);
    // All three at once: one of them wins the lease.
    nodes = await Promise.all([0, 1, 2].map(() => startNode(nats.urls, 'failover', ARGS)));
    await eventually('a primary', () => primaryOf(nodes), 15_000);
  });

  after(async () => {
    for (const node of nodes) await stopNode(node, 'SIGKILL');
    for (const node of nodes) removeDir(node.dataDir);
    await nats?.stop();
  });

  it('keeps the stream and the lease on three NATS servers, with one primary among nodes started together', async () => {
    const health = (await (await fetch(nodes[0]!.child.url + '/api/health')).json()) as Record<string, any>;
    expect(health.cluster.stream_replicas).to.equal(3);
    const roles = await Promise.all(nodes.map(async (n) => (await clusterHealth(n.child.url))?.role));
    expect(roles.filter((r) => r === 'primary')).to.have.length(1);
  });

  it('kill -9 of the primary under 16 writers: a replica takes over within the lease and a second, no acknowledged write is lost, the old primary rejoins', async () => {
    const load = writers(() => nodes, 'acked', 16);
    await eventually('writes', async () => (load.acked.size >= 200 ? true : undefined), 30_000);
    const old = (await primaryOf(nodes))!;
    await stopNode(old, 'SIGKILL');
    const killedAt = Date.now();
    const others = nodes.filter((n) => n !== old);
    const next = await eventually('a new primary', () => primaryOf(others), 15_000, 20);
    const failoverMs = Date.now() - killedAt;
    console.log(`      failover: ${failoverMs} ms (lease ${LEASE_TTL_MS} ms)`);
    expect(failoverMs).to.be.below(LEASE_TTL_MS + 1000);
    const before = load.acked.size;
    await eventually(
      'writes on the new primary',
      async () => (load.acked.size >= before + 200 ? true : undefined),
      30_000,
    );
    await load.stop();

    const kept = await ids(next, 'acked');
    const lost = [...load.acked].filter((id) => !kept.has(id));
    expect(lost, 'acknowledged writes missing on the new primary').to.deep.equal([]);

    await restartNode(old);
    const rejoined = await eventually(
      'the old primary back as a replica, caught up',
      async () => {
        const health = await clusterHealth(old.child.url);
        const target = (await clusterHealth(next.child.url))?.applied_seq;
        return health?.role === 'replica' && health.applied_seq === target ? health : undefined;
      },
      30_000,
      100,
    );
    expect(rejoined.primary_url).to.equal(next.child.url);
    old.token = await nodeToken(old.child.url);
    const onOld = await ids(old, 'acked');
    expect([...load.acked].filter((id) => !onOld.has(id))).to.deep.equal([]);
  });

  it('goes on writing when one NATS server is killed', async () => {
    const victim = nats.servers[1]!;
    await victim.kill('SIGKILL');
    try {
      const load = writers(() => nodes, 'one-down', 4);
      await eventually(
        'writes with a NATS server down',
        async () => (load.acked.size >= 100 ? true : undefined),
        30_000,
      );
      await load.stop();
      const primary = (await primaryOf(nodes))!;
      const kept = await ids(primary, 'one-down');
      expect([...load.acked].filter((id) => !kept.has(id))).to.deep.equal([]);
    } finally {
      await victim.restart();
    }
  });
});
