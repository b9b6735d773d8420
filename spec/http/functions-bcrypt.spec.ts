/**
 * bcrypt through real servers: a caller-supplied hash cannot buy 2^31
 * rounds (the cost cap, function_bcrypt_max_cost), long passwords are
 * refused, and hashing runs on worker threads, so other clients are served
 * meanwhile and a shutdown does not wait for it. Once in process (the
 * workers load the TypeScript sources through tsx), once as the built
 * command `node bin/eddydb.js` (the workers load dist/'s JavaScript).
 */
import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { cleanEnv } from '../helpers/run-cli.js';
import { removeDir, tempDir } from '../helpers/temp-dir.js';
import { TestServer } from '../helpers/test-server.js';
import { until } from '../helpers/until.js';

/** A cost-31 hash: 2^31 rounds, about two days of CPU, if it were ever computed. */
const COST_31_HASH = '$2b$31$DCq7YPn5Rq63x1Lad4cll.TV4S6ytwfsfvkgY8jIucDrjc8deX1s.';

const VERIFY = {
  label: 'check',
  name: 'check',
  parameters: { password: { required: true }, hash: { required: true } },
  functions: [{ type: 'BcryptVerify', plain: '{{password}}', hash_field: 'hash', output_field: 'ok' }],
};
const hashing = (cost: number) => ({
  label: `hash${cost}`,
  name: `hash${cost}`,
  parameters: { password: { required: true } },
  functions: [{ type: 'BcryptHash', plain: '{{password}}', output_field: 'hash', cost }],
});

/** A small client: JSON over fetch with a bearer token. */
interface Client {
  call(method: string, urlPath: string, body?: unknown): Promise<{ status: number; body: any; text: string }>;
}

