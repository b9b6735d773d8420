/**
 * `eddydb start` installs its signal handlers before it opens the data: a
 * SIGTERM that arrives while the data is recovered, the port bound or the
 * admin key made shuts the server down cleanly once that step has settled
 * (exit code 0, the data lock released), instead of killing the process with
 * the lock held. The CI's start-stop check once caught the window between
 * the first healthy answer and the end of admin key generation.
 */
import { expect } from 'chai';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Database } from '../../lib/engine/index.js';
import { spawnCli } from '../helpers/run-cli.js';
import { until } from '../helpers/until.js';
import { removeDir, tempDir } from '../helpers/temp-dir.js';

describe('eddydb start and a signal during startup', function () {
  this.timeout(60_000);

  it('shuts down cleanly, releasing the data lock, when SIGTERM arrives while the data is still being opened', async () => {
    const dir = tempDir('eddydb-cli-signal-');
    const dataDir = path.join(dir, 'data');
    // Enough data that opening it takes a while after the lock is taken.
    const db = await Database.open({ dataDir, settings: { durability: 'none' } });
    for (let i = 0; i < 5; i++)
      await db.bulk.insertMany(
        'notes',
        Array.from({ length: 10_000 }, (_, k) => ({ title: `note ${i}-${k}`, n: k })),
      );
    await db.close();
    // No admin key in the environment: one is made after listen, the window the CI hit.
    const {
      proc: server,
      output,
      exited,
    } = spawnCli(['start', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir]);
    try {
      await until('the data lock', () => existsSync(path.join(dataDir, 'LOCK')), 30_000, 2);
      const listeningAtSignal = /listening on/.test(output());
      server.kill('SIGTERM');
      const { code, signal } = await exited;
      expect({ code, signal }, output()).to.deep.equal({ code: 0, signal: null });
      expect(existsSync(path.join(dataDir, 'LOCK')), 'the data lock').to.equal(false);
      expect(output()).to.include('SIGTERM received, shutting down');
      expect(listeningAtSignal, 'the signal arrived during startup').to.equal(false);
    } finally {
      if (existsSync(path.join(dataDir, 'LOCK')))
        try {
          process.kill(Number(readFileSync(path.join(dataDir, 'LOCK'), 'utf8')), 'SIGKILL');
        } catch {
          /* gone */
        }
      server.kill('SIGKILL');
      removeDir(dir);
    }
  });
});
