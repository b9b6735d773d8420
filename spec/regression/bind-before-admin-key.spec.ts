/**
 * `eddydb start` on a port in use generated and printed a new admin
 * key before failing, because Server.create bootstrapped the key before
 * listen(). With adminKeyAfterListen (what the CLI sets) the key is made
 * only once the port is bound; an embedder that never listens still gets
 * it from create(). Between the bind and the key stored, a token request
 * is answered 503 with Retry-After: a 401 then would be false, and would
 * count toward the address's failed logins; the readiness probe says
 * `auth: starting` meanwhile.
 */
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Server } from '../../lib/http/index.js';
import { FaultyFs } from '../helpers/faulty-fs.js';
import { tempDir, removeDir } from '../helpers/temp-dir.js';
import { until } from '../helpers/until.js';

describe('a start that cannot bind makes no admin key', function () {
  this.timeout(30_000);
  let dir: string;
  beforeEach(() => {
    dir = tempDir('eddydb-i9-bind-');
  });
  afterEach(() => removeDir(dir));

  const base = () => ({
    host: '127.0.0.1',
    dataDir: dir,
    quiet: true,
    trashPurgeCron: '',
    snapshotCron: '',
    ttlSweepMs: 0,
  });

  it('announces and writes no key when listen() fails on a port in use', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const announced: string[] = [];
    const server = await Server.create({
      ...base(),
      port: (holder.address() as net.AddressInfo).port,
      adminKeyAfterListen: true,
      announce: (m) => announced.push(m),
    });
    try {
      const err = await server.listen().then(
        () => undefined,
        (e: NodeJS.ErrnoException) => e,
      );
      expect(err?.code).to.equal('EADDRINUSE');
      expect(announced).to.deep.equal([]);
      expect(existsSync(path.join(dir, 'admin.key'))).to.equal(false);
      expect(server.db.keys.hasAdmin()).to.equal(false);
    } finally {
      await server.close();
      holder.close();
    }
  });

  it('generates and announces the key once listen() has bound the port', async () => {
    const announced: string[] = [];
    const server = await Server.create({
      ...base(),
      port: 0,
      adminKeyAfterListen: true,
      announce: (m) => announced.push(m),
    });
    try {
      expect(server.db.keys.hasAdmin()).to.equal(false);
      await server.listen();
      expect(announced).to.have.length(1);
      expect(announced[0]).to.include('Generated admin API key');
      expect(existsSync(path.join(dir, 'admin.key'))).to.equal(true);
    } finally {
      await server.close();
    }
  });

  it('still bootstraps in create() for an embedder that never calls listen()', async () => {
    const announced: string[] = [];
    const server = await Server.create({ ...base(), port: 0, announce: (m) => announced.push(m) });
    try {
      expect(server.db.keys.hasAdmin()).to.equal(true);
      expect(announced).to.have.length(1);
    } finally {
      await server.close();
    }
  });

  it('answers a token request before the key is stored with 503 and Retry-After, counting no failure; not ready', async () => {
    const fs = new FaultyFs();
    const announced: string[] = [];
    const server = await Server.create({
      ...base(),
      port: 0,
      fs,
      authFailureLimit: 3,
      adminKeyAfterListen: true,
      announce: (m) => announced.push(m),
    });
    // The key's write waits for its fsync (durability `always`): held, the port is bound and the key not yet stored.
    const release = fs.holdSyncs();
    const listening = server.listen();
    try {
      await until('the port bound', () => server.httpServer.listening, 10_000);
      const address = server.httpServer.address() as net.AddressInfo;
      const token = (apiKey: string) =>
        fetch(`http://127.0.0.1:${address.port}/api/auth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ api_key: apiKey }),
        });
      // More than the failure limit: none counts.
      for (let i = 0; i < 5; i++) {
        const early = await token('eddy_admin_not-the-key');
        expect(early.status).to.equal(503);
        expect(early.headers.get('retry-after')).to.equal('1');
        expect(((await early.json()) as { message: string }).message).to.match(/starting/);
      }
      expect(server.db.keys.hasAdmin()).to.equal(false);
      // Not ready for traffic meanwhile: a load balancer sends none.
      const probe = await fetch(`http://127.0.0.1:${address.port}/api/health/ready`);
      expect(probe.status).to.equal(503);
      const readiness = (await probe.json()) as { checks: { auth: string }; reasons: string[] };
      expect(readiness.checks.auth).to.equal('starting');
      expect(readiness.reasons).to.deep.equal(['the admin key is not stored yet: no token can be issued']);
      release();
      await listening;
      const key = /^\s+(eddy_admin_\S+)$/m.exec(announced[0] ?? '')?.[1];
      expect(key, announced.join('\n')).to.be.a('string');
      const wrong = await token('eddy_admin_not-the-key');
      expect(wrong.status).to.equal(401);
      const right = await token(key!);
      expect(right.status).to.equal(200);
      expect(((await right.json()) as { token: string }).token).to.be.a('string');
      const ready = await fetch(`http://127.0.0.1:${address.port}/api/health/ready`);
      expect(ready.status).to.equal(200);
      expect(((await ready.json()) as { checks: { auth: string } }).checks.auth).to.equal('ready');
    } finally {
      release();
      await listening.catch(() => undefined);
      await server.close();
    }
  });
});
