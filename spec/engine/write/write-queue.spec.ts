/**
 * The single writer, directly (write-queue.ts): operations run in order and
 * see each other's writes, everything queued during an append is the next
 * group (one append and one fsync), a failing operation rejects only itself,
 * and a failed append refuses its group and turns the engine read-only until
 * the log is repaired. Real files in a temp dir, through a fault-injecting fs.
 */
import { expect } from 'chai';
import { type WriteQueue, type Operation } from '../../../lib/engine/write/write-queue.js';
import { recover } from '../../../lib/engine/storage/recovery/recovery.js';
import { type StorageHealth } from '../../../lib/engine/storage/storage-health.js';
import { type DbState } from '../../../lib/engine/write/state.js';
import { nodeFs, type LoggedBatch } from '../../../lib/engine/index.js';
import type { EngineLog } from '../../../lib/engine/engine-log.js';
import { InvalidInput, Internal, ReadOnlyRefusal } from '../../../lib/errors.js';
import { type FaultyFs } from '../../helpers/faulty-fs.js';
import { openWriteQueue, type WriteQueueFixture } from '../../helpers/write-queue-fixture.js';

/** An operation that reads counter `key` as the writer sees it and stores it plus one. */
const increment =
  (key = 'n'): Operation<number> =>
  (view) => {
    const next = ((view.kvEntry(key)?.value as number | undefined) ?? 0) + 1;
    return { effects: [{ kind: 'kvSet', key, value: next }], result: next };
  };

async function outcome(p: Promise<unknown>): Promise<unknown> {
  try {
    return await p;
  } catch (err) {
    return err;
  }
}

describe('engine/write-queue', () => {
  let dir: string;
  let fs: FaultyFs;
  let state: DbState;
  let health: StorageHealth;
  let queue: WriteQueue;
  let logged: string[];

  let fixture: WriteQueueFixture;

  beforeEach(async () => {
    logged = [];
    const log: EngineLog = (msg, level) => {
      logged.push(`${level}: ${msg}`);
    };
    fixture = await openWriteQueue(log);
    ({ dir, fs, state, health, queue } = fixture);
  });
  afterEach(() => fixture.close());

  it('runs operations in submission order, each seeing the writes of the ones before it', async () => {
    const results = await Promise.all([
      queue.submit(increment()),
      queue.submit(increment()),
      queue.submit(increment()),
    ]);
    expect(results).to.deep.equal([1, 2, 3]);
    expect(state.kv.get('n')?.value).to.equal(3);
    expect(state.seq).to.equal(3);
  });

  it('makes everything queued during an append the next group: one write and one fsync for the group', async () => {
    const first = queue.submit(increment());
    const syncsBefore = fs.syncs;
    const rest = [1, 2, 3, 4, 5].map(() => queue.submit(increment()));
    await Promise.all([first, ...rest]);
    expect(fs.syncs - syncsBefore, 'two groups: the first operation, then the five queued behind it').to.equal(2);
    expect(state.seq).to.equal(6);
    expect((await recover(nodeFs, dir)).state.kv.get('n')?.value, 'every batch is in the log').to.equal(6);
  });

  it('resolves only after the batch is durable and applied, and tells listeners in seq order', async () => {
    const told: Array<[number, number]> = [];
    queue.onCommit((b: LoggedBatch) => told.push([b.seq, state.seq]));
    const a = queue.submit(increment());
    const b = queue.submit(increment('m'));
    expect(state.seq, 'nothing is visible before the append').to.equal(0);
    await a;
    expect(state.kv.get('n')?.value).to.equal(1);
    await b;
    expect(told, 'each listener runs once its batch is applied').to.deep.equal([
      [1, 1],
      [2, 2],
    ]);
  });

  it('rejects a failing operation alone: the others of its group commit', async () => {
    const failing: Operation<never> = () => {
      throw new InvalidInput('no');
    };
    const bug: Operation<never> = () => {
      throw new Error('a bug');
    };
    const [one, refused, crashed, two] = await Promise.all([
      outcome(queue.submit(increment())),
      outcome(queue.submit(failing)),
      outcome(queue.submit(bug)),
      outcome(queue.submit(increment())),
    ]);
    expect(one).to.equal(1);
    expect(refused).to.be.instanceOf(InvalidInput);
    expect(crashed, 'a plain Error is a bug: Internal').to.be.instanceOf(Internal);
    expect(two).to.equal(2);
    expect(state.seq).to.equal(2);
  });

  it('gives an operation without effects no seq', async () => {
    expect(await queue.submit(() => ({ effects: [], result: 'read' }))).to.equal('read');
    expect(state.seq).to.equal(0);
    await queue.submit(increment());
    expect(state.seq).to.equal(1);
  });

  it('refuses the whole group when its append fails, applies none of it, and stays read-only until repaired', async () => {
    await queue.submit(increment());
    fs.fill();
    const group = await Promise.all([outcome(queue.submit(increment())), outcome(queue.submit(increment()))]);
    expect(group[0]).to.be.instanceOf(ReadOnlyRefusal);
    expect(group[1]).to.be.instanceOf(ReadOnlyRefusal);
    expect(state.seq).to.equal(1);
    expect(state.kv.get('n')?.value).to.equal(1);
    expect(queue.readOnly).to.equal(true);
    expect(queue.readOnlyReason).to.match(/ENOSPC/);
    fs.free();
    expect(await outcome(queue.submit(increment())), 'refused without trying while read-only').to.be.instanceOf(
      ReadOnlyRefusal,
    );
    expect(await health.healNow()).to.equal(true);
    expect(queue.readOnly).to.equal(false);
    expect(await queue.submit(increment())).to.equal(2);
    const recovered = await recover(nodeFs, dir);
    expect([recovered.state.seq, recovered.state.kv.get('n')?.value]).to.deep.equal([2, 2]);
  });

  it('runs exclusive work between groups, never during one', async () => {
    const seen: number[] = [];
    const a = queue.submit(increment());
    const x = queue.exclusive(async () => {
      seen.push(state.seq);
    });
    const b = queue.submit(increment());
    await Promise.all([a, x, b]);
    expect(seen).to.deep.equal([1]);
    expect(state.seq).to.equal(2);
  });

  it('logs a commit listener that throws and goes on with the others', async () => {
    const told: number[] = [];
    queue.onCommit(() => {
      throw new Error('listener bug');
    });
    queue.onCommit((b) => told.push(b.seq));
    await queue.submit(increment());
    expect(told).to.deep.equal([1]);
    expect(logged).to.deep.equal(['error: commit listener failed at seq 1']);
  });
});
