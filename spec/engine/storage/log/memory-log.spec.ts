/**
 * MemoryLog keeps nothing, at once; a WriteQueue over it still applies each
 * write only after its append and acknowledges in submission order.
 */
import { expect } from 'chai';
import { MemoryLog } from '../../../../lib/engine/storage/log/memory-log.js';
import type { CommitLog } from '../../../../lib/engine/storage/log/commit-log.js';
import { StorageHealth } from '../../../../lib/engine/storage/storage-health.js';
import { WriteQueue } from '../../../../lib/engine/write/write-queue.js';
import { DbState } from '../../../../lib/engine/write/state.js';
import { ManualClock, type LoggedBatch } from '../../../../lib/engine/index.js';
import type { Effect } from '../../../../lib/engine/write/effects.js';

const createCollection = (name: string): Effect => ({
  kind: 'createCollection',
  meta: { name, createdAt: '2026-03-01T00:00:00.000Z' },
});

describe('engine/storage/log/memory-log', () => {
  it('encodes to nothing, appends at once and never counts a byte', async () => {
    const log: CommitLog = new MemoryLog('always');
    const batches: LoggedBatch[] = [{ seq: 1, effects: [createCollection('a')] }];
    for (let i = 0; i < 3; i++) {
      const encoded = await log.encode(batches);
      expect(encoded).to.have.length(0);
      await log.appendEncoded(encoded);
    }
    await log.openSegment(2);
    await log.flush();
    await log.heal();
    await log.close();
    expect(log.bytesInSegment, 'so no size-triggered snapshot runs').to.equal(0);
    expect(log.currentSegment).to.equal('memory');
  });

  it('under a WriteQueue: applies each write before answering it, answers in order, one seq per write', async () => {
    const state = new DbState();
    const log = new MemoryLog('always');
    const queue = new WriteQueue(state, log, new StorageHealth(new ManualClock()), () => undefined);
    const committed: number[] = [];
    queue.onCommit((batch) => committed.push(batch.seq));
    const answered: string[] = [];
    const names = Array.from({ length: 20 }, (_, i) => `c${i}`);
    await Promise.all(
      names.map((name) =>
        queue
          .submit(() => ({ effects: [createCollection(name)], result: name }))
          .then((result) => {
            expect(state.collections.has(name), 'applied before it is answered').to.equal(true);
            answered.push(result);
          }),
      ),
    );
    expect(answered).to.deep.equal(names);
    expect(committed).to.deep.equal(names.map((_, i) => i + 1));
    expect(state.seq).to.equal(20);
    await queue.idle();
  });
});
