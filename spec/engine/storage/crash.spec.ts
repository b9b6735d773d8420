/**
 * Crash tests with real processes: a child server takes concurrent writes
 * and is killed with SIGKILL at random points, many times. After each
 * restart every write acknowledged in `always` mode is present and no record
 * is partial. Small snapshot thresholds make kills land mid-snapshot too.
 */
import { expect } from 'chai';
import { startChild, killChild, childToken } from '../../helpers/child-server.js';
import { writeUntilKilled, verifyAcked as verify, type Acked, type WriteStop } from '../../helpers/crash-writers.js';
import { tempDir, removeDir } from '../../helpers/temp-dir.js';

describe('crash recovery with SIGKILL (real processes)', function () {
  this.timeout(180_000);

  for (const mode of ['always', 'batch', 'none'] as const) {
    const rounds = mode === 'always' ? 6 : 2;
    it(
      `keeps every acknowledged write in ${mode} mode across ${rounds} kill -9 ` +
        `rounds${mode === 'always' ? '' : ' (no partial records)'}`,
      async () => {
        const dir = tempDir('eddydb-crash-');
        let allAcked: Acked[] = [];
        try {
          for (let round = 0; round < rounds; round++) {
            const child = await startChild(dir, ['--durability', mode, '--snapshot-bytes', '200000']);
            const token = await childToken(child.url);
            if (round > 0) await verify(child.url, token, mode === 'always' ? allAcked : []);
            const stop: WriteStop = { done: false };
            const firstAck = new Promise<void>((r) => {
              stop.onAck = r;
              setTimeout(r, 10_000).unref();
            });
            const writing = writeUntilKilled(child.url, token, `r${round}`, stop);
            // Kill at a random point once writes are flowing.
            await firstAck;
            await new Promise((r) => setTimeout(r, 100 + Math.floor(Math.random() * 400)));
            await killChild(child);
            stop.done = true;
            const acked = await writing;
            expect(
              acked.length,
              `writes were acknowledged before the kill (last other outcome: ${stop.other})`,
            ).to.be.greaterThan(0);
            allAcked = allAcked.concat(acked);
          }
          const child = await startChild(dir, ['--durability', mode]);
          const token = await childToken(child.url);
          const { count } = await verify(child.url, token, mode === 'always' ? allAcked : []);
          if (mode === 'always') expect(count).to.be.at.least(allAcked.length);
          await killChild(child, 'SIGTERM');
        } finally {
          removeDir(dir);
        }
      },
    );
  }
});
