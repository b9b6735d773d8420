/**
 * EddyDB as a library. The package is packed (`npm pack`,
 * so the `files` list and the `exports` map are what a user gets) into a
 * scratch project that links only the package's declared dependencies (and
 * express, which the user brings), then:
 * - the express example of docs/operations.md runs under plain node and serves EddyDB
 *   under /api beside the app's own routes;
 * - a TypeScript consumer type-checks against the shipped declarations
 *   (strict, no skipLibCheck), including an error they must catch.
 * Needs dist/: built here through the launcher's own staleness check.
 */
import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { tempDir, removeDir } from '../helpers/temp-dir.js';

const ROOT = path.resolve('.');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
};

function run(cmd: string, args: string[], cwd = ROOT) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, out: `${r.stdout}${r.stderr}` };
}

/** Makes node_modules/<name> in `project` a link to this repository's installed copy. */
function linkDependency(project: string, name: string): void {
  const at = path.join(project, 'node_modules', name);
  mkdirSync(path.dirname(at), { recursive: true });
  symlinkSync(path.join(ROOT, 'node_modules', name), at, 'dir');
}

/** The first ```js block after the heading of docs/operations.md that starts with `heading`. */
function operationsExample(heading: string): string {
  const doc = readFileSync(path.join(ROOT, 'docs/operations.md'), 'utf8');
  const from = doc.indexOf(heading);
  expect(from, `docs/operations.md has no heading '${heading}'`).to.be.greaterThan(-1);
  const block = /```js\n([\s\S]*?)```/.exec(doc.slice(from));
  expect(block, 'docs/operations.md example block').to.not.equal(null);
  return block![1]!;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

const CONSUMER_TS = `
import { Server, VERSION, type ServerConfig, type Settings } from 'eddydb';
import { createClientErrorHandler, createExpressHandler } from 'eddydb/express';
import type { Database } from 'eddydb/engine';
import { startTestServer, type Checkpoint, type TestServer } from 'eddydb/testing';
import express from 'express';

const config: ServerConfig = { port: 0, host: '127.0.0.1', dataDir: './data', settings: { durability: 'batch' } satisfies Partial<Settings> };
// @ts-expect-error: a port is a number; the declarations must say so
const wrong: ServerConfig = { port: '8080', host: '127.0.0.1', dataDir: './data' };
export async function main(): Promise<string> {
  const eddy: Server = await Server.create(config);
  const db: Database = eddy.db;
  const app = express();
  app.use(createExpressHandler(eddy.dispatcher));
  app.listen(0).on('clientError', createClientErrorHandler(eddy.dispatcher));
  await eddy.close();
  return VERSION + String(db !== undefined) + String(wrong);
}
export async function fixture(): Promise<string> {
  const t: TestServer = await startTestServer({ seed: { collections: { users: [{ name: 'Ann' }] } }, ids: 'seed' });
  const checkpoint: Checkpoint = await t.checkpoint();
  await t.clock.advance('10m');
  // @ts-expect-error: a duration is milliseconds or text, not a Date
  await t.clock.advance(new Date());
  await t.restore(checkpoint);
  await t.reset();
  await t.close();
  return t.url + (await t.token());
}
`;

const CONSUMER_TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    skipLibCheck: false,
    noEmit: true,
    types: ['node'],
    esModuleInterop: true,
  },
  files: ['consumer.ts'],
};

