/**
 * `npm start` killed by its PID left node orphaned, holding the port
 * and the data lock. The server watches its parent (under npm, or with
 * --watch-parent) and shuts down cleanly when the parent pid changes. The
 * watch itself is tested with an injected parent pid; the whole story with
 * a real shell parent that is SIGKILLed.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { shouldWatchParent, watchParent } from '../../lib/cli/parent-watch.js';
import { CLI_MAIN, cleanEnv } from '../helpers/run-cli.js';
import { until } from '../helpers/until.js';
import { tempDir, removeDir } from '../helpers/temp-dir.js';

/** After a failed test: the server this test started still holds the data lock; end it by the pid in LOCK. */
function killLockHolder(dataDir: string): void {
  const lock = path.join(dataDir, 'LOCK');
  if (existsSync(lock)) process.kill(Number(readFileSync(lock, 'utf8')), 'SIGKILL');
}

describe('parent watch', function () {
  this.timeout(60_000);

  it('is on under npm unless turned off, and off otherwise unless turned on', () => {
    expect(shouldWatchParent(undefined, { npm_lifecycle_event: 'start' })).to.equal(true);
    expect(shouldWatchParent(false, { npm_lifecycle_event: 'start' })).to.equal(false);
    expect(shouldWatchParent(undefined, {})).to.equal(false);
    expect(shouldWatchParent(true, {})).to.equal(true);
  });

  it('calls back once when the parent pid changes, and never while it stays', async () => {
    const parents = new Map([[process.pid, 100]]);
    const calls: string[] = [];
    const stop = watchParent((what) => calls.push(what), {
      intervalMs: 5,
      parentOf: (pid) => parents.get(pid),
      commandOf: () => 'npm',
    });
    try {
      await new Promise((r) => setTimeout(r, 40));
      expect(calls).to.deep.equal([]);
      parents.set(process.pid, 1);
      await until('the callback', () => calls.length > 0, 2000);
      await new Promise((r) => setTimeout(r, 40));
      expect(calls).to.deep.equal(['parent process 100 exited']);
    } finally {
      stop();
    }
  });

  it('watches the parent of a shell between it and its starter, as npm runs scripts through sh -c', async () => {
    const parents = new Map([
      [process.pid, 200],
      [200, 300],
      [300, 1],
    ]);
    const commands = new Map([
      [200, 'sh'],
      [300, 'npm start'],
    ]);
    const calls: string[] = [];
    const stop = watchParent((what) => calls.push(what), {
      intervalMs: 5,
      parentOf: (pid) => parents.get(pid),
      commandOf: (pid) => commands.get(pid),
    });
    try {
      parents.set(200, 1);
      await until('the callback', () => calls.length > 0, 2000);
      expect(calls).to.deep.equal([`parent process 300 (of the shell 200 that started this server) exited`]);
    } finally {
      stop();
    }
  });

  it('shuts the server down and releases the data lock when its shell parent is SIGKILLed', async () => {
    const dir = tempDir('eddydb-cli-parent-');
    const dataDir = path.join(dir, 'data');
    const cmd =
      `"${process.execPath}" --import tsx "${CLI_MAIN}" start --port 0 --host 127.0.0.1 --data-dir ` +
      `"${dataDir}" & wait`;
    // Under npm: the watch is on by default there, which is the case the issue is about.
    const shell = spawn('/bin/sh', ['-c', cmd], {
      env: cleanEnv({ npm_lifecycle_event: 'start', EDDYDB_ADMIN_KEY: 'parent-watch-admin-key-0123' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    shell.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
    });
    shell.stderr!.on('data', (d: Buffer) => {
      out += d.toString();
    });
    try {
      await until('the server to listen', () => /listening on http:\/\/127\.0\.0\.1:\d+/.test(out), 30_000);
      expect(existsSync(path.join(dataDir, 'LOCK'))).to.equal(true);
      shell.kill('SIGKILL');
      await until('the data lock to be released', () => !existsSync(path.join(dataDir, 'LOCK')), 10_000);
      await until('the shutdown line', () => /parent process \d+ exited/.test(out), 5_000);
    } finally {
      killLockHolder(dataDir);
      shell.kill('SIGKILL');
      removeDir(dir);
    }
  });

  it('shuts the server down when the process above its sh -c is SIGKILLed, as when npm start is killed by its PID', async () => {
    const dir = tempDir('eddydb-cli-npm-');
    const dataDir = path.join(dir, 'data');
    // Like npm: a node process running the command line through `sh -c` (kept as a shell by the `; exit`).
    const line =
      `"${process.execPath}" --import tsx "${CLI_MAIN}" start --port 0 --host 127.0.0.1 --data-dir ` +
      `"${dataDir}"; exit $?`;
    const npmLike =
      `require('node:child_process').spawn('/bin/sh', ['-c', ${JSON.stringify(line)}], { stdio: ` +
      `'inherit' }); setInterval(() => {}, 1000);`;
    const parent = spawn(process.execPath, ['-e', npmLike], {
      env: cleanEnv({ npm_lifecycle_event: 'start', EDDYDB_ADMIN_KEY: 'parent-watch-admin-key-0123' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    parent.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
    });
    parent.stderr!.on('data', (d: Buffer) => {
      out += d.toString();
    });
    try {
      await until('the server to listen', () => /listening on http:\/\/127\.0\.0\.1:\d+/.test(out), 30_000);
      parent.kill('SIGKILL');
      await until('the data lock to be released', () => !existsSync(path.join(dataDir, 'LOCK')), 10_000);
      expect(out).to.match(/parent process \d+ \(of the shell \d+ that started this server\) exited, shutting down/);
    } finally {
      killLockHolder(dataDir);
      parent.kill('SIGKILL');
      removeDir(dir);
    }
  });
});
