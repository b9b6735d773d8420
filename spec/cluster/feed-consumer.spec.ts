/**
 * The change feed from outside: examples/cluster/follow-collection.mjs (the
 * consumer docs/cluster.md quotes) follows a collection and resumes from its
 * last sequence after a restart.
 */
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { TestServer } from '../helpers/test-server.js';
import { natsServerAvailable, startNats, type NatsFixture } from '../helpers/nats-server.js';
import { eventually, primaryWithAdminKey } from '../helpers/cluster-nodes.js';
import { removeDir, tempDir } from '../helpers/temp-dir.js';
import { DEFAULT_STREAM_BOUNDS } from '../../lib/cluster/index.js';

/** Runs the example until `lines` JSON lines came out, then stops it with SIGTERM; returns the lines. */
async function follow(nats: string, stateFile: string, lines: number): Promise<Array<Record<string, any>>> {
  const proc = spawn(process.execPath, [path.resolve('examples/cluster/follow-collection.mjs')], {
    env: { ...process.env, NATS_URL: nats, EDDYDB_CLUSTER: 'feed', COLLECTION: 'orders', STATE_FILE: stateFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  try {
    await eventually(
      `${lines} lines from the consumer`,
      async () => (out.split('\n').length > lines ? true : undefined),
      10_000,
    );
    // Long enough for a line past the expected ones to show.
    await new Promise((r) => setTimeout(r, 300));
  } catch (e) {
    throw new Error(`${(e as Error).message}; stderr: ${err}`);
  } finally {
    proc.kill('SIGTERM');
    await exited;
  }
  return out
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, any>);
}

describe('cluster: the change feed, followed from outside', function () {
  this.timeout(60_000);
  let nats: NatsFixture;
  let primary: TestServer;
  const dir = tempDir('eddydb-feed-');

  before(async function () {
    if (!natsServerAvailable()) this.skip();
    nats = await startNats(1);
    primary = await TestServer.start({
      cluster: {
        servers: [nats.urls],
        name: 'feed',
        advertiseUrl: 'http://127.0.0.1:0',
        leaseTtlMs: 1500,
        streamBounds: DEFAULT_STREAM_BOUNDS,
      },
    });
    await primaryWithAdminKey(primary);
  });

  after(async () => {
    await primary?.stop();
    await nats?.stop();
    removeDir(dir);
  });

  it('gives each change of a collection with its sequence, and resumes after the last one it handled', async () => {
    const first = await primary.request('POST', '/api/insert/orders', { item: 'tea', qty: 2 });
    await primary.request('POST', '/api/insert/users', { name: 'Ann' });
    await primary.request('PUT', `/api/update/orders/${first.body.id}`, { qty: 3 });
    const state = path.join(dir, 'orders.seq');
    const seen = await follow(nats.urls, state, 2);
    expect(seen.map((c) => [c.operation, c.collection, c.id])).to.deep.equal([
      ['insert', 'orders', first.body.id],
      ['update', 'orders', first.body.id],
    ]);
    expect(seen[0]!.record).to.include({ item: 'tea', qty: 2 });
    expect(seen[1]!.record).to.include({ qty: 3 });
    expect(seen[1]!.sequence).to.be.above(seen[0]!.sequence);

    await primary.request('DELETE', `/api/delete/orders/${first.body.id}`);
    const after = await follow(nats.urls, state, 1);
    expect(after.map((c) => [c.operation, c.id, c.record])).to.deep.equal([['delete', first.body.id, null]]);
  });
});
