/**
 * The start lowers V8's helper threads to the lowest priority, and only
 * them (helper-priority.ts): the main thread and libuv's thread pool, which
 * runs the log's writes and fsyncs, keep theirs. Checked on real processes
 * by reading each thread's priority; Linux only, as the feature is.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanEnv, spawnCli } from '../helpers/run-cli.js';
import { until } from '../helpers/until.js';
import { removeDir, tempDir } from '../helpers/temp-dir.js';

const MODULE = path.resolve('lib/cli/helper-priority.ts');

interface Report { line: string; pid: number; before: Record<string, number>; after: Record<string, number>; pool: number[] }

/** Runs lowerHelperPriority in a fresh process; it reports every thread's priority before and after, and its pool's threads. */
function runInChild(env: Record<string, string> = {}): Report {
  const script = `
    import os from 'node:os';
    import { readdirSync } from 'node:fs';
    import { readFile } from 'node:fs/promises';
    import { lowerHelperPriority } from ${JSON.stringify(MODULE)};
    const priorities = () => Object.fromEntries(readdirSync('/proc/self/task').map((t) => [t, os.getPriority(Number(t))]));
    // Start the pool first, as the server's start has by then.
    await readFile('/proc/self/stat');
    const before = priorities();
    const line = await lowerHelperPriority();
    const after = priorities();
    const pool = new Set();
    for (let i = 0; i < 20; i++) for (const s of await Promise.all(Array.from({ length: 32 }, () => readFile('/proc/thread-self/stat', 'latin1')))) pool.add(Number.parseInt(s, 10));
    console.log(JSON.stringify({ line, pid: process.pid, before, after, pool: [...pool] }));
  `;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', env: cleanEnv(env), timeout: 60_000 });
  if (r.status !== 0) throw new Error(`child failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Report;
}

describe('cli: V8 helper threads at the lowest priority', function () {
  this.timeout(60_000);
  before(function () { if (process.platform !== 'linux') this.skip(); });

  for (const poolSize of [4, 2]) {
    it(`lowers every thread but the main one and the I/O pool's ${poolSize}`, () => {
      const r = runInChild(poolSize === 4 ? {} : { UV_THREADPOOL_SIZE: String(poolSize) });
      expect(r.pool).to.have.length(poolSize);
      const main = String(r.pid);
      const kept = [main, ...r.pool.map(String)];
      const helpers = Object.keys(r.after).filter((t) => !kept.includes(t));
      expect(helpers.length, 'Node starts helper threads of its own').to.be.greaterThan(0);
      for (const t of kept) expect(r.after[t], `thread ${t} keeps its priority`).to.equal(r.before[t]);
      for (const t of helpers) expect(r.after[t], `helper thread ${t}`).to.equal(19);
      expect(r.line).to.equal(`V8 helper threads at the lowest priority (${helpers.length} threads; the I/O pool's ${poolSize} unchanged)`);
    });
  }

  /** The priority of each of `pid`'s threads. */
  const threadPriorities = (pid: number): number[] => readdirSync(`/proc/${pid}/task`).map((t) => os.getPriority(Number(t)));

  for (const choice of ['low', 'normal'] as const) {
    it(`eddydb start ${choice === 'low' ? 'lowers them by default' : 'leaves them with --helper-priority normal'}`, async () => {
      const dir = tempDir('eddydb-helpers-');
      const args = ['start', '--port', '0', '--host', '127.0.0.1', '--data-dir', path.join(dir, 'data'), ...(choice === 'normal' ? ['--helper-priority', 'normal'] : [])];
      const { proc, output, exited } = spawnCli(args, { EDDYDB_ADMIN_KEY: 'helper-priority-admin-key-0123' });
      try {
        await until('listening', () => /listening on/.test(output()), 30_000);
        const main = os.getPriority(proc.pid!);
        const lowest = threadPriorities(proc.pid!).filter((p) => p === 19 && p !== main).length;
        const said = /V8 helper threads at the lowest priority \((\d+) threads; the I\/O pool's 4 unchanged\)/.exec(output());
        if (choice === 'low') {
          expect(said, output()).to.not.equal(null);
          expect(lowest).to.equal(Number(said![1]));
        } else {
          expect(said, output()).to.equal(null);
          expect(lowest).to.equal(0);
        }
      } finally {
        proc.kill('SIGTERM');
        await exited;
        removeDir(dir);
      }
    });
  }
});