function client(base: string, token: string): Client {
  return {
    async call(method, urlPath, body) {
      const res = await fetch(base + urlPath, {
        method,
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined, text };
    },
  };
}

/**
 * While four cost-12 hashes run, point reads from another client: the
 * first read must be answered before the first hash (each is hundreds of
 * milliseconds of CPU), and every hash must succeed.
 */
async function readWhileHashing(hasher: Client, reader: Client, readPath: string): Promise<void> {
  const order: string[] = [];
  const hashes = Array.from({ length: 4 }, (_, i) =>
    hasher.call('POST', '/api/functions/hash12', { password: `pw-${i}` }).then((r) => {
      order.push('hash');
      return r;
    }),
  );
  const read = await reader.call('GET', readPath);
  order.push('read');
  expect(read.status, read.text).to.equal(200);
  expect(read.body.name?.value ?? read.body.name).to.equal('Ann');
  const done = await Promise.all(hashes);
  for (const r of done) expect(r.status, r.text).to.equal(200);
  expect(order[0], `answered in order ${order.join(', ')}`).to.equal('read');
}

describe('HTTP stored functions: bcrypt on worker threads (in process)', () => {
  let t: TestServer;
  let user: Client;
  before(async () => {
    t = await TestServer.start();
    await t.saveFunction(VERIFY);
    await t.saveFunction(hashing(5));
    await t.saveFunction(hashing(12));
    user = client(t.url, await t.userToken({ name: 'caller' }));
  });
  after(async () => {
    await t.stop();
  });

  it('answers a non-admin BcryptVerify of a cost-31 hash with 400 naming the cost and the limit, within a second', async () => {
    const started = performance.now();
    const r = await user.call('POST', '/api/functions/check', { password: 'x', hash: COST_31_HASH });
    expect(performance.now() - started).to.be.lessThan(1000);
    expect(r.status, r.text).to.equal(400);
    expect(r.body.message).to.match(/cost 31 is above this server's limit of 14 \(setting function_bcrypt_max_cost\)/);
  });

  it('shows function_bcrypt_max_cost (default 14) and applies a change to BcryptHash at once', async () => {
    expect((await t.request('GET', '/api/config')).body.function_bcrypt_max_cost).to.equal(14);
    expect((await t.request('PUT', '/api/config', { function_bcrypt_max_cost: 32 })).status).to.equal(400);
    expect((await t.request('PUT', '/api/config', { function_bcrypt_max_cost: 4 })).status).to.equal(200);
    const refused = await user.call('POST', '/api/functions/hash5', { password: 'pw' });
    expect(refused.status, refused.text).to.equal(400);
    expect(refused.body.message).to.match(/^BcryptHash cost 5 is above this server's limit of 4/);
    expect((await t.request('PUT', '/api/config', { function_bcrypt_max_cost: 14 })).status).to.equal(200);
    const hashed = await user.call('POST', '/api/functions/hash5', { password: 'pw' });
    expect(hashed.status, hashed.text).to.equal(200);
    expect(hashed.body.records[0].hash.value ?? hashed.body.records[0].hash).to.match(/^\$2b\$05\$/);
  });

  it('refuses a password over 72 bytes with 400 in BcryptHash and BcryptVerify', async () => {
    const long = 'p'.repeat(73);
    const hashed = await user.call('POST', '/api/functions/hash5', { password: long });
    expect(hashed.status, hashed.text).to.equal(400);
    expect(hashed.body.message).to.match(/73 bytes of UTF-8; bcrypt reads at most 72/);
    const verified = await user.call('POST', '/api/functions/check', {
      password: long,
      hash: '$2a$06$DCq7YPn5Rq63x1Lad4cll.TV4S6ytwfsfvkgY8jIucDrjc8deX1s.',
    });
    expect(verified.status, verified.text).to.equal(400);
  });

  it('answers a point read from another client while four cost-12 hashes run', async () => {
    const inserted = await t.request('POST', '/api/insert/people', { name: 'Ann' });
    const reader = client(t.url, await t.userToken({ name: 'reader' }));
    await readWhileHashing(user, reader, `/api/find/people/${inserted.body.id}`);
  });
});

/**
 * Threads of process `pid` whose nice value is above the main thread's (the pool's workers, Linux) and that are
 * running.
 */
function busyWorkers(pid: number): number {
  const stat = (tid: string): { state: string; nice: number } | undefined => {
    try {
      const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'latin1');
      const rest = fields.slice(fields.lastIndexOf(')') + 2).split(' ');
      return { state: rest[0]!, nice: Number(rest[16]) };
    } catch {
      return undefined;
    }
  };
  const base = stat(String(pid))?.nice ?? 0;
  return readdirSync(`/proc/${pid}/task`)
    .map(stat)
    .filter((t) => t && t.nice > base && t.state === 'R').length;
}

/** `node bin/eddydb.js start` on a free port; resolves with its URL once it listens. */
function startBuilt(
  dataDir: string,
  adminKey: string,
): Promise<{ proc: ChildProcess; url: string; output: () => string }> {
  const args = [
    path.resolve('bin/eddydb.js'),
    'start',
    '--port',
    '0',
    '--host',
    '127.0.0.1',
    '--data-dir',
    dataDir,
    '--durability',
    'none',
  ];
  const proc = spawn(process.execPath, args, {
    env: cleanEnv({ EDDYDB_ADMIN_KEY: adminKey }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(out);
      if (m) resolve({ proc, url: `http://127.0.0.1:${m[1]}`, output: () => out });
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.on('exit', (code) => reject(new Error(`eddydb exited with ${code} before listening:\n${out}`)));
  });
}

describe('HTTP stored functions: bcrypt on worker threads (the built command)', function () {
  // The launcher rebuilds dist/ first when lib/ changed.
  this.timeout(240_000);
  const adminKey = `bcrypt-spec-${'0123456789abcdef'.repeat(2)}`;
  let dir: string;
  let server: { proc: ChildProcess; url: string; output: () => string };
  let admin: Client;

  before(async () => {
    dir = tempDir('eddydb-bcrypt-dist-');
    server = await startBuilt(dir, adminKey);
    const r = await fetch(`${server.url}/api/auth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ api_key: adminKey }),
    });
    admin = client(server.url, ((await r.json()) as { token: string }).token);
    for (const def of [VERIFY, hashing(12), hashing(20)]) {
      const saved = await admin.call('POST', '/api/functions', def);
      expect(saved.status, saved.text).to.equal(200);
    }
  });
  after(() => {
    if (server.proc.exitCode === null && server.proc.signalCode === null) server.proc.kill('SIGKILL');
    removeDir(dir);
  });

  it('answers BcryptVerify of a cost-31 hash with 400 within a second', async () => {
    const started = performance.now();
    const r = await admin.call('POST', '/api/functions/check', { password: 'x', hash: COST_31_HASH });
    expect(performance.now() - started).to.be.lessThan(1000);
    expect(r.status, r.text).to.equal(400);
    expect(r.body.message).to.match(/cost 31 is above this server's limit of 14/);
  });

  it('answers a point read from another client while four cost-12 hashes run', async () => {
    const inserted = await admin.call('POST', '/api/insert/people', { name: 'Ann' });
    const r = await fetch(`${server.url}/api/auth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ api_key: adminKey }),
    });
    const reader = client(server.url, ((await r.json()) as { token: string }).token);
    await readWhileHashing(admin, reader, `/api/find/people/${inserted.body.id}`);
  });

  it('shuts down on SIGTERM while a worker is deep in a cost-20 hash, without waiting for it', async () => {
    expect(
      (await admin.call('PUT', '/api/config', { function_bcrypt_max_cost: 20, function_timeout_ms: 600_000 })).status,
    ).to.equal(200);
    // About a minute of CPU: the exit below must not wait for it.
    const hash = admin.call('POST', '/api/functions/hash20', { password: 'pw' }).then(
      (res) => res.status,
      () => 'connection closed',
    );
    // A pool thread (lowered) that is running is the hash on its worker; idle workers sleep.
    if (existsSync(`/proc/${server.proc.pid}/task`))
      await until('a running bcrypt worker', () => busyWorkers(server.proc.pid!) > 0, 20_000);
    const exited = new Promise<number | null>((resolve) => server.proc.once('exit', (code) => resolve(code)));
    const stopping = performance.now();
    server.proc.kill('SIGTERM');
    expect(await exited, server.output()).to.equal(0);
    expect(performance.now() - stopping, 'exit did not wait for the hash').to.be.lessThan(30_000);
    expect(await hash).to.be.oneOf([503, 'connection closed']);
  });
});
