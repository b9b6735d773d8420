/**
 * `GET /api/admin/backup` over real HTTP: an admin gets the backup file
 * as a stream with its seq in `X-EddyDB-Backup-Seq`, from a data directory
 * or a memory-only server; anyone else is refused; a client that goes
 * away mid-stream ends the capture, and nothing is logged as a failure.
 */
import { expect } from 'chai';
import { readBackup, type Database } from '../../lib/engine/index.js';
import { TestServer } from '../helpers/test-server.js';
import { until } from '../helpers/until.js';

async function seed(t: TestServer, records: number): Promise<void> {
  for (let at = 0; at < records; at += 1000) {
    const inserts = Array.from({ length: Math.min(1000, records - at) }, (_, i) => ({
      data: { n: at + i, text: 'x'.repeat(500) },
    }));
    const r = await t.request('POST', '/api/batch/insert/items', { inserts });
    expect(r.status, r.text).to.equal(201);
  }
}

function readersOn(db: Database, collection: string): number {
  const coll = db.state.collections.get(collection) as unknown as { readers?: Set<unknown> };
  return coll.readers?.size ?? 0;
}

describe('GET /api/admin/backup', function () {
  this.timeout(60_000);

  for (const memory of [false, true]) {
    it(`streams the backup file with its seq in a header (${memory ? 'memory only' : 'data directory'})`, async () => {
      const t = await TestServer.start({ memory });
      try {
        await seed(t, 2000);
        const seq = t.server.db.state.seq;
        const res = await fetch(`${t.url}/api/admin/backup`, {
          headers: { Authorization: `Bearer ${await t.adminToken()}` },
        });
        expect(res.status).to.equal(200);
        expect(res.headers.get('content-type')).to.equal('application/octet-stream');
        expect(res.headers.get('x-eddydb-backup-seq')).to.equal(String(seq));
        expect(res.headers.get('content-disposition')).to.equal(`attachment; filename="eddydb-${seq}.backup"`);
        expect(res.headers.get('x-request-id')).to.be.a('string');
        const contents = await readBackup(Buffer.from(await res.arrayBuffer()), 'http.backup');
        expect(contents.manifest).to.include({ seq, memory });
        expect(contents.collections).to.deep.equal([{ name: 'items', records: 2000 }]);
        expect(readersOn(t.server.db, 'items')).to.equal(0);
      } finally {
        await t.stop();
      }
    });
  }

  it('refuses a caller without a token, or without the admin right', async () => {
    const t = await TestServer.start({ memory: true });
    try {
      const anonymous = await t.request('GET', '/api/admin/backup', undefined, { token: null });
      expect(anonymous.status).to.equal(401);
      const user = await t.request('GET', '/api/admin/backup', undefined, { token: await t.userToken() });
      expect(user.status).to.equal(403);
    } finally {
      await t.stop();
    }
  });

  it('ends the capture when the client goes away mid-stream', async () => {
    const t = await TestServer.start({ memory: true });
    try {
      await seed(t, 20_000);
      const abort = new AbortController();
      const res = await fetch(`${t.url}/api/admin/backup`, {
        headers: { Authorization: `Bearer ${await t.adminToken()}` },
        signal: abort.signal,
      });
      const reader = res.body!.getReader();
      await reader.read();
      expect(readersOn(t.server.db, 'items'), 'while the stream is open').to.equal(1);
      abort.abort();
      await until('the capture to end', () => readersOn(t.server.db, 'items') === 0, 10_000);
      const write = await t.request('POST', '/api/insert/items', { n: -1 });
      expect(write.status).to.equal(201);
      expect(t.logged.filter((l) => l.level === 'error')).to.deep.equal([]);
    } finally {
      await t.stop();
    }
  });
});
