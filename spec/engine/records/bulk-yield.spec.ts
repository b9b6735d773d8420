/**
 * A large bulk request, and the commit of a large transaction, do not hold
 * the event loop (bulk.ts, transaction-manager.ts, slices.ts,
 * storage/log/batch-payload.ts): while 10,000 records are parsed, staged and
 * logged, the loop turns many times, and every read made meanwhile sees
 * none of the batch or all of it, never part. A write sent meanwhile lands
 * before or after the batch, never inside it. A bulk request takes its list
 * of items over and lets each chunk of them go once it is staged.
 */
import { expect } from 'chai';
import { Database, type BulkItem } from '../../../lib/engine/index.js';
import { removeDir, tempDir } from '../../helpers/temp-dir.js';

describe('engine/bulk and transaction commits yield between slices', () => {
  let dir: string;
  let db: Database;
  beforeEach(async () => {
    dir = tempDir();
    db = await Database.open({ dataDir: dir });
  });
  afterEach(async () => {
    await db.close();
    removeDir(dir);
  });

  it('lets the loop turn during a 10,000-record batch; reads see none or all of it', async function () {
    this.timeout(30_000);
    await db.records.insert('bulk', { seed: true });
    const bodies = Array.from({ length: 10_000 }, (_, i) => ({ n: i, pad: 'x'.repeat(150) }));
    let done = false;
    const seen: number[] = [];
    const late: Array<Promise<string>> = [];
    const started = performance.now();
    let last = started;
    let longest = 0;
    const batch = db.bulk.insertMany('bulk', bodies).finally(() => {
      done = true;
    });
    for (let turn = 0; !done; turn++) {
      await new Promise((r) => setImmediate(r));
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
      seen.push(await db.records.count('bulk'));
      // Single writes sent all along: while the batch is parsed, and while it holds the writer.
      if (turn % 5 === 0) late.push(db.records.insert('bulk', { late: turn }));
    }
    const res = await batch;
    expect(res.successful).to.have.length(10_000);
    expect(seen.length, 'loop turns during the batch').to.be.above(5);
    // Unsliced, one stretch (parse, stage, encode) took most of the request (80% here); sliced, none takes half of it.
    const total = performance.now() - started;
    expect(longest, `longest stretch ${longest.toFixed(1)} ms of ${total.toFixed(1)} ms`).to.be.below(total / 2);
    const lateIds = await Promise.all(late);
    // Every count read meanwhile held none of the batch or all of it.
    for (const n of seen)
      expect(n <= 1 + late.length || n >= 10_001, `count ${n} seen during the batch`).to.equal(true);
    expect(await db.records.count('bulk')).to.equal(10_001 + lateIds.length);
    // No other write landed inside the unit: the batch's records are contiguous in insertion order.
    const order = [...db.state.collections.get('bulk')!.records.keys()];
    const first = order.indexOf(res.successful[0]!);
    expect(order.slice(first, first + 10_000)).to.deep.equal(res.successful);
  });

  it('takes the items over and lets each go once it is staged, failed ones included', async () => {
    await db.records.insert('taken', { id: 'old', n: 0 });
    const items: BulkItem[] = [
      ...Array.from({ length: 2_500 }, (_, i) => ({ kind: 'insert' as const, body: { n: i } })),
      { kind: 'insert', body: { constructor: 1 } },
      { kind: 'update', id: 'old', body: { n: -1 } },
      { kind: 'delete', id: 'missing' },
    ];
    const res = await db.bulk.run('taken', items);
    expect(res.successful).to.have.length(2_501);
    expect(res.failed.map((f) => f.index)).to.deep.equal([2_500, 2_502]);
    expect(items, 'every slot emptied').to.have.length(2_503);
    expect(items.every((item) => item === undefined)).to.equal(true);
    expect(db.records.findById('taken', 'old').n).to.equal(-1);
    expect(db.records.findById('taken', res.successful[2_499]!).n).to.equal(2_499);
  });

  it('lets the loop turn while a 10,000-operation transaction commits; reads see none or all of it', async function () {
    this.timeout(60_000);
    const tx = db.transactions.begin('ReadCommitted', undefined, undefined).id;
    const staged = await db.session(undefined, tx).writeMany(
      'txc',
      Array.from({ length: 10_000 }, (_, i) => ({ kind: 'insert' as const, body: { n: i } })),
    );
    expect(staged.failed).to.deep.equal([]);
    let done = false;
    let turns = 0;
    const commit = db.transactions.commit(tx).finally(() => {
      done = true;
    });
    while (!done) {
      await new Promise((r) => setImmediate(r));
      turns += 1;
      expect([0, 10_000]).to.include(await db.records.count('txc'));
    }
    expect(await commit).to.equal(10_000);
    expect(turns, 'loop turns during the commit').to.be.above(5);
    // (Unsliced, computing the commit's effects was one stretch of about half the commit. Sliced, the longest is a
    // garbage collection or the apply, too variable on a loaded machine to bound here, so only the turns are asserted.)
    expect(await db.records.count('txc')).to.equal(10_000);
  });
});
