/**
 * Pipelined group commit (write-queue.ts, storage/log/log-writer.ts): while one
 * group's fsync is in flight the groups submitted meanwhile are computed
 * over its effects and encoded, then written with one write and one fsync
 * once it returns; callers are answered in order, each only once its own
 * bytes are durable, and readers see nothing before then. A failed fsync
 * fails its group and the groups computed over it: all refused, none applied
 * nor recovered. Real files in a temp dir, through the fault-injecting fs.
 */
import { expect } from 'chai';
import { type WriteQueue, type Operation } from '../../../lib/engine/write/write-queue.js';
import { recover } from '../../../lib/engine/storage/recovery/recovery.js';
import { type StorageHealth } from '../../../lib/engine/storage/storage-health.js';
import { type DbState } from '../../../lib/engine/write/state.js';
import { nodeFs } from '../../../lib/engine/index.js';
import { ReadOnlyRefusal } from '../../../lib/errors.js';
import { type FaultyFs } from '../../helpers/faulty-fs.js';
import { openWriteQueue, type WriteQueueFixture } from '../../helpers/write-queue-fixture.js';

/** Reads counter `n` as the writer sees it, stores it plus one, and notes what it read. */
function increment(seen: number[]): Operation<number> {
  return (view) => {
    const before = (view.kvEntry('n')?.value as number | undefined) ?? 0;
    seen.push(before);
    return { effects: [{ kind: 'kvSet', key: 'n', value: before + 1 }], result: before + 1 };
  };
}

async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 2));
  expect(cond(), 'condition reached').to.equal(true);
}

describe('engine/write-queue pipelined group commit', () => {
  let dir: string;
  let fs: FaultyFs;
  let state: DbState;
  let health: StorageHealth;
  let queue: WriteQueue;

  let fixture: WriteQueueFixture;

  beforeEach(async () => {
    fixture = await openWriteQueue();
    ({ dir, fs, state, health, queue } = fixture);
  });
  afterEach(() => fixture.close());

  it('computes the groups submitted while an fsync is held, then writes and fsyncs them once, answering in order', async () => {
    const seen: number[] = [];
    const answered: number[] = [];
    const note = (p: Promise<number>) =>
      p.then((v) => {
        answered.push(v);
        return v;
      });
    const syncsBefore = fs.syncs;
    const release = fs.holdSyncs();
    const first = note(queue.submit(increment(seen)));
    await until(() => fs.syncs === syncsBefore + 1);
    const writesBefore = fs.writes;
    const second = [note(queue.submit(increment(seen))), note(queue.submit(increment(seen)))];
    await until(() => seen.length === 3);
    await new Promise((r) => setImmediate(r));
    const third = note(queue.submit(increment(seen)));
    await until(() => seen.length === 4);
    expect(seen, 'each later group saw the effects before it, none of them durable yet').to.deep.equal([0, 1, 2, 3]);
    expect([state.seq, state.kv.get('n')], 'readers see nothing that is not durable').to.deep.equal([0, undefined]);
    expect(answered, 'nobody answered while the fsync is held').to.deep.equal([]);
    expect(fs.writes, 'the later groups wait for the fsync').to.equal(writesBefore);
    release();
    expect(await Promise.all([first, ...second, third])).to.deep.equal([1, 2, 3, 4]);
    expect(answered).to.deep.equal([1, 2, 3, 4]);
    expect(
      [fs.writes - writesBefore, fs.syncs - syncsBefore],
      'one write and one fsync for both later groups',
    ).to.deep.equal([1, 2]);
    expect([state.seq, state.kv.get('n')?.value]).to.deep.equal([4, 4]);
    expect((await recover(nodeFs, dir)).state.kv.get('n')?.value).to.equal(4);
  });

  it('fails a group whose fsync failed and the group computed over it: both refused, neither applied nor recovered', async () => {
    const seen: number[] = [];
    await queue.submit(increment(seen));
    const syncsBefore = fs.syncs;
    const release = fs.holdSyncs();
    const first = queue.submit(increment(seen)).catch((e: unknown) => e);
    await until(() => fs.syncs === syncsBefore + 1);
    const second = queue.submit(increment(seen)).catch((e: unknown) => e);
    await until(() => seen.length === 3);
    fs.failSyncs = true;
    release();
    expect(await first).to.be.instanceOf(ReadOnlyRefusal);
    expect(await second, 'computed over the failed group: refused too').to.be.instanceOf(ReadOnlyRefusal);
    expect([state.seq, state.kv.get('n')?.value]).to.deep.equal([1, 1]);
    expect(queue.readOnly).to.equal(true);
    fs.free();
    expect(await health.healNow()).to.equal(true);
    expect(await queue.submit(increment(seen))).to.equal(2);
    const recovered = await recover(nodeFs, dir);
    expect([recovered.state.seq, recovered.state.kv.get('n')?.value], 'neither refused group was kept').to.deep.equal([
      2, 2,
    ]);
  });
});
