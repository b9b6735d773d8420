/**
 * ThreadPriority (module-worker.ts): a thread lowers itself for background
 * work and takes its own priority back for work a request waits on. Checked
 * in a child process by reading the thread's priority; Linux only, and only
 * where the priority can be raised again (root or RLIMIT_NICE), as the
 * class itself requires.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { cleanEnv } from '../helpers/run-cli.js';

const MODULE = path.resolve('lib/vector/module-worker.ts');

describe('vector: a worker thread lowered for background work and not for searches', function () {
  this.timeout(30_000);

  it('switches between its own priority and WORKER_NICENESS lower, and back', function () {
    if (process.platform !== 'linux') this.skip();
    const script = `
      import os from 'node:os';
      import { readlinkSync } from 'node:fs';
      import { ThreadPriority, WORKER_NICENESS } from ${JSON.stringify(MODULE)};
      const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
      const own = os.getPriority(tid);
      let canRaise = true;
      try { os.setPriority(tid, own + 1); os.setPriority(tid, own); } catch { canRaise = false; }
      if (!canRaise) { console.log(JSON.stringify({ canRaise })); process.exit(0); }
      const p = new ThreadPriority(WORKER_NICENESS);
      const seen = [os.getPriority(tid)];
      p.background(); seen.push(os.getPriority(tid));
      p.background(); seen.push(os.getPriority(tid));
      p.foreground(); seen.push(os.getPriority(tid));
      p.foreground(); seen.push(os.getPriority(tid));
      console.log(JSON.stringify({ own, by: WORKER_NICENESS, canRaise, seen }));
    `;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      env: cleanEnv(),
      timeout: 20_000,
    });
    expect(r.status, r.stderr).to.equal(0);
    const { own, by, canRaise, seen } = JSON.parse(r.stdout.trim().split('\n').pop()!) as {
      own: number;
      by: number;
      canRaise: boolean;
      seen: number[];
    };
    if (!canRaise) this.skip();
    const low = Math.min(19, own + by);
    expect(seen).to.deep.equal([own, low, low, own, own]);
  });
});
