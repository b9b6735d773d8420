// CI smoke check of the README's way to run the server:
// `npm start` on a free port with a fresh data directory, wait for
// GET /api/health, then SIGTERM the pid of npm itself (what process managers
// and containers signal) and fail if the server outlives it: a live server
// pid, anything still listening on the port, or the data directory's LOCK.
// Prints each check. Exit 0 when all hold, 1 otherwise.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

const HOST = '127.0.0.1';
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 20_000;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const isAlive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, HOST, () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

function isListening(port) {
  return new Promise((resolve) => {
    const socket = connect(port, HOST);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function until(test, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await test()) return true;
    await sleep(100);
  }
  return false;
}

const failures = [];
function check(ok, what) {
  console.log(`  ${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
}

const port = await freePort();
const dataDir = mkdtempSync(path.join(tmpdir(), 'eddydb-ci-start-'));
console.log(`start-stop check: npm start on ${HOST}:${port}, data in ${dataDir}`);
const began = Date.now();
const npm = spawn('npm', ['start'], {
  env: { ...process.env, PORT: String(port), HOST, EDDYDB_DATA_DIR: dataDir, EDDYDB_SNAPSHOT_CRON: '' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let output = '';
npm.stdout.on('data', (d) => {
  output += d;
});
npm.stderr.on('data', (d) => {
  output += d;
});
const npmExited = new Promise((resolve) => npm.once('exit', (code, signal) => resolve(signal ?? code)));

const healthy = await until(
  async () =>
    npm.exitCode === null &&
    fetch(`http://${HOST}:${port}/api/health`).then(
      (r) => r.ok,
      () => false,
    ),
  START_TIMEOUT_MS,
);
check(healthy, `GET /api/health answered 200 (after ${Date.now() - began} ms)`);
let serverPid;
if (healthy) {
  serverPid = Number(readFileSync(path.join(dataDir, 'LOCK'), 'utf8'));
  check(serverPid !== npm.pid, `the server (pid ${serverPid}) holds the data lock; npm is pid ${npm.pid}`);
  npm.kill('SIGTERM');
  const stopped = await Promise.race([npmExited, sleep(STOP_TIMEOUT_MS).then(() => 'timeout')]);
  check(stopped !== 'timeout', `npm exited after SIGTERM to its pid (${stopped})`);
  await until(() => !isAlive(serverPid), 5_000);
  check(!isAlive(serverPid), `server pid ${serverPid} is gone`);
  check(!(await isListening(port)), `nothing listens on port ${port}`);
  check(!existsSync(path.join(dataDir, 'LOCK')), 'the data directory has no LOCK');
}
if (failures.length > 0) {
  console.log(`start-stop check FAILED (${failures.length}); npm start printed:\n${output}`);
  if (npm.exitCode === null) npm.kill('SIGKILL');
  if (serverPid && isAlive(serverPid)) process.kill(serverPid, 'SIGKILL');
}
rmSync(dataDir, { recursive: true, force: true });
if (failures.length === 0) console.log('start-stop check passed');
process.exit(failures.length === 0 ? 0 : 1);
