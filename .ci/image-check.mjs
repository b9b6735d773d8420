#!/usr/bin/env node
// @ts-check
/**
 * Checks the container image's steps without Docker: reads the Dockerfile
 * (image/dockerfile.mjs) and runs its stages in a temporary directory, each
 * stage's filesystem under a folder of its own (`/app` of the build stage is
 * <tmp>/stages/build/app), the build context filtered by .dockerignore, and
 * every RUN and the server itself as an unprivileged user (nobody through
 * setpriv when run as root, else the caller). Files a stage's root would own
 * stay the caller's (root: read-only to that user) unless the stage's RUN
 * lines run as root, which that user then plays. Then, as the image would
 * run: the CMD on a free loopback port with the /data volume, until the
 * HEALTHCHECK command passes; a record written; STOPSIGNAL, and a clean exit
 * (code 0, data lock released) within the shutdown timeout; a second start
 * on the same volume that still has the record; and the compose example
 * against the image (same health check, the volume, a stop grace longer
 * than the shutdown timeout).
 *
 *   node .ci/image-check.mjs           what CI runs (a few minutes: npm ci and two builds)
 *   node .ci/image-check.mjs --keep    keep the temporary directory to look at
 *
 * npm installs from a copy of the caller's npm cache (offline first). Exit 0
 * when every check holds, 1 otherwise.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { copyInto, dockerIgnore, sourcesOf } from './image/build-context.mjs';
import { readCompose, readDockerfile, substitute } from './image/dockerfile.mjs';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HEALTHY_WITHIN_MS = 90_000;
const HEALTH_POLL_MS = 500;
const keep = process.argv.includes('--keep');

const failures = [];
function check(ok, what) {
  console.log(`  ${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) failures.push(what);
  return ok;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The unprivileged user: nobody when we are root, else ourselves.
const isRoot = process.getuid?.() === 0;
const user = isRoot ? { uid: 65534, gid: 65534, name: 'nobody' } : { uid: process.getuid?.() ?? 0, gid: 0, name: '' };
if (!isRoot) user.gid = process.getgid?.() ?? 0;
user.name ||= spawnSync('id', ['-un'], { encoding: 'utf8' }).stdout.trim();
const asUser = isRoot ? ['setpriv', `--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', '--'] : [];
if (isRoot && spawnSync('setpriv', ['--version']).status !== 0) {
  console.error('image check: running as root needs setpriv (util-linux) to drop to nobody');
  process.exit(1);
}

/** Gives `p` (recursively) to the unprivileged user. */
function giveToUser(p) {
  if (isRoot) spawnSync('chown', ['-R', '-h', `${user.uid}:${user.gid}`, p], { stdio: 'inherit' });
}

/**
 * Takes write permission away from `p` (recursively): root's files in the image, as the server user sees them.
 * Run as root, root owns them and this does nothing; otherwise it runs once the stage's instructions are done.
 */
function readOnly(p) {
  if (isRoot) return;
  const walk = (q) => {
    const st = lstatSync(q);
    if (st.isSymbolicLink()) return;
    if (st.isDirectory()) for (const n of readdirSync(q)) walk(path.join(q, n));
    chmodSync(q, st.mode & ~0o222);
  };
  walk(p);
}

