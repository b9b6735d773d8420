/**
 * A restart right after a crash, as a process manager does it: a child
 * server takes writes from 16 concurrent clients, is killed with SIGKILL,
 * and the next server on the same directory is started at once, without
 * waiting for the killed one to go away. Every start must succeed on its
 * first try (the data directory's lock is released by the kernel, and a
 * start waits `--lock-wait` for it), and every acknowledged write must be
 * there after each restart.
 *
 * `npm test` runs 5 rounds; EDDYDB_CRASH_RESTARTS=20 runs the full 20
 * (a start through tsx takes seconds on a busy machine).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { startChild, killChild, childToken, CHILD_ADMIN_KEY, type ChildServer } from '../../helpers/child-server.js';
import { WRITERS, writeUntilKilled, verifyAcked, type Acked, type WriteStop } from '../../helpers/crash-writers.js';
import { tempDir, removeDir } from '../../helpers/temp-dir.js';
import { until } from '../../helpers/until.js';
import { nativeLock } from '../../../lib/engine/storage/native-lock.js';

const ROUNDS = Number(process.env.EDDYDB_CRASH_RESTARTS ?? 5);
const SERVER_ARGS = ['--durability', 'always', '--snapshot-bytes', '200000'];

async function health(child: ChildServer, token: string): Promise<{ storage: { lock: string } }> {
  const r = await fetch(`${child.url}/api/health`, { headers: { authorization: `Bearer ${token}` } });
  return (await r.json()) as { storage: { lock: string } };
}

/**
 * A server started by a shell that then becomes `sleep` and never reaps it:
 * killed, the server stays a zombie, a pid that kill(pid, 0) still finds, as
 * under a supervisor that reaps late or a container's pid 1 that never does.
 */
function startUnreapedServer(dir: string): Promise<{ shell: ChildProcess; serverPid: number }> {
  const script =
    '"$0" --import tsx "$1" start --port 0 --host 127.0.0.1 --data-dir "$2" & echo "server pid $!"; exec sleep 600';
  const shell = spawn('sh', ['-c', script, process.execPath, path.resolve('lib/cli/main.ts'), dir], {
    env: { ...process.env, EDDYDB_ADMIN_KEY: CHILD_ADMIN_KEY, EDDYDB_SNAPSHOT_CRON: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      shell.kill('SIGKILL');
      reject(new Error(`the server did not start:\n${out}`));
    }, 30_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const pid = /server pid (\d+)/.exec(out);
      if (pid && /listening on http/.test(out)) {
        clearTimeout(timer);
        resolve({ shell, serverPid: Number(pid[1]) });
      }
    };
    shell.stdout!.on('data', onData);
    shell.stderr!.on('data', onData);
    shell.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the shell exited with ${code}:\n${out}`));
    });
  });
}

/** The process state letter from /proc (Z: a zombie, dead and not yet reaped). */
function processState(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
}

describe('restart at once after kill -9 (real processes)', function () {
  this.timeout(60_000 + ROUNDS * 30_000);

  it(`starts on the first try every time, ${ROUNDS} kill -9s under ${WRITERS} writers, and loses nothing acknowledged`, async () => {
    const dir = tempDir('eddydb-restart-');
    const acked: Acked[] = [];
    let child = await startChild(dir, SERVER_ARGS);
    try {
      const lock = 'unavailable' in nativeLock() ? (process.platform === 'linux' ? 'socket' : 'pid') : 'flock';
      const first = child;
      await until('the startup line, naming the lock', () => first.output().includes(`"dataLock":"${lock}"`), 10_000);
      expect((await health(child, await childToken(child.url))).storage.lock).to.equal(lock);
      for (let round = 0; round < ROUNDS; round++) {
        const token = await childToken(child.url);
        await verifyAcked(child.url, token, acked);
        const stop: WriteStop = { done: false };
        const firstAck = new Promise<void>((r) => {
          stop.onAck = r;
          setTimeout(r, 10_000).unref();
        });
        const writing = writeUntilKilled(child.url, token, `r${round}`, stop);
        await firstAck;
        await new Promise((r) => setTimeout(r, 50 + Math.floor(Math.random() * 300)));
        const killed = child;
        killed.proc.kill('SIGKILL');
        // At once: the killed server may still be going away, and its lock with it.
        const next = startChild(dir, SERVER_ARGS);
        next.catch(() => undefined); // awaited below, after the writers have stopped
        stop.done = true;
        const written = await writing;
        expect(
          written.length,
          `writes were acknowledged before kill ${round + 1} (last other outcome: ${stop.other})`,
        ).to.be.greaterThan(0);
        acked.push(...written);
        // startChild rejects, with the child's output, when a start exits instead of listening.
        child = await next;
        await killChild(killed);
      }
      const { count } = await verifyAcked(child.url, await childToken(child.url), acked);
      expect(count).to.be.at.least(acked.length);
    } finally {
      await killChild(child, 'SIGTERM');
      removeDir(dir);
    }
  });

  it('starts at once, without waiting, while the killed server is a zombie its parent has not reaped', async function () {
    if (process.platform !== 'linux') this.skip();
    const dir = tempDir('eddydb-zombie-');
    const { shell, serverPid } = await startUnreapedServer(dir);
    let next: ChildServer | undefined;
    try {
      process.kill(serverPid, 'SIGKILL');
      await until('the killed server to be a zombie', () => processState(serverPid) === 'Z', 10_000);
      expect(() => process.kill(serverPid, 0), 'its pid still looks alive').to.not.throw();
      expect(readFileSync(path.join(dir, 'LOCK'), 'utf8'), 'and LOCK still names it').to.equal(String(serverPid));
      next = await startChild(dir, ['--lock-wait', '0']);
    } finally {
      if (next) await killChild(next, 'SIGTERM');
      shell.kill('SIGKILL');
      removeDir(dir);
    }
  });
});
