/**
 * A new replica joins a cluster whose log no longer starts at 1: it loads
 * the snapshot the primary stored in NATS, then reads the log after it,
 * while writes go on.
 */
import { expect } from 'chai';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { TestServer } from '../helpers/test-server.js';
import { natsServerAvailable, startNats, type NatsFixture } from '../helpers/nats-server.js';
import { eventually, primaryWithAdminKey } from '../helpers/cluster-nodes.js';

function config(nats: NatsFixture) {
  return {
    cluster: {
      servers: [nats.urls],
      name: 'join',
      advertiseUrl: 'http://127.0.0.1:0',
      leaseTtlMs: 1500,
      // Every stored snapshot trims the log down to it.
      streamBounds: { maxBytes: 1, maxAgeMs: 3600_000 },
    },
    settings: { durability: 'replicated' as const },
    quiet: false,
  };
}

describe("cluster: a new replica joins from the cluster's snapshot", function () {
  this.timeout(60_000);
  let nats: NatsFixture;
  const servers: TestServer[] = [];

  before(async function () {
    if (!natsServerAvailable()) this.skip();
    nats = await startNats(1);
  });

  after(async () => {
    for (const server of servers.reverse()) await server.stop();
    await nats?.stop();
  });

  it('loads the stored snapshot, then catches up with the log while writes go on', async () => {
    const primary = await TestServer.start(config(nats));
    servers.push(primary);
    await primaryWithAdminKey(primary);
    for (let i = 0; i < 300; i++)
      expect((await primary.request('POST', '/api/insert/items', { i })).status).to.equal(201);
    expect((await primary.request('POST', '/api/admin/snapshot')).status).to.equal(200);

    const nc = await connect({ servers: nats.urls });
    try {
      const jsm = await jetstreamManager(nc);
      const first = await eventually(
        'the log trimmed to the snapshot',
        async () => {
          const info = await jsm.streams.info('EDDYDB_join');
          return info.state.first_seq > 1 ? info.state.first_seq : undefined;
        },
        10_000,
      );
      expect(first).to.be.above(300);
    } finally {
      await nc.close();
    }

    let writing = true;
    let written = 300;
    const load = (async () => {
      while (writing)
        if ((await primary.request('POST', '/api/insert/items', { i: written })).status === 201) written++;
    })();
    const joined = await TestServer.start(config(nats));
    servers.push(joined);
    await new Promise((r) => setTimeout(r, 300));
    writing = false;
    await load;

    await eventually(
      'the new replica caught up',
      async () => (joined.server.db.state.seq === primary.server.db.state.seq ? true : undefined),
      10_000,
    );
    const token = await eventually('a token', () => joined.adminToken().catch(() => undefined), 5000);
    const items = await joined.request('POST', '/api/find/items', {}, { token });
    expect(items.body).to.have.length(written);
    expect(joined.logged.map((l) => l.msg).join('\n')).to.match(/starting from the cluster's snapshot at seq \d+/);
  });
});
