/**
 * Issue 9: `npm start` killed by its PID left node orphaned, holding the port
 * and the data lock. The server watches its parent (under npm, or with
 * --watch-parent) and shuts down cleanly when the parent pid changes. The
 * watch itself is tested with an injected parent pid; the whole story with
 * a real shell parent that is SIGKILLed.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { shouldWatchParent, watchParent } from '../../lib/cli/parent-watch.js';
import { CLI_MAIN, cleanEnv } from '../helpers/run-cli.js';
import { tempDir, removeDir } from '../helpers/temp-dir.js';

const until = async (what: string, check: () => boolean, ms: number): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('parent watch (issue 9)', function () {
  this.timeout(60_000);

  it('is on under npm unless turned off, and off otherwise unless turned on', () => {
    expect(shouldWatchParent(undefined, { npm_lifecycle_event: 'start' })).to.equal(true);
    expect(shouldWatchParent(false, { npm_lifecycle_event: 'start' })).to.equal(false);
    expect(shouldWatchParent(undefined, {})).to.equal(false);
    expect(shouldWatchParent(true, {})).to.equal(true);
  });

  it('calls back once when the parent pid changes, and never while it stays', async () => {
    let ppid = 100;
    const calls: Array<[number, number]> = [];
    const stop = watchParent((was, now) => calls.push([was, now]), { intervalMs: 5, parentPid: () => ppid });
    try {
      await new Promise((r) => setTimeout(r, 40));
      expect(calls).to.deep.equal([]);
      ppid = 1;
      await until('the callback', () => calls.length > 0, 2000);
      await new Promise((r) => setTimeout(r, 40));
      expect(calls).to.deep.equal([[100, 1]]);
    } finally {
      stop();
    }
  });

  it('shuts the server down and releases the data lock when its shell parent is SIGKILLed', async () => {
    const dir = tempDir('eddydb-cli-parent-');
    const dataDir = path.join(dir, 'data');
    const cmd = `"${process.execPath}" --import tsx "${CLI_MAIN}" start --port 0 --host 127.0.0.1 --data-dir "${dataDir}" & echo "server pid $!"; wait`;
    // Under npm: the watch is on by default there, which is the case the issue is about.
    const shell = spawn('/bin/sh', ['-c', cmd], { env: cleanEnv({ npm_lifecycle_event: 'start', EDDYDB_ADMIN_KEY: 'parent-watch-admin-key-0123' }), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    shell.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
    shell.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
    let serverPid = 0;
    try {
      await until('the server to listen', () => /listening on http:\/\/127\.0\.0\.1:\d+/.test(out), 30_000);
      serverPid = Number(/server pid (\d+)/.exec(out)![1]);
      expect(existsSync(path.join(dataDir, 'LOCK'))).to.equal(true);
      shell.kill('SIGKILL');
      await until('the data lock to be released', () => !existsSync(path.join(dataDir, 'LOCK')), 10_000);
      await until('the shutdown line', () => /parent process \d+ exited/.test(out), 5_000);
    } finally {
      if (serverPid && existsSync(path.join(dataDir, 'LOCK'))) process.kill(serverPid, 'SIGKILL');
      shell.kill('SIGKILL');
      removeDir(dir);
    }
  });
});
