/**
 * A memory-only server (`memory: true`) through real HTTP: it serves records
 * like any server, says in health, config and its startup summary that
 * nothing is written to disk, keeps its audit trail in memory, answers a
 * snapshot request without writing, announces a generated admin key
 * without a file, and refuses ripple peers.
 */
import { readdirSync } from 'node:fs';
import { expect } from 'chai';
import { MEMORY_ONLY, Server } from '../../lib/http/index.js';
import { rejection } from '../helpers/rejection.js';
import { removeDir, tempDir } from '../helpers/temp-dir.js';
import { TestServer } from '../helpers/test-server.js';

describe('http: a memory-only server', () => {
  let cwd: string;
  let home: string;
  let t: TestServer | undefined;
  beforeEach(() => {
    home = process.cwd();
    cwd = tempDir('eddydb-memory-server-');
    process.chdir(cwd);
  });
  afterEach(async () => {
    await t?.stop();
    t = undefined;
    process.chdir(home);
    removeDir(cwd);
  });

  it('serves records over HTTP and writes nothing to the working directory', async () => {
    t = await TestServer.start({ memory: true });
    const inserted = await t.request('POST', '/api/insert/users', { name: 'Ann' });
    expect(inserted.status).to.equal(201);
    const found = await t.request('GET', `/api/find/users/${inserted.body.id}`);
    expect(found.status).to.equal(200);
    expect(JSON.stringify(found.body)).to.contain('Ann');
    await t.stop();
    t = undefined;
    expect(readdirSync(cwd)).to.deep.equal([]);
  });

  it('shows memory durability and no lock in health, and no durable operations in config', async () => {
    t = await TestServer.start({ memory: true });
    const health = await t.request('GET', '/api/health');
    expect(health.status).to.equal(200);
    expect(health.body.storage).to.include({ state: 'ok', durability: 'memory', lock: 'none' });
    expect(health.body.recovery).to.include({ snapshot: null, replayed_batches: 0 });
    const anonymous = await t.request('GET', '/api/health', undefined, { token: null });
    expect(anonymous.body).to.deep.equal({ status: 'ok', integrity_ok: true });
    const config = await t.request('GET', '/api/config');
    expect(config.body.durable_operations).to.equal(false);
  });

  it('keeps the transaction audit trail in memory', async () => {
    t = await TestServer.start({ memory: true });
    const tx = (await t.request('POST', '/api/transactions', {})).body.transaction_id as string;
    expect((await t.request('POST', `/api/insert/orders?transaction_id=${tx}`, { id: 'o1' })).status).to.equal(201);
    expect((await t.request('POST', `/api/transactions/${tx}/commit`)).status).to.equal(200);
    const audit = await t.request('GET', `/api/admin/audit?transaction_id=${tx}`);
    expect(audit.status, audit.text).to.equal(200);
    expect((audit.body.events as Array<{ event: string }>).map((e) => e.event)).to.deep.equal(['commit', 'begin']);
    expect(readdirSync(cwd)).to.deep.equal([]);
  });

  it('answers a snapshot request at once, writing nothing', async () => {
    t = await TestServer.start({ memory: true });
    await t.request('POST', '/api/insert/users', { name: 'Ann' });
    const r = await t.request('POST', '/api/admin/snapshot');
    expect(r.status).to.equal(200);
    expect(r.body).to.include({ status: 'ok', snapshot: 'memory', bytes: 0 });
    expect(readdirSync(cwd)).to.deep.equal([]);
  });

  it('says in its startup summary that nothing is written to disk', async () => {
    t = await TestServer.start({ memory: true });
    const summary = t.logged.find((l) => l.msg === 'server started')?.extra as Record<string, unknown>;
    expect(summary).to.include({ storage: MEMORY_ONLY, durability: 'memory', dataLock: 'none' });
    expect(summary).to.not.have.property('dataDir');
    expect(MEMORY_ONLY).to.equal('memory only: nothing is written to disk');
  });

  it('announces a generated admin key without a file, and the key works', async () => {
    const announced: string[] = [];
    t = await TestServer.start({ memory: true, adminKey: undefined, announce: (m) => announced.push(m) });
    expect(announced).to.have.length(1);
    expect(announced[0]).to.contain('memory only, not saved').and.not.contain('saved to');
    const key = /eddy_admin_\S+/.exec(announced[0]!)![0];
    const token = await t.tokenFor(key);
    expect((await t.request('GET', '/api/collections', undefined, { token })).status).to.equal(200);
    expect(readdirSync(cwd)).to.deep.equal([]);
  });

  it('refuses ripple peers, which read the log, saying what to drop', async () => {
    const err = await rejection(
      Server.create({
        memory: true,
        port: 0,
        host: '127.0.0.1',
        quiet: true,
        ripplePeers: [{ url: 'http://127.0.0.1:9', key: 'k' }],
      }),
    );
    expect(err.message).to.equal(
      'ripples need a data directory; this server is memory-only: drop the ripple peers or memory',
    );
  });
});
