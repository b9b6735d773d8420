/**
 * `npm start` as a process manager or a container runs it.
 * SIGTERM or SIGINT sent to the pid of the npm process (not the server's)
 * must shut the server down cleanly: the port is free, the data directory's
 * LOCK is released and the server process is gone, so a restart on the same
 * directory works and finds every acknowledged record. Before the fix the
 * script ran under `sh -c` without `exec`, npm signalled the shell, and the
 * server was left orphaned holding the port and the lock.
 */
import { expect } from 'chai';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { tempDir, removeDir } from '../helpers/temp-dir.js';
import { acceptsConnections } from '../helpers/accepts-connections.js';

const ADMIN_KEY = 'npm-start-admin-key-0123456789';

/** A port nothing listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(what: string, test: () => Promise<boolean> | boolean, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface Started {
  npm: ChildProcess;
  serverPid: number;
  output: () => string;
  exited: Promise<void>;
}

/**
 * `npm start` in the repository, as the README says, on `port` and `dataDir`;
 * resolves once /api/health answers. `ownGroup` puts npm in a process group
 * of its own, as a terminal does, so the whole group can be signalled.
 */
async function npmStart(port: number, dataDir: string, ownGroup = false): Promise<Started> {
  const npm = spawn('npm', ['start'], {
    detached: ownGroup,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      EDDYDB_DATA_DIR: dataDir,
      EDDYDB_ADMIN_KEY: ADMIN_KEY,
      EDDYDB_SNAPSHOT_CRON: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  npm.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  npm.stderr!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<void>((resolve) => npm.once('exit', () => resolve()));
  const healthy = async () => {
    if (npm.exitCode !== null) throw new Error(`npm start exited early:\n${out}`);
    return fetch(`http://127.0.0.1:${port}/api/health`).then(
      (r) => r.ok,
      () => false,
    );
  };
  await waitFor('GET /api/health', healthy);
  const serverPid = Number(readFileSync(path.join(dataDir, 'LOCK'), 'utf8'));
  return { npm, serverPid, output: () => out, exited };
}

async function token(port: number): Promise<string> {
  const r = await fetch(`http://127.0.0.1:${port}/api/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: ADMIN_KEY }),
  });
  return ((await r.json()) as { token: string }).token;
}

async function call(port: number, method: string, route: string, body?: unknown): Promise<any> {
  const r = await fetch(`http://127.0.0.1:${port}${route}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${await token(port)}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return r.json();
}

/** Signals npm's pid (or, with `group`, its whole process group) and asserts the server shut down cleanly behind it. */
async function stopByNpmPid(
  s: Started,
  port: number,
  dataDir: string,
  signal: NodeJS.Signals,
  group = false,
): Promise<void> {
  expect(s.serverPid, 'the server runs in its own process, not in npm').to.not.equal(s.npm.pid);
  if (group) process.kill(-s.npm.pid!, signal);
  else s.npm.kill(signal);
  await Promise.race([
    s.exited,
    new Promise((_, reject) =>
      setTimeout(() => reject(new Error(`npm did not exit after ${signal}:\n${s.output()}`)), 20_000),
    ),
  ]);
  await waitFor('the server process to exit', () => !isAlive(s.serverPid), 5_000).catch(() => undefined);
  expect(isAlive(s.serverPid), `server pid ${s.serverPid} outlived npm:\n${s.output()}`).to.equal(false);
  expect(await acceptsConnections(port), 'something still listens on the port').to.equal(false);
  expect(existsSync(path.join(dataDir, 'LOCK')), 'the data directory is still locked').to.equal(false);
}

describe('stopping `npm start` by the npm pid', function () {
  this.timeout(180_000);
  let dataDir: string;
  const started: Started[] = [];

  before(function () {
    // The launcher would build on its first start anyway; doing it here keeps that out of the startup waits.
    const r = spawnSync(process.execPath, ['bin/build.js', '--if-stale'], { encoding: 'utf8' });
    expect(r.status, r.stderr).to.equal(0);
  });
  beforeEach(() => {
    dataDir = tempDir('eddydb-i9-npm-');
  });
  afterEach(() => {
    // A failed run must not leave an orphaned server behind.
    for (const s of started.splice(0)) {
      if (isAlive(s.serverPid)) process.kill(s.serverPid, 'SIGKILL');
      if (s.npm.exitCode === null && s.npm.signalCode === null) s.npm.kill('SIGKILL');
    }
    removeDir(dataDir);
  });

  it(
    'SIGTERM to npm shuts the server down cleanly, and a restart on the same directory serves the records; SIGINT ' +
      'then does the same',
    async () => {
      const port = await freePort();
      const first = await npmStart(port, dataDir);
      started.push(first);
      const { id } = await call(port, 'POST', '/api/insert/items', { n: 1 });
      await stopByNpmPid(first, port, dataDir, 'SIGTERM');

      const second = await npmStart(port, dataDir);
      started.push(second);
      const record = await call(port, 'GET', `/api/find/items/${id}`);
      expect(record.id).to.equal(id);
      await stopByNpmPid(second, port, dataDir, 'SIGINT');
    },
  );

  it(
    'Ctrl-C in a terminal (SIGINT to the whole process group, so the server gets it from the terminal and again ' +
      'from npm) shuts down cleanly',
    async () => {
      const port = await freePort();
      const s = await npmStart(port, dataDir, true);
      started.push(s);
      await call(port, 'POST', '/api/insert/items', { n: 1 });
      await stopByNpmPid(s, port, dataDir, 'SIGINT', true);
    },
  );
});
