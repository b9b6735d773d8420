/**
 * The follower against a real nats-server: stopped at any point of its start,
 * or after reading failed, it stops and applies nothing. A node that wins the
 * lease while its follower is still making its consumer (three nodes started
 * together on a new cluster) stops the follower at that point before it
 * becomes the primary.
 */
import { expect } from 'chai';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Follower } from '../../lib/cluster/follower.js';
import { natsServerAvailable, startNats, type NatsFixture } from '../helpers/nats-server.js';
import { openWriteQueue, type WriteQueueFixture } from '../helpers/write-queue-fixture.js';
import { until } from '../helpers/until.js';

/** Resolves with `p`, or rejects naming `what` after `ms`: a stop that never returns fails the spec, not the run. */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not return within ${ms} ms`)), ms);
    p.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

describe('cluster/follower stopped while it starts (a real nats-server)', function () {
  this.timeout(30_000);
  let nats: NatsFixture;
  let nc: NatsConnection;
  let fixture: WriteQueueFixture;

  before(async function () {
    if (!natsServerAvailable()) this.skip();
    nats = await startNats(1);
    nc = await connect({ servers: nats.urls });
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: 'EDDYDB_follow', subjects: ['eddydb.follow.>'] });
    await jsm.streams.add({ name: 'EDDYDB_broken', subjects: ['eddydb.broken.>'] });
    await jetstream(nc).publish('eddydb.broken.log', new Uint8Array([1, 2, 3]));
    fixture = await openWriteQueue();
  });

  after(async () => {
    await fixture?.close();
    await nc?.close();
    await nats?.stop();
  });

  it('returns from stop() called at once after start(), and again after each later start', async () => {
    const follower = new Follower(jetstream(nc), 'EDDYDB_follow', fixture.queue, fixture.state, () => undefined, 50);
    for (let round = 0; round < 8; round++) {
      follower.start();
      // Round 0 stops before the consumer exists; later rounds a little later in its start.
      if (round > 0) await new Promise((r) => setTimeout(r, round * 3));
      await within(follower.stop(), 5000, `stop() in round ${round}`);
      expect(follower.active).to.equal(false);
    }
    expect(fixture.state.seq).to.equal(0);
  });

  it('returns from stop() called while it waits to read again after a message that is not a batch', async () => {
    const warnings: string[] = [];
    const follower = new Follower(
      jetstream(nc),
      'EDDYDB_broken',
      fixture.queue,
      fixture.state,
      (level, msg) => {
        if (level === 'warn') warnings.push(msg);
      },
      60_000,
    );
    follower.start();
    await until('the failed read', () => warnings.length > 0, 10_000);
    await within(follower.stop(), 5000, 'stop() after reading failed');
    expect(follower.active).to.equal(false);
    expect(fixture.state.seq).to.equal(0);
  });
});
