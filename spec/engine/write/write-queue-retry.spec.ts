/**
 * Callers that retry at once when their commit is refused over an in-flight
 * group (optimistic transactions on hot records) must not starve the append
 * that would settle them: the writer cuts a new group only after a turn of
 * the event loop while groups are in flight (write-queue.ts). Before that
 * turn existed, the retries spun in microtasks, the fsync callback never
 * ran, and the commit benchmark ran out of memory.
 */
import { expect } from 'chai';
import { Database } from '../../../lib/engine/index.js';
import { Conflict } from '../../../lib/errors.js';
import { tempDir, removeDir } from '../../helpers/temp-dir.js';

describe('engine/write-queue under immediate retries', () => {
  it('keeps committing while many transactions retry conflicts on two hot records at once', async function () {
    this.timeout(20_000);
    const dir = tempDir();
    const db = await Database.open({ dataDir: dir });
    try {
      await db.bulk.insertMany('accounts', [
        { id: 'a', balance: 1000 },
        { id: 'b', balance: 1000 },
      ]);
      let conflicts = 0;
      const transfer = async (): Promise<void> => {
        for (;;) {
          const tx = db.transactions.begin('Serializable', undefined);
          const from = db.transactions.findById(tx.id, 'accounts', 'a').balance as number;
          const to = db.transactions.findById(tx.id, 'accounts', 'b').balance as number;
          db.transactions.stageUpdate(tx.id, 'accounts', 'a', { balance: from - 1 });
          db.transactions.stageUpdate(tx.id, 'accounts', 'b', { balance: to + 1 });
          try {
            await db.transactions.commit(tx.id);
            return;
          } catch (err) {
            if (!(err instanceof Conflict)) throw err;
            conflicts += 1;
          }
        }
      };
      // 16 workers, 25 transfers each, retrying every conflict without pausing.
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          for (let i = 0; i < 25; i++) await transfer();
        }),
      );
      expect(db.records.findById('accounts', 'a').balance).to.equal(1000 - 400);
      expect(db.records.findById('accounts', 'b').balance).to.equal(1000 + 400);
      expect(conflicts, 'the workers did contend').to.be.greaterThan(0);
    } finally {
      await db.close();
      removeDir(dir);
    }
  });
});
