import { expect } from 'chai';
import { feedMessage, planRejoin, type RejoinSources } from '../../lib/cluster/index.js';
import { encodeBatch, type LoggedBatch } from '../../lib/engine/index.js';

function batch(seq: number, name: string): LoggedBatch {
  return { seq, effects: [{ kind: 'put', collection: 'c', id: `r${seq}`, fields: { id: `r${seq}`, name } }] };
}
function body(b: LoggedBatch): Uint8Array {
  return Buffer.from(feedMessage('x', b, { seq: b.seq, changes: [], schemaChanged: [] }, encodeBatch(b), 'n', 0).body);
}

/** A local log of `local` batches and a stream of `stream` ones (seq -> name), the stream starting at `first`. */
function sources(local: Record<number, string>, stream: Record<number, string>, first = 1): RejoinSources {
  const seqs = Object.keys(stream).map(Number);
  return {
    localSeq: Math.max(0, ...Object.keys(local).map(Number)),
    localBatch: async (seq) => (local[seq] === undefined ? undefined : batch(seq, local[seq]!)),
    stream: { first, last: seqs.length ? Math.max(...seqs) : first - 1 },
    streamBody: async (seq) => (stream[seq] === undefined ? undefined : body(batch(seq, stream[seq]!))),
  };
}

describe('cluster/rejoin', () => {
  it('follows when the local log is a prefix of the stream (or both are empty)', async () => {
    expect(await planRejoin(sources({}, {}))).to.deep.equal({ kind: 'follow' });
    expect(await planRejoin(sources({ 1: 'a', 2: 'b' }, { 1: 'a', 2: 'b', 3: 'c' }))).to.deep.equal({ kind: 'follow' });
    expect(await planRejoin(sources({}, { 1: 'a' }))).to.deep.equal({ kind: 'follow' });
  });

  it("starts a new node from the cluster's snapshot once the stream no longer starts at 1", async () => {
    const plan = await planRejoin(sources({}, { 5: 'e' }, 5));
    expect(plan.kind).to.equal('reset');
  });

  it('starts again from the snapshot a node whose log ends before the stream begins', async () => {
    const plan = await planRejoin(sources({ 1: 'a', 2: 'b' }, { 9: 'i' }, 9));
    expect(plan).to.include({ kind: 'reset' });
    expect((plan as { reason: string }).reason).to.match(/ends at seq 2, before the cluster's log starts \(seq 9\)/);
  });

  it('drops an unacknowledged tail: batches past the stream, or different from it at the same seq', async () => {
    const past = await planRejoin(sources({ 1: 'a', 2: 'b', 3: 'mine' }, { 1: 'a', 2: 'b' }));
    expect(past).to.deep.include({ kind: 'reset', dropped: { from: 3, to: 3 } });
    const other = await planRejoin(
      sources({ 1: 'a', 2: 'mine', 3: 'mine' }, { 1: 'a', 2: 'theirs', 3: 'theirs', 4: 'd' }),
    );
    expect(other).to.deep.include({ kind: 'reset', dropped: { from: 2, to: 3 } });
  });

  it('refuses a data directory with data when the stream is empty', async () => {
    const plan = await planRejoin(sources({ 1: 'a' }, {}));
    expect(plan.kind).to.equal('refuse');
  });
});
