/**
 * An old primary with an unacknowledged tail: in `always` mode its writes
 * were acknowledged locally while NATS was out of reach, it was killed, and
 * another node took over. Restarted, it drops those batches (saying so in
 * its log, the files set aside) and follows the new primary.
 */
import { expect } from 'chai';
import { existsSync, readdirSync } from 'node:fs';
import { natsServerAvailable, startNats, type NatsFixture } from '../helpers/nats-server.js';
import {
  clusterHealth,
  eventually,
  insert,
  restartNode,
  startNode,
  stopNode,
  type ClusterNodeProcess,
} from '../helpers/cluster-nodes.js';
import { removeDir } from '../helpers/temp-dir.js';

const ARGS = ['--lease-ttl', '1500', '--durability', 'always'];

describe('cluster: an old primary rejoins without its unacknowledged tail', function () {
  this.timeout(90_000);
  let nats: NatsFixture;
  const nodes: ClusterNodeProcess[] = [];

  before(async function () {
    if (!natsServerAvailable()) this.skip();
    nats = await startNats(1);
  });

  after(async () => {
    for (const node of nodes) await stopNode(node, 'SIGKILL');
    for (const node of nodes) removeDir(node.dataDir);
    await nats?.stop();
  });

  it('drops the batches the cluster never got, reports them and follows the new primary', async () => {
    const a = await startNode(nats.urls, 'tail', ARGS);
    nodes.push(a);
    await eventually(
      'a primary',
      async () => ((await clusterHealth(a.child.url))?.role === 'primary' ? true : undefined),
      10_000,
    );
    const b = await startNode(nats.urls, 'tail', ARGS);
    nodes.push(b);
    expect((await insert(a.child.url, a.token, 'notes', { n: 'shared' })).status).to.equal(201);
    await eventually(
      'b caught up',
      async () =>
        (await clusterHealth(b.child.url))?.applied_seq === (await clusterHealth(a.child.url))?.applied_seq
          ? true
          : undefined,
      5000,
    );

    // NATS down (its storage kept): what A acknowledges now never reaches it.
    await nats.servers[0]!.kill('SIGKILL');
    try {
      // Acknowledged by A alone: `always` publishes in the background.
      for (let i = 0; i < 3; i++)
        expect((await insert(a.child.url, a.token, 'notes', { n: `tail ${i}` })).status).to.equal(201);
      await stopNode(a, 'SIGKILL');
    } finally {
      await nats.servers[0]!.restart();
    }
    await eventually(
      'b primary',
      async () => ((await clusterHealth(b.child.url))?.role === 'primary' ? true : undefined),
      10_000,
    );
    for (let i = 0; i < 5; i++)
      expect((await insert(b.child.url, b.token, 'notes', { n: `new ${i}` })).status).to.equal(201);

    await restartNode(a);
    await eventually(
      'a following b',
      async () => {
        const [ha, hb] = await Promise.all([clusterHealth(a.child.url), clusterHealth(b.child.url)]);
        return ha?.role === 'replica' && ha.applied_seq === hb?.applied_seq ? true : undefined;
      },
      15_000,
    );
    expect(a.child.output()).to.match(/batches \d+\.\.\d+ of the local log are not the cluster's/);
    expect(readdirSync(a.dataDir).some((name) => name.startsWith('replaced-'))).to.equal(true);
    const r = await fetch(`${a.child.url}/api/find/notes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${a.token}` },
      body: '{}',
    });
    const notes = ((await r.json()) as Array<{ n: { value?: string } | string }>).map((x) =>
      typeof x.n === 'string' ? x.n : x.n.value,
    );
    expect(notes.filter((n) => n?.startsWith('tail'))).to.deep.equal([]);
    expect(notes.filter((n) => n?.startsWith('new'))).to.have.length(5);
    expect(existsSync(a.dataDir)).to.equal(true);
  });
});