/** Runs `argv` as the unprivileged user; resolves with the exit code, output streamed with a prefix. */
function runAsUser(argv, { cwd, env, label }) {
  return new Promise((resolve) => {
    const child = spawn(asUser[0] ?? argv[0], [...asUser.slice(1), ...(asUser.length ? argv : argv.slice(1))], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const prefix = (d) =>
      process.stdout.write(
        d
          .toString()
          .split('\n')
          .filter((l) => l !== '')
          .map((l) => `    ${label}| ${l}\n`)
          .join(''),
      );
    child.stdout.on('data', prefix);
    child.stderr.on('data', prefix);
    child.on('exit', (code, signal) => resolve(signal ?? code));
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (s.address());
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

// --- the Dockerfile's stages -------------------------------------------------------------------------------------

const dockerfile = readDockerfile(path.join(REPO, 'Dockerfile'));
const ignored = dockerIgnore(REPO);
const inContext = (abs) => !ignored(path.relative(REPO, abs));
const work = mkdtempSync(path.join(tmpdir(), 'eddydb-image-check-'));
chmodSync(work, 0o755);
const home = path.join(work, 'home');
mkdirSync(home);
giveToUser(home);

// npm's cache: the caller's own, or (for nobody) a copy of it.
const callerCache = spawnSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).stdout.trim();
let npmCache = callerCache;
if (isRoot) {
  npmCache = path.join(work, 'npm-cache');
  mkdirSync(npmCache);
  if (existsSync(path.join(callerCache, '_cacache')))
    spawnSync('cp', ['-a', path.join(callerCache, '_cacache'), npmCache], { stdio: 'inherit' });
  giveToUser(npmCache);
}

const toldNodedir = new Set();
/** The node headers for node-gyp: the image's path when this machine has it, else this node's own. */
function nodedir(value) {
  if (existsSync(path.join(value, 'include', 'node', 'node.h'))) return value;
  const own = path.resolve(path.dirname(process.execPath), '..');
  if (!toldNodedir.has(value))
    console.log(`    (npm_config_nodedir ${value} has no node headers here: this node's, ${own}, instead)`);
  toldNodedir.add(value);
  return own;
}

/** A stage's ENV as this machine needs it: image paths that exist in the stage under its folder. */
function machineEnv(stage, env) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const [k, v] of Object.entries(env)) {
    const first = v.startsWith('/') ? v.split('/')[1] : undefined;
    if (first && existsSync(path.join(stage.root, first))) out[k] = path.join(stage.root, v);
    else if (k === 'npm_config_nodedir') out[k] = nodedir(v);
    else out[k] = v;
  }
  return out;
}

const baseEnv = {
  PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
  HOME: home,
  LANG: process.env.LANG ?? 'C.UTF-8',
  npm_config_cache: npmCache,
  npm_config_prefer_offline: 'true',
  npm_config_update_notifier: 'false',
};

/** @type {Map<string, { root: string, env: Record<string, string>, workdir: string, user: string }>} */
const built = new Map();
let image = { volumes: /** @type {string[]} */ ([]), ports: /** @type {string[]} */ ([]), stopSignal: 'SIGTERM' };
/** @type {{ argv: string[], options: Record<string, string> } | undefined} */
let healthcheck;
/** @type {string[] | undefined} */
let cmd;

const nodeMajor = process.versions.node.split('.')[0];
console.log(`image check: the Dockerfile's stages in ${work}, run as ${user.name} (uid ${user.uid})`);
for (const stage of dockerfile.stages) {
  const root = path.join(work, 'stages', stage.name);
  mkdirSync(root, { recursive: true });
  const state = { root, env: /** @type {Record<string, string>} */ ({}), workdir: '/', user: 'root' };
  built.set(stage.name, state);
  const tag = /^node:(\d+)/.exec(stage.image);
  console.log(`stage ${stage.name} (FROM ${stage.image})`);
  if (tag && tag[1] !== nodeMajor)
    console.log(`    note: the image has node ${tag[1]}, this machine node ${process.versions.node}`);
  // The stage's root-owned files are the unprivileged user's when its RUN lines run as root (it plays root).
  const firstUser = stage.instructions.findIndex((i) => i.op === 'USER');
  const rootRuns = stage.instructions.some(
    (ins, i) => ins.op === 'RUN' && !ins.skip && (firstUser < 0 || i < firstUser),
  );
  /** @type {string[]} */
  const rootOwned = [];
  const own = (p, chown) => (rootRuns || chown ? giveToUser(p) : rootOwned.push(p));
  image = { volumes: [], ports: [], stopSignal: 'SIGTERM' };
  healthcheck = undefined;
  cmd = undefined;
  const vars = () => ({ ...dockerfile.args, ...state.env });
  const inStage = (p) => path.join(root, path.posix.resolve(state.workdir, p));
  for (const ins of stage.instructions) {
    const where = `Dockerfile line ${ins.line}`;
    switch (ins.op) {
      case 'ARG':
      case 'ENV':
        for (const [k, v] of Object.entries(ins.env ?? {})) state.env[k] = substitute(v, vars());
        break;
      case 'WORKDIR':
        state.workdir = path.posix.resolve(state.workdir, substitute(/** @type {string} */ (ins.value), vars()));
        if (!existsSync(inStage('.'))) {
          mkdirSync(inStage('.'), { recursive: true });
          own(inStage('.'), false);
        }
        break;
      case 'COPY': {
        const from = ins.from === undefined ? undefined : built.get(ins.from);
        if (ins.from !== undefined && !from) throw new Error(`${where}: no stage named ${ins.from} before this one`);
        const sourceRoot = from ? from.root : REPO;
        const sources = (ins.sources ?? []).flatMap((s) => sourcesOf(sourceRoot, substitute(s, vars()), where));
        const dest = substitute(/** @type {string} */ (ins.dest), vars());
        const destIsDir = dest.endsWith('/') || sources.length > 1;
        const written = copyInto(sources, inStage(dest), destIsDir, from ? undefined : inContext);
        for (const p of written) own(p, ins.chown !== undefined);
        console.log(`  COPY ${ins.from ? `--from=${ins.from} ` : ''}${(ins.sources ?? []).join(' ')} -> ${dest}`);
        break;
      }
      case 'RUN': {
        if (ins.skip) {
          console.log(`  RUN skipped ${ins.skip}: ${ins.value}`);
          checkAptPackages(/** @type {string} */ (ins.value));
          break;
        }
        const began = Date.now();
        console.log(`  RUN ${ins.value}`);
        const env = { ...baseEnv, ...machineEnv(state, state.env) };
        const code = await runAsUser(['/bin/sh', '-c', /** @type {string} */ (ins.value)], {
          cwd: inStage('.'),
          env,
          label: stage.name,
        });
        if (!check(code === 0, `RUN ${ins.value} (exit ${code}, ${Math.round((Date.now() - began) / 1000)} s)`))
          finish();
        break;
      }
      case 'USER':
        state.user = /** @type {string} */ (ins.value);
        break;
      case 'VOLUME':
        for (const p of ins.paths ?? []) {
          image.volumes.push(p);
          mkdirSync(inStage(p), { recursive: true });
          giveToUser(inStage(p));
        }
        break;
      case 'EXPOSE':
        image.ports.push(.../** @type {string} */ (ins.value).split(/\s+/));
        break;
      case 'STOPSIGNAL':
        image.stopSignal = /** @type {string} */ (ins.value);
        break;
      case 'HEALTHCHECK':
        healthcheck = { argv: /** @type {string[]} */ (ins.argv), options: ins.options ?? {} };
        break;
      case 'CMD':
        cmd = ins.argv;
        break;
      default:
        break;
    }
  }
  for (const p of rootOwned) readOnly(p);
}

/** For `apt-get install ... pkgs` in a skipped RUN: does dpkg say this machine has each package? */
function checkAptPackages(run) {
  const m = /apt-get install\s+((?:\S+\s*)+?)(?:&&|;|$)/.exec(run);
  if (!m) return;
  const packages = m[1].split(/\s+/).filter((w) => w !== '' && !w.startsWith('-'));
  if (spawnSync('dpkg-query', ['--version']).status !== 0) {
    console.log(`    (no dpkg here to ask about ${packages.join(', ')})`);
    return;
  }
  for (const p of packages) {
    const status = spawnSync('dpkg-query', ['-W', '-f=${Status}', p], { encoding: 'utf8' }).stdout;
    check(status.includes('install ok installed'), `the build stage's system package ${p} is installed here`);
  }
}

// --- the image, run ----------------------------------------------------------------------------------------------

const runtimeStage = dockerfile.stages[dockerfile.stages.length - 1];
const runtime = /** @type {NonNullable<ReturnType<typeof built.get>>} */ (built.get(runtimeStage.name));
console.log(`image: stage ${runtimeStage.name}, user ${runtime.user}, volumes ${image.volumes.join(' ')}`);
check(runtime.user !== 'root' && runtime.user !== '0', `the image runs as a user other than root (${runtime.user})`);
check(image.volumes.includes('/data'), 'the image declares the /data volume');
check(runtime.env.EDDYDB_DATA_DIR === '/data', 'EDDYDB_DATA_DIR is /data');
check(image.ports.includes(runtime.env.PORT ?? '8080'), `the image exposes its PORT (${image.ports.join(' ')})`);
check(cmd !== undefined, 'the image has a CMD');
check(
  healthcheck !== undefined && healthcheck.argv.join(' ').includes('/api/health/ready'),
  'HEALTHCHECK asks /api/health/ready',
);
if (!cmd || !healthcheck) finish();
const dataDir = path.join(runtime.root, 'data');
const shutdownSecs = Number(runtime.env.EDDYDB_SHUTDOWN_TIMEOUT ?? 25);

/** Starts the CMD as the unprivileged user, waits for the health check; resolves with the process and its output. */
async function startImage(port) {
  const env = { ...baseEnv, ...machineEnv(runtime, runtime.env), PORT: String(port), HOST: '127.0.0.1' };
  const argv = /** @type {string[]} */ (cmd);
  let output = '';
  const child = spawn(asUser[0] ?? argv[0], [...asUser.slice(1), ...(asUser.length ? argv : argv.slice(1))], {
    cwd: path.join(runtime.root, runtime.workdir),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(signal ?? code)));
  const began = Date.now();
  let healthy = false;
  while (!healthy && child.exitCode === null && Date.now() - began < HEALTHY_WITHIN_MS) {
    const hc = /** @type {string[]} */ (healthcheck?.argv);
    healthy = (await runAsUser(hc, { cwd: path.join(runtime.root, runtime.workdir), env, label: 'health' })) === 0;
    if (!healthy) await sleep(HEALTH_POLL_MS);
  }
  check(healthy, `the HEALTHCHECK command passes (after ${Date.now() - began} ms)`);
  return { child, exited, output: () => output, env };
}

/** Sends the STOPSIGNAL; checks a clean exit within the shutdown timeout and the data lock released. */
async function stopImage(running) {
  const began = Date.now();
  running.child.kill(image.stopSignal);
  const limit = (shutdownSecs + 5) * 1000;
  const code = await Promise.race([running.exited, sleep(limit).then(() => 'still running')]);
  check(
    code === 0,
    `${image.stopSignal}: exit ${code} after ${Date.now() - began} ms (shutdown timeout ${shutdownSecs} s)`,
  );
  if (code === 'still running') running.child.kill('SIGKILL');
  check(!existsSync(path.join(dataDir, 'LOCK')), 'the data lock is released');
}

async function api(base, method, route, token, body) {
  const r = await fetch(`${base}${route}`, {
    method,
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: r.status, body: await r.json().catch(() => undefined) };
}

const port = await freePort();
const base = `http://127.0.0.1:${port}`;
console.log(`running the image's CMD (${cmd.join(' ')}) on 127.0.0.1:${port}, /data in ${dataDir}`);
/** @type {Awaited<ReturnType<typeof startImage>>[]} */
const started = [];
try {
  const first = await startImage(port);
  started.push(first);
  check(
    /"dataLock":"flock"|dataLock[=: ]+flock/.test(first.output()),
    'the native addons load (the data lock is flock)',
  );
  const keyFile = path.join(dataDir, 'admin.key');
  check(existsSync(keyFile), 'the first start wrote /data/admin.key');
  const mode = lstatSync(dataDir).mode & 0o777;
  check(mode === 0o700, `/data is private to the server user (mode ${mode.toString(8)})`);
  const key = readFileSync(keyFile, 'utf8').trim();
  const { body: auth } = await api(base, 'POST', '/api/auth/token', undefined, { api_key: key });
  const inserted = await api(base, 'POST', '/api/insert/image_check', auth?.token, { kept: 'across restarts' });
  check(inserted.status === 201, `a record written (${inserted.status})`);
  await stopImage(first);
  const second = await startImage(port);
  started.push(second);
  const { body: auth2 } = await api(base, 'POST', '/api/auth/token', undefined, { api_key: key });
  const found = await api(base, 'GET', `/api/find/image_check/${inserted.body?.id}`, auth2?.token);
  check(found.status === 200, `the record is on the volume after a restart (${found.status})`);
  await stopImage(second);
} finally {
  for (const r of started) {
    if (failures.length > 0) console.log(`the server printed:\n${r.output()}`);
    if (r.child.exitCode === null) r.child.kill('SIGKILL');
  }
}

// --- the compose example -----------------------------------------------------------------------------------------

const compose = readCompose(path.join(REPO, 'compose.yaml'));
check(
  JSON.stringify(compose.test) === JSON.stringify(['CMD', ...healthcheck.argv]),
  "compose.yaml's health check is the image's HEALTHCHECK",
);
check(compose.volumes.includes('/data'), 'compose.yaml mounts a volume at /data');
check(
  compose.stopGraceSecs !== undefined && compose.stopGraceSecs > shutdownSecs,
  `compose.yaml's stop_grace_period (${compose.stopGraceSecs} s) is longer than the shutdown timeout`,
);
finish();

/** Prints the verdict, removes the temporary directory (unless --keep) and exits. */
function finish() {
  if (keep) console.log(`kept ${work}`);
  else {
    if (!isRoot) spawnSync('chmod', ['-R', 'u+w', work]);
    rmSync(work, { recursive: true, force: true });
  }
  console.log(failures.length === 0 ? 'image check passed' : `image check FAILED (${failures.length})`);
  process.exit(failures.length === 0 ? 0 : 1);
}
