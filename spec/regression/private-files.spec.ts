/**
 * Files are private. A fresh data directory is 0700 and
 * every file the server creates in it 0600, whatever the umask (the tests
 * run under umask 000, where a default-created file would be 0666); an
 * existing directory that group or others can read is reported at startup
 * with the way to fix it, and left as it is.
 */
import { expect } from 'chai';
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ADMIN_KEY, TestServer } from '../helpers/test-server.js';
import { tempDir, removeDir } from '../helpers/temp-dir.js';

const modeOf = (p: string) => statSync(p).mode & 0o777;
const octal = (m: number) => '0' + m.toString(8);

async function eventually(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('files in the data directory are private', function () {
  this.timeout(30_000);
  let root: string;
  let umask: number;
  beforeEach(() => {
    root = tempDir('eddydb-private-');
    umask = process.umask(0o000);
  });
  afterEach(() => {
    process.umask(umask);
    removeDir(root);
  });

  it('creates the data directory 0700 and every file in it 0600 after writes, a snapshot, an audit event and a ripple', async () => {
    const dir = path.join(root, 'nested', 'data');
    const peer = await TestServer.start({ dataDir: path.join(root, 'peer') });
    const t = await TestServer.start({
      dataDir: dir,
      ripplePeers: [{ url: peer.url, key: ADMIN_KEY }],
      rippleMaxBackoffMs: 200,
    });
    try {
      expect((await t.request('POST', '/api/insert/items', { n: 1 })).status).to.equal(201);
      const tx = (await t.request('POST', '/api/transactions', { isolation_level: 'ReadCommitted' })).body
        .transaction_id;
      expect((await t.request('POST', `/api/insert/items?transaction_id=${tx}`, { n: 2 })).status).to.equal(201);
      expect((await t.request('POST', `/api/transactions/${tx}/commit`)).status).to.equal(200);
      expect((await t.request('POST', '/api/admin/snapshot')).status).to.equal(200);
      expect((await t.request('POST', '/api/insert/items', { n: 3 })).status).to.equal(201);
      await eventually(() => existsSync(path.join(dir, 'ripple-cursors.json')), 'the peer to acknowledge');
      await t.server.db.audit.flush();

      const files = readdirSync(dir).sort();
      for (const expected of ['LOCK', 'audit.log', 'node-id', 'ripple-cursors.json', 'secrets'])
        expect(files).to.include(expected);
      expect(files.some((f) => /^snapshot-\d{16}\.snap$/.test(f))).to.equal(true);
      expect(files.filter((f) => /^log-\d{16}\.seg$/.test(f))).to.have.length.at.least(1);
      expect(octal(modeOf(dir)), dir).to.equal('0700');
      const modes = Object.fromEntries(files.map((f) => [f, octal(modeOf(path.join(dir, f)))]));
      expect(modes).to.deep.equal(Object.fromEntries(files.map((f) => [f, '0600'])));
    } finally {
      await t.stop({ keepData: true });
      await peer.stop({ keepData: true });
    }
  });

  it('writes a generated admin key 0600', async () => {
    const dir = path.join(root, 'data');
    const t = await TestServer.start({ dataDir: dir, adminKey: undefined, announce: () => undefined });
    try {
      expect(octal(modeOf(path.join(dir, 'admin.key')))).to.equal('0600');
    } finally {
      await t.stop({ keepData: true });
    }
  });

  it(
    'warns about an existing data directory and files others can read, naming path, mode and fix, and leaves them ' +
      'as they are',
    async () => {
      const dir = path.join(root, 'data');
      const first = await TestServer.start({ dataDir: dir });
      await first.stop({ keepData: true });
      chmodSync(dir, 0o755);
      chmodSync(path.join(dir, 'secrets'), 0o644);
      const warnings: string[] = [];
      const t = await TestServer.start({
        dataDir: dir,
        logger: (level, msg) => {
          if (level === 'warn') warnings.push(msg);
        },
      });
      await t.stop({ keepData: true });
      const aboutDir = warnings.find((w) => w.includes(`data directory ${dir} has mode 0755`));
      expect(aboutDir, warnings.join('\n')).to.include(`chmod 700 ${dir}`);
      const aboutFiles = warnings.find((w) => w.includes('secrets 0644'));
      expect(aboutFiles, warnings.join('\n')).to.include('chmod 600');
      expect(octal(modeOf(dir)), 'not changed silently').to.equal('0755');
      expect(octal(modeOf(path.join(dir, 'secrets')))).to.equal('0644');
    },
  );

  it(
    "makes a directory that holds no EddyDB file yet private without a warning (the repository's data/ with its " +
      '.gitkeep), and ignores files that are not its own',
    async () => {
      const dir = path.join(root, 'checkout-data');
      mkdirSync(dir);
      chmodSync(dir, 0o755);
      writeFileSync(path.join(dir, '.gitkeep'), '');
      chmodSync(path.join(dir, '.gitkeep'), 0o644);
      const warnings: string[] = [];
      const t = await TestServer.start({
        dataDir: dir,
        logger: (level, msg) => {
          if (level === 'warn') warnings.push(msg);
        },
      });
      await t.stop({ keepData: true });
      expect(warnings.filter((w) => /group or others/.test(w))).to.deep.equal([]);
      expect(octal(modeOf(dir))).to.equal('0700');
      expect(octal(modeOf(path.join(dir, '.gitkeep'))), 'not ours to change').to.equal('0644');
    },
  );

  it('does not warn about a directory it created itself, on first start or after a restart', async () => {
    const warnings: string[] = [];
    const logger = (level: string, msg: string) => {
      if (level === 'warn') warnings.push(msg);
    };
    for (let run = 0; run < 2; run++) {
      const t = await TestServer.start({ dataDir: path.join(root, 'fresh'), logger });
      expect((await t.request('POST', '/api/insert/items', { run })).status).to.equal(201);
      await t.stop({ keepData: true });
    }
    expect(warnings.filter((w) => /group or others/.test(w))).to.deep.equal([]);
  });
});
