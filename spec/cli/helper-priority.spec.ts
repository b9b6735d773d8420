/**
 * While long work runs in slices, V8's helper threads are at a low
 * priority, and only they (helper-priority.ts): the main thread and
 * libuv's thread pool, which runs the log's writes and fsyncs, keep
 * theirs, and the helpers get theirs back once the work has stopped.
 * Checked on real processes by reading each thread's priority; Linux only,
 * as the feature is.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LOWERED } from '../../lib/cli/helper-priority.js';
import { cleanEnv, spawnCli } from '../helpers/run-cli.js';
import { until } from '../helpers/until.js';
import { removeDir, tempDir } from '../helpers/temp-dir.js';

const MODULE = path.resolve('lib/cli/helper-priority.ts');
const SLICES = path.resolve('lib/engine/time/slices.ts');

type Priorities = Record<string, number>;
interface Report {
  pid: number;
  pool: number[];
  found: unknown;
  atStart: Priorities;
  duringWork: Priorities;
  stillWorking: Priorities;
  afterWork: Priorities;
  afterStop: Priorities;
}

/**
 * In a fresh process: finds the helpers, lowers them during sliced work
 * (a Slicer yielding, then quiet), and reports every thread's priority at each
 * step, with the pool's threads found independently.
 */
function runInChild(env: Record<string, string> = {}): Report {
  const script = `
    import os from 'node:os';
    import { readdirSync } from 'node:fs';
    import { readFile } from 'node:fs/promises';
    import { findHelperThreads, lowerDuringLongWork } from ${JSON.stringify(MODULE)};
    import { Slicer, yieldToLoop } from ${JSON.stringify(SLICES)};
    const slicer = new Slicer();
    // One slice of sliced work: 5 ms of CPU, then the Slicer yields.
    const slice = async () => { const t = performance.now(); while (performance.now() - t < 5); await slicer.pause(); };
    const priorities = () => Object.fromEntries(readdirSync('/proc/self/task').map((t) => [t, os.getPriority(Number(t))]));
    const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
    const found = await findHelperThreads();
    const stop = lowerDuringLongWork(found.threads, 30);
    // A turn that is not sliced work (the write queue's, between groups) changes nothing.
    await yieldToLoop();
    const atStart = priorities();
    await slice();
    const duringWork = priorities();
    // Work that keeps resuming, for longer than the quiet time, keeps them lowered.
    for (let i = 0; i < 10; i++) { await sleep(10); await slice(); }
    const stillWorking = priorities();
    await sleep(150);
    const afterWork = priorities();
    await slice(); stop();
    const afterStop = priorities();
    const pool = new Set();
    for (let i = 0; i < 20; i++) for (const s of await Promise.all(Array.from({ length: 32 }, () => readFile('/proc/thread-self/stat', 'latin1')))) pool.add(Number.parseInt(s, 10));
    console.log(JSON.stringify({ pid: process.pid, pool: [...pool], found, atStart, duringWork, stillWorking, afterWork, afterStop }));
  `;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: cleanEnv(env),
    timeout: 60_000,
  });
  if (r.status !== 0) throw new Error(`child failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Report;
}

describe('cli: V8 helper threads at a low priority while long work runs', function () {
  this.timeout(60_000);
  before(function () {
    if (process.platform !== 'linux') this.skip();
  });

  for (const poolSize of [4, 2]) {
    it(`lowers every thread but the main one and the I/O pool's ${poolSize} during long work, and only then`, () => {
      const r = runInChild(poolSize === 4 ? {} : { UV_THREADPOOL_SIZE: String(poolSize) });
      expect(r.pool).to.have.length(poolSize);
      expect((r.found as { pool: number }).pool).to.equal(poolSize);
      const kept = [String(r.pid), ...r.pool.map(String)];
      const helpers = (r.found as { threads: Array<{ tid: number }> }).threads.map((t) => String(t.tid));
      expect(helpers.length, 'Node starts helper threads of its own').to.be.greaterThan(0);
      expect(
        helpers.filter((t) => kept.includes(t)),
        'no helper is the main or a pool thread',
      ).to.deep.equal([]);
      for (const t of helpers) {
        expect(r.atStart[t], `helper ${t} before any long work`).to.not.equal(LOWERED);
        expect(r.duringWork[t], `helper ${t} during long work`).to.equal(LOWERED);
        expect(r.stillWorking[t], `helper ${t} while the work goes on`).to.equal(LOWERED);
        expect(r.afterWork[t], `helper ${t} once the work stopped`).to.equal(r.atStart[t]);
        expect(r.afterStop[t], `helper ${t} after stop`).to.equal(r.atStart[t]);
      }
      for (const t of kept)
        for (const at of [r.duringWork, r.stillWorking, r.afterWork, r.afterStop])
          expect(at[t], `thread ${t} keeps its priority`).to.equal(r.atStart[t]);
    });
  }

  it('changes nothing, and says why, for an I/O pool too large to tell apart', () => {
    const script =
      `import { findHelperThreads } from ${JSON.stringify(MODULE)}; console.log(JSON.stringify(await ` +
      `findHelperThreads()));`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      env: cleanEnv({ UV_THREADPOOL_SIZE: '100' }),
      timeout: 60_000,
    });
    expect(JSON.parse(r.stdout.trim().split('\n').pop()!)).to.deep.equal({
      unavailable: 'an I/O pool of 100 threads (UV_THREADPOOL_SIZE) is too large to tell apart',
    });
  });

  /** How many of `pid`'s threads are lowered. */
  const lowered = (pid: number): number =>
    readdirSync(`/proc/${pid}/task`).filter((t) => os.getPriority(Number(t)) === LOWERED).length;

  for (const choice of ['low', 'normal'] as const) {
    it(
      `eddydb start ` +
        `${choice === 'low' ? 'finds the helpers by default' : 'leaves them alone with --helper-priority normal'}, ` +
        `and lowers none while idle`,
      async () => {
        const dir = tempDir('eddydb-helpers-');
        const args = [
          'start',
          '--port',
          '0',
          '--host',
          '127.0.0.1',
          '--data-dir',
          path.join(dir, 'data'),
          ...(choice === 'normal' ? ['--helper-priority', 'normal'] : []),
        ];
        const { proc, output, exited } = spawnCli(args, { EDDYDB_ADMIN_KEY: 'helper-priority-admin-key-0123' });
        try {
          const line =
            /V8 helper threads \((\d+)\) at a low priority while long work runs; the I\/O pool's 4 threads unchanged/;
          await until('listening', () => /listening on/.test(output()), 30_000);
          // The line follows the listening one, maybe in a later chunk of the pipe.
          if (choice === 'low')
            await until('the helper threads line', () => line.test(output()), 10_000).catch((err: Error) => {
              throw new Error(`${err.message}; the server printed:\n${output()}`);
            });
          else await new Promise((r) => setTimeout(r, 300));
          expect(line.test(output()), output()).to.equal(choice === 'low');
          expect(lowered(proc.pid!)).to.equal(0);
        } finally {
          proc.kill('SIGTERM');
          await exited;
          removeDir(dir);
        }
      },
    );
  }
});
