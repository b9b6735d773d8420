/**
 * The publisher against a real nats-server: appends land at the stream
 * sequence equal to their seq, a resend after a lost acknowledgement is a
 * duplicate, and a node that another one appended after can never append.
 */
import { expect } from 'chai';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { Deposed, Publisher } from '../../lib/cluster/publisher.js';
import { natsServerAvailable, startNats, type NatsFixture } from '../helpers/nats-server.js';

const batch = (seq: number) => ({ seq, subject: 'eddydb.pub.meta', body: JSON.stringify({ sequence: seq }) });

describe('cluster/publisher (a real nats-server)', function () {
  this.timeout(30_000);
  let nats: NatsFixture;
  let nc: NatsConnection;

  before(async function () {
    if (!natsServerAvailable()) this.skip();
    nats = await startNats(1);
    nc = await connect({ servers: nats.urls });
    await (await jetstreamManager(nc)).streams.add({ name: 'EDDYDB_pub', subjects: ['eddydb.pub.>'] });
  });

  after(async () => {
    await nc?.close();
    await nats?.stop();
  });

  it('appends in order at the stream sequence of each seq; a deposed node cannot append after another did', async () => {
    const a = new Publisher(jetstream(nc));
    a.node = 'a';
    let deposed: Deposed | undefined;
    a.onDeposed = (err) => (deposed = err);
    a.start(1, 0, undefined);
    await a.publish([batch(1), batch(2), batch(3)], 5000);
    const jsm = await jetstreamManager(nc);
    expect((await jsm.streams.info('EDDYDB_pub')).state.last_seq).to.equal(3);

    // B takes over after seq 3 and appends seq 4.
    const b = new Publisher(jetstream(nc));
    b.node = 'b';
    b.start(2, 3, 'a-1-3');
    await b.publish([batch(4)], 5000);

    // A, not knowing, appends its own seq 4: refused, and A learns it was deposed.
    const refused = await a.publish([batch(4)], 5000).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).to.be.instanceOf(Deposed);
    expect(deposed?.message).to.match(/another node appended to the cluster's log after seq 3/);
    const last = await jsm.streams.getMessage('EDDYDB_pub', { seq: 4 });
    expect(last?.header.get('Nats-Msg-Id')).to.equal('b-2-4');
  });

  it('stopped and started again while it waits to resend, sends the batches of its new term', async () => {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: 'EDDYDB_restart', subjects: ['eddydb.restart.>'] });
    const p = new Publisher(jetstream(nc));
    p.node = 'c';
    p.start(1, 0, undefined);
    // No stream takes this subject: every send fails at once, and the publisher resends with a growing backoff.
    const doomed = p.publish([{ seq: 1, subject: 'eddydb.nowhere.meta', body: '{}' }], 60_000).then(
      () => undefined,
      (err: unknown) => err,
    );
    await new Promise((r) => setTimeout(r, 120));
    // The lease lapses (the node stops), then the node is primary again in a new term, over the same stream state.
    p.stop(new Error('the lease lapsed'));
    expect(((await doomed) as Error).message).to.equal('the lease lapsed');
    p.start(2, 0, undefined);
    const stored = p.publish([{ seq: 1, subject: 'eddydb.restart.meta', body: '{}' }], 10_000).then(() => 'stored');
    const outcome = await Promise.race([stored, new Promise((r) => setTimeout(() => r('still waiting'), 5000))]);
    expect(outcome).to.equal('stored');
    const info = await jsm.streams.info('EDDYDB_restart');
    expect(info.state.messages).to.equal(1);
    expect((await jsm.streams.getMessage('EDDYDB_restart', { seq: 1 }))?.header.get('Nats-Msg-Id')).to.equal('c-2-1');
    p.stop(new Error('done'));
  });

  it('answers a resend of a stored message as a duplicate at its sequence', async () => {
    const js = jetstream(nc);
    const first = await js.publish('eddydb.pub.meta', 'x', { msgID: 'b-2-5', expect: { lastSequence: 4 } });
    const again = await js.publish('eddydb.pub.meta', 'x', { msgID: 'b-2-5', expect: { lastSequence: 4 } });
    expect(again).to.include({ seq: first.seq, duplicate: true });
  });
});