describe('embedding the packed package', function () {
  this.timeout(120_000);
  let work: string;
  let project: string;
  let tarball: string;

  before(function () {
    const built = run(process.execPath, ['bin/build.js', '--if-stale']);
    expect(built.code, built.out).to.equal(0);
    work = tempDir('eddydb-i9-pack-');
    const packed = run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work]);
    expect(packed.code, packed.out).to.equal(0);
    tarball = (JSON.parse(packed.stdout) as Array<{ filename: string }>)[0]!.filename;
    project = path.join(work, 'app');
    mkdirSync(path.join(project, 'node_modules', 'eddydb'), { recursive: true });
    const untar = run('tar', [
      '-xzf',
      path.join(work, tarball),
      '-C',
      path.join(project, 'node_modules', 'eddydb'),
      '--strip-components=1',
    ]);
    expect(untar.code, untar.out).to.equal(0);
    for (const name of Object.keys(pkg.dependencies)) linkDependency(project, name);
    // A TypeScript app brings its own type packages (the package's are development dependencies).
    for (const name of ['express', '@types/express', '@types/node', '@types/ws']) linkDependency(project, name);
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  });
  after(() => removeDir(work));

  it('ships the launcher as an executable bin, the built JavaScript with declarations, and no sources or specs', () => {
    const listing = run('tar', ['-tvzf', path.join(work, tarball)]).out;
    expect(listing).to.match(/^-rwxr-xr-x .* package\/bin\/eddydb\.js$/m);
    for (const f of [
      'dist/lib/index.js',
      'dist/lib/index.d.ts',
      'dist/lib/express.d.ts',
      'dist/lib/engine/index.d.ts',
      'dist/lib/testing.js',
      'dist/lib/testing.d.ts',
      'dist/lib/cli/main.js',
    ]) {
      expect(listing).to.include(`package/${f}`);
    }
    expect(listing).to.not.match(/package\/(spec|bench)\//);
    expect(listing).to.not.match(/package\/lib\/.*\.ts$/m);
  });

  const title =
    "runs the express example of docs/operations.md under plain node: the app's routes and EddyDB's " +
    'side by side, and a clean stop on SIGTERM';
  it(title, async () => {
    writeFileSync(path.join(project, 'example.mjs'), operationsExample('## Embedding'));
    const port = await freePort();
    const child = spawn(process.execPath, ['example.mjs'], {
      cwd: project,
      env: { ...process.env, NODE_OPTIONS: '', PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr!.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const base = `http://127.0.0.1:${port}`;
      const until = Date.now() + 30_000;
      while (
        !(await fetch(`${base}/api/health`).then(
          (r) => r.ok,
          () => false,
        ))
      ) {
        expect(child.exitCode, out).to.equal(null);
        expect(Date.now(), `example did not answer:\n${out}`).to.be.lessThan(until);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(await (await fetch(base + '/')).text()).to.include('my app');
      const apiKey = readFileSync(path.join(project, 'data', 'admin.key'), 'utf8').trim();
      const { token } = (await (
        await fetch(`${base}/api/auth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ api_key: apiKey }),
        })
      ).json()) as { token: string };
      const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
      const inserted = await fetch(`${base}/api/insert/notes`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ text: 'hello' }),
      });
      expect(inserted.status).to.equal(201);
      const { id } = (await inserted.json()) as { id: string };
      const found = (await (await fetch(`${base}/api/find/notes/${id}`, { headers })).json()) as { id: string };
      expect(found.id).to.equal(id);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited, out).to.equal(0);
  });

  it('serves eddydb/testing from the packed package: seed, insert, a TTL expired by the clock, reset', () => {
    writeFileSync(
      path.join(project, 'fixture.mjs'),
      `import { startTestServer } from 'eddydb/testing';
const t = await startTestServer({ seed: { collections: { users: [{ name: 'Ann' }] } } });
const headers = { 'content-type': 'application/json', authorization: 'Bearer ' + (await t.token()) };
const post = (url, body) => fetch(t.url + url, { method: 'POST', headers, body: JSON.stringify(body) });
const { id } = await (await post('/api/insert/users', { name: 'Bob', ttl: '10m' })).json();
await t.clock.advance('11m');
const expired = (await fetch(t.url + '/api/find/users/' + id, { headers })).status;
await post('/api/insert/users', { name: 'Cy' });
await t.reset();
const after = (await (await post('/api/find/users', {})).json()).length;
await t.close();
console.log(JSON.stringify({ expired, after }));
`,
    );
    const ran = run(process.execPath, ['fixture.mjs'], project);
    expect(ran.code, ran.out).to.equal(0);
    expect(JSON.parse(ran.stdout)).to.deep.equal({ expired: 404, after: 1 });
  });

  it('type-checks a TypeScript consumer against the shipped declarations, which catch a wrong config', () => {
    writeFileSync(path.join(project, 'consumer.ts'), CONSUMER_TS);
    writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify(CONSUMER_TSCONFIG));
    const tsc = run(
      process.execPath,
      [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'],
      project,
    );
    expect(tsc.out).to.equal('');
    expect(tsc.code).to.equal(0);
  });
});
