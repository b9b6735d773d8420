/**
 * The runner examples of docs/testing.md (examples/testing/<runner>), run the way an application runs them:
 * each folder is copied into a scratch project beside a node_modules laid out as an install lays it out
 * (this checkout's package.json and built dist/lib, the runner, and for vitest the official ekoDB client
 * built by the kit in ../shared/ekodb-client), then its own `npm test`. Every test its files declare must
 * pass, counted in the runner's summary. The docs' copies of the example files must match the files.
 */
import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { cleanEnv } from '../helpers/run-cli.js';
import { removeDir, tempDir } from '../helpers/temp-dir.js';

const ROOT = path.resolve('.');
const EXAMPLES = path.join(ROOT, 'examples', 'testing');
const KIT = process.env.EKODB_KIT ?? path.join(ROOT, '..', 'shared', 'ekodb-client');

interface PackageJson {
  devDependencies?: Record<string, string>;
}
const readPackage = (dir: string) => JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as PackageJson;

/** Links `name` in `nodeModules` to `target` (a folder), making the scope folder first. */
function link(nodeModules: string, name: string, target: string): void {
  mkdirSync(path.dirname(path.join(nodeModules, name)), { recursive: true });
  symlinkSync(target, path.join(nodeModules, name), 'dir');
}

/**
 * Installs a package by copying its package.json and built output, its own dependencies linked: its files
 * then live under node_modules, as after `npm install`, which is what the runners treat as a dependency.
 */
function install(nodeModules: string, name: string, from: string, built: string, extra: string[] = []): void {
  const to = path.join(nodeModules, name);
  mkdirSync(to, { recursive: true });
  cpSync(path.join(from, 'package.json'), path.join(to, 'package.json'));
  cpSync(path.join(from, built), path.join(to, built), { recursive: true });
  for (const entry of ['node_modules', ...extra])
    if (existsSync(path.join(from, entry))) symlinkSync(path.join(from, entry), path.join(to, entry), 'dir');
}

/** The tests the example's files declare: `it(` and `test(` at the start of a line. */
function declaredTests(dir: string): number {
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => /\.(spec|test)\.js$/.test(f));
  return files.reduce(
    (n, f) => n + (readFileSync(path.join(dir, f), 'utf8').match(/^\s*(it|test)\(/gm)?.length ?? 0),
    0,
  );
}

/** Runs `npm test -- <args>` in `cwd` (at most 90 s); answers the exit code and all output, colours off. */
function npmTest(cwd: string, args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn('npm', ['test', '--', ...args], {
      cwd,
      env: cleanEnv({ NODE_OPTIONS: '', NO_COLOR: '1', FORCE_COLOR: '0' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const collect = (d: Buffer) => (out += d.toString());
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

/** The kit's cache with the client built (setup.sh builds it when needed), or why it cannot be had. */
function builtClient(): { dir: string } | { reason: string } {
  const setup = path.join(KIT, 'setup.sh');
  if (!existsSync(setup)) return { reason: `the ekoDB client kit is not at ${KIT} (set EKODB_KIT to its folder)` };
  const r = spawnSync(setup, [], { encoding: 'utf8', timeout: 300_000 });
  const cache = r.stdout?.trim().split('\n').pop() ?? '';
  const dir = path.join(cache, 'ekodb-client-ts');
  if (r.status !== 0 || !existsSync(path.join(dir, 'dist', 'index.js')))
    return { reason: `the kit's setup.sh did not build the client (exit ${r.status}): ${r.stderr?.slice(-400)}` };
  return { dir };
}

describe('eddydb/testing: the runner examples', function () {
  this.timeout(240_000);
  let work: string;

  before(function () {
    const built = spawnSync(process.execPath, ['bin/build.js', '--if-stale'], { cwd: ROOT, encoding: 'utf8' });
    expect(built.status, `${built.stdout}${built.stderr}`).to.equal(0);
    work = tempDir('eddydb-runners-');
    install(path.join(work, 'node_modules'), 'eddydb', ROOT, path.join('dist', 'lib'), ['build']);
  });
  after(() => removeDir(work));

  /** Copies the example beside the shared node_modules and links its runner there, as its package.json asks. */
  function project(runner: string): string {
    const dir = path.join(work, runner);
    cpSync(path.join(EXAMPLES, runner), dir, { recursive: true });
    const declared = readPackage(dir).devDependencies?.[runner];
    expect(declared, `examples/testing/${runner}/package.json names ${runner} as the repository does`).to.equal(
      readPackage(ROOT).devDependencies?.[runner],
    );
    const nodeModules = path.join(dir, 'node_modules');
    link(nodeModules, runner, path.join(ROOT, 'node_modules', runner));
    link(nodeModules, path.join('.bin', runner), path.join(ROOT, 'node_modules', '.bin', runner));
    return dir;
  }

  it('mocha: root hooks start one server, reset after each test; every spec passes', async () => {
    const dir = project('mocha');
    const { code, out } = await npmTest(dir, []);
    expect(code, out).to.equal(0);
    expect(out, out).to.match(new RegExp(`^\\s*${declaredTests(dir)} passing`, 'm'));
    expect(out).to.not.match(/failing|pending/);
  });

  it('vitest: a server per file in parallel, one from globalSetup reset by URL; every test passes', async function () {
    this.timeout(400_000); // the kit's first setup on a machine builds the client (about a minute)
    const client = builtClient();
    if ('reason' in client) {
      console.log(`      skipped: ${client.reason}`);
      this.skip();
    }
    install(path.join(work, 'node_modules'), '@ekodb/ekodb-client', client.dir, 'dist');
    const dir = project('vitest');
    const { code, out } = await npmTest(dir, ['--maxWorkers=3']);
    expect(code, out).to.equal(0);
    const files = readdirSync(path.join(dir, 'test'), { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.test.js'),
    );
    expect(out, out).to.match(new RegExp(`Test Files\\s+${files.length} passed \\(${files.length}\\)`));
    expect(out, out).to.match(new RegExp(`Tests\\s+${declaredTests(dir)} passed \\(${declaredTests(dir)}\\)`));
  });

  // No worker flag: the example's config runs its files one at a time, as a server they reset by URL needs.
  it('jest: one server from globalSetup, files one at a time, reset by URL; every test passes', async () => {
    const dir = project('jest');
    const { code, out } = await npmTest(dir, []);
    expect(code, out).to.equal(0);
    const total = declaredTests(dir);
    expect(out, out).to.match(new RegExp(`Tests:\\s+${total} passed, ${total} total`));
  });

  it('docs/testing.md quotes the example files as they are', () => {
    const doc = readFileSync(path.join(ROOT, 'docs', 'testing.md'), 'utf8');
    const quoted = [...doc.matchAll(/^`(examples\/testing\/[^`]+)`:\n\n```\w*\n([\s\S]*?)^```$/gm)];
    for (const runner of ['mocha', 'vitest', 'jest'])
      expect(
        quoted.some(([, file]) => file!.startsWith(`examples/testing/${runner}/`)),
        `docs/testing.md quotes a ${runner} example`,
      ).to.equal(true);
    for (const [, file, text] of quoted)
      expect(text, `docs/testing.md's copy of ${file}`).to.equal(readFileSync(path.join(ROOT, file!), 'utf8'));
  });
});
