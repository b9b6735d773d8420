/**
 * `eddydb start` on a port in use generated and printed a new admin
 * key before failing, because Server.create bootstrapped the key before
 * listen(). With adminKeyAfterListen (what the CLI sets) the key is made
 * only once the port is bound; an embedder that never listens still gets
 * it from create().
 */
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Server } from '../../lib/http/index.js';
import { tempDir, removeDir } from '../helpers/temp-dir.js';

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
});
