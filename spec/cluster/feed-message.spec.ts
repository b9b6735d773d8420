import { expect } from 'chai';
import { batchOfMessage, batchSubject, clusterNames, feedMessage } from '../../lib/cluster/index.js';
import { encodeBatch, Tagged, type CommitInfo, type LoggedBatch } from '../../lib/engine/index.js';

describe('cluster/feed-message', () => {
  const put: LoggedBatch = {
    seq: 7,
    effects: [
      {
        kind: 'put',
        collection: 'users',
        id: 'a1',
        fields: { id: 'a1', name: 'Ann', born: new Tagged('DateTime', '2000-01-02T00:00:00Z') },
      },
    ],
  };
  const info: CommitInfo = {
    seq: 7,
    changes: [
      {
        collection: 'users',
        event: 'insert',
        id: 'a1',
        fields: put.effects[0]!.kind === 'put' ? put.effects[0]!.fields : {},
      },
    ],
    schemaChanged: [],
  };

  it('is JSON with the sequence, the changes, the one change at the top level and the log payload', () => {
    const message = feedMessage('prod', put, info, encodeBatch(put), 'node1', Date.UTC(2026, 0, 2));
    expect(message.subject).to.equal('eddydb.prod.c.users');
    const body = JSON.parse(message.body);
    expect(body).to.include({ sequence: 7, node: 'node1', time: '2026-01-02T00:00:00.000Z' });
    expect(body.changes).to.deep.equal([
      {
        collection: 'users',
        operation: 'insert',
        id: 'a1',
        record: { id: 'a1', name: 'Ann', born: '2000-01-02T00:00:00Z' },
      },
    ]);
    expect(body).to.include({ collection: 'users', operation: 'insert', id: 'a1' });
    expect(body.record).to.deep.equal(body.changes[0].record);
  });

  it('gives a replica back exactly the logged batch, typed values included', () => {
    const message = feedMessage('prod', put, info, encodeBatch(put), 'node1', 0);
    const batch = batchOfMessage(Buffer.from(message.body));
    expect(encodeBatch(batch).equals(encodeBatch(put))).to.equal(true);
  });

  it('refuses a message that is not a batch, or whose log holds another seq', () => {
    expect(() => batchOfMessage(Buffer.from('{"hello":1}'))).to.throw(/not an EddyDB batch/);
    const body = JSON.parse(feedMessage('prod', put, info, encodeBatch(put), 'n', 0).body);
    body.sequence = 8;
    expect(() => batchOfMessage(Buffer.from(JSON.stringify(body)))).to.throw(/does not decode to that seq/);
  });

  it('names deletes and drops, and picks the subject from the collections touched', () => {
    const batch: LoggedBatch = { seq: 3, effects: [{ kind: 'dropCollection', name: 'logs.old' }] };
    const body = JSON.parse(
      feedMessage('c1', batch, { seq: 3, changes: [], schemaChanged: [] }, encodeBatch(batch), 'n', 0).body,
    );
    expect(body).to.include({ collection: 'logs.old', operation: 'drop' });
    expect(batchSubject('c1', new Set(['logs.old']))).to.equal('eddydb.c1.c.logs~old');
    expect(batchSubject('c1', new Set(['a', 'b']))).to.equal('eddydb.c1.multi');
    expect(batchSubject('c1', new Set())).to.equal('eddydb.c1.meta');
  });

  it('names the stream, buckets and subjects after the cluster, refusing names NATS cannot carry', () => {
    expect(clusterNames('prod-1')).to.deep.equal({
      cluster: 'prod-1',
      stream: 'EDDYDB_prod-1',
      subjects: 'eddydb.prod-1.>',
      leaseBucket: 'EDDYDB_prod-1_LEASE',
      snapshotBucket: 'EDDYDB_prod-1_SNAPSHOTS',
      metaBucket: 'EDDYDB_prod-1_META',
    });
    expect(() => clusterNames('a.b')).to.throw(/cluster name 'a.b'/);
  });
});
