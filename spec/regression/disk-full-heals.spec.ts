/**
 * A full disk heals. Through a real server on a
 * fault-injecting file system: the disk fills (or an fsync fails), the
 * server turns read-only with one error line naming the cause, refuses many
 * writes with 503 and only a bounded number of log lines, shows the state in
 * GET /api/health, heals by itself once the disk accepts writes again, and a
 * restart finds every acknowledged write and none of the rejected ones.
 */
import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import { FaultyFs } from '../helpers/faulty-fs.js';
import { TestServer } from '../helpers/test-server.js';
import { tempDir, removeDir } from '../helpers/temp-dir.js';

type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';
interface Line {
  level: Level;
  msg: string;
  extra?: unknown;
}

async function eventually<T>(probe: () => Promise<T | undefined>, what: string, ms = 8000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A server on a FaultyFs that retries quickly and captures its log. */
async function startOnFaultyDisk(dir: string, durability: 'always' | 'batch') {
  const fs = new FaultyFs();
  const lines: Line[] = [];
  const t = await TestServer.start({
    dataDir: dir,
    fs,
    settings: { durability },
    healRetryMs: 50,
    healRetryMaxMs: 200,
    readOnlySummaryMs: 100,
    logger: (level, msg, extra) => {
      lines.push({ level, msg, extra });
    },
  });
  return { t, fs, lines };
}

const insert = (t: TestServer, tag: string, i: number) =>
  t.request('POST', '/api/insert/items', { tag, i, pad: 'x'.repeat(40) });
const health = async (t: TestServer) => (await t.request('GET', '/api/health')).body;

/** Restarts on the real file system and checks exactly the acknowledged ids are there. */
async function expectExactly(dir: string, acked: string[]): Promise<void> {
  const t = await TestServer.start({ dataDir: dir });
  try {
    expect((await t.request('GET', '/api/items/count')).body.count).to.equal(acked.length);
    for (const id of acked)
      expect((await t.request('GET', `/api/find/items/${id}`)).status, `acknowledged ${id}`).to.equal(200);
  } finally {
    await t.stop({ keepData: true });
  }
}

describe('a full disk heals', function () {
  this.timeout(30_000);
  let dir: string;
  beforeEach(() => {
    dir = tempDir('eddydb-diskfull-');
  });
  afterEach(() => removeDir(dir));

  for (const durability of ['always', 'batch'] as const) {
    it(
      `in ${durability} mode goes read-only on a full disk, logs the cause once, heals once space is freed, and ` +
        `keeps exactly the acknowledged writes`,
      async () => {
        const { t, fs, lines } = await startOnFaultyDisk(dir, durability);
        const acked: string[] = [];
        try {
          for (let i = 0; i < 5; i++) acked.push((await insert(t, 'before', i)).body.id);
          // Room for part of one frame: the next append is torn by ENOSPC.
          fs.spaceLeft = 30;
          const first = await insert(t, 'rejected', 0);
          expect(first.status).to.equal(503);
          expect(first.body.message).to.match(/read-only/);
          const rest = await Promise.all(Array.from({ length: 200 }, (_, i) => insert(t, 'rejected', i + 1)));
          expect(rest.map((r) => r.status)).to.deep.equal(rest.map(() => 503));

          const errors = lines.filter((l) => l.level === 'error');
          expect(errors, 'one error line for the cause').to.have.length(1);
          expect(errors[0]!.msg)
            .to.include('ENOSPC')
            .and.include('write')
            .and.match(/log-\d{16}\.seg/);

          const down = await eventually(async () => {
            const h = await health(t);
            return h.storage.heal_attempts >= 2 ? h : undefined;
          }, 'failed repair attempts');
          expect(down.status).to.equal('degraded');
          expect(down.read_only).to.equal(true);
          expect(down.reason).to.match(/^storage failure: /);
          expect(down.storage.state).to.equal('read_only');
          expect(down.storage.cause).to.include({ code: 'ENOSPC', operation: 'write' });
          expect(down.storage.cause.at).to.be.a('string');
          expect(down.storage.since).to.equal(down.storage.cause.at);
          expect(down.storage.last_attempt_at).to.be.a('string');
          expect(down.storage.last_attempt_error.code).to.equal('ENOSPC');
          expect((await insert(t, 'rejected', 999)).status, 'still refused while the disk is full').to.equal(503);

          fs.free();
          const up = await eventually(async () => {
            const h = await health(t);
            return h.storage.state === 'ok' ? h : undefined;
          }, 'healing');
          expect(up).to.include({ status: 'ok', read_only: false });
          const { lock, durability: mode, ...storage } = up.storage;
          expect(storage).to.deep.equal({ state: 'ok', heal_attempts: 0 });
          expect(mode, "the log's durability mode").to.equal(durability);
          expect(lock, 'what holds the data directory').to.be.oneOf(['flock', 'socket', 'pid']);
          for (let i = 0; i < 3; i++) {
            const r = await insert(t, 'after', i);
            expect(r.status).to.equal(201);
            acked.push(r.body.id);
          }

          const healed = lines.find((l) => /storage healed/.test(l.msg));
          expect(healed?.level).to.equal('warn');
          expect(healed!.msg).to.include('202 writes were rejected');
          expect(
            lines.filter((l) => l.level === 'error'),
            'still one error line',
          ).to.have.length(1);
          // 202 refused writes cost a handful of summary lines (one per 100 ms window at most), not one each.
          const summaries = lines.filter((l) => /writes rejected while read-only in the last/.test(l.msg));
          expect(summaries.length).to.be.at.least(1).and.below(60);
          expect(lines.filter((l) => l.level !== 'info').length).to.be.below(62);
        } finally {
          await t.stop({ keepData: true });
        }
        await expectExactly(dir, acked);
      },
    );
  }

  it('drops a rejected batch whose frame was fully written before its fsync failed (always mode)', async () => {
    const { t, fs } = await startOnFaultyDisk(dir, 'always');
    const acked: string[] = [];
    try {
      acked.push((await insert(t, 'before', 0)).body.id);
      fs.failSyncs = true;
      expect((await insert(t, 'rejected', 0)).status).to.equal(503);
      expect((await health(t)).storage.cause).to.include({ code: 'EIO', operation: 'fsync' });
      fs.free();
      await eventually(async () => ((await health(t)).storage.state === 'ok' ? true : undefined), 'healing');
      // The next write reuses the rejected batch's seq; recovery must find this one, not the rejected one.
      acked.push((await insert(t, 'after', 0)).body.id);
    } finally {
      await t.stop({ keepData: true });
    }
    await expectExactly(dir, acked);
  });

  it('rewrites acknowledged batch-mode frames that a failed fsync dropped from the page cache', async () => {
    const { t, fs } = await startOnFaultyDisk(dir, 'batch');
    const acked: string[] = [];
    try {
      acked.push((await insert(t, 'synced', 0)).body.id);
      await new Promise((r) => setTimeout(r, 50));
      fs.failSyncs = true;
      fs.loseUnsyncedOnFailedSync = true;
      // Acknowledged after the write; the background fsync that follows fails and loses the bytes.
      const replies = await Promise.all(Array.from({ length: 5 }, (_, i) => insert(t, 'unsynced', i)));
      for (const r of replies) if (r.status === 201) acked.push(r.body.id);
      expect(acked.length).to.be.greaterThan(1);
      await eventually(
        async () => ((await health(t)).read_only ? true : undefined),
        'read-only after the failed fsync',
      );
      fs.free();
      await eventually(async () => ((await health(t)).storage.state === 'ok' ? true : undefined), 'healing');
      acked.push((await insert(t, 'after', 0)).body.id);
    } finally {
      await t.stop({ keepData: true });
    }
    await expectExactly(dir, acked);
  });

  it(
    'reports audit trail appends failing on a full disk once, in the server log with the cause, and continues the ' +
      'trail on a fresh line once freed',
    async () => {
      const { t, fs, lines } = await startOnFaultyDisk(dir, 'always');
      try {
        fs.spaceLeft = 20;
        for (let i = 0; i < 5; i++) expect((await t.request('POST', '/api/transactions', {})).status).to.equal(200);
        await t.server.db.audit.flush();
        fs.free();
        const tx = (await t.request('POST', '/api/transactions', {})).body.transaction_id;
        const events = (await t.request('GET', `/api/admin/audit?transaction_id=${tx}`)).body;
        expect(JSON.stringify(events)).to.include('begin');
      } finally {
        await t.stop({ keepData: true });
      }
      const reported = lines.filter((l) => /audit log append failed/.test(l.msg));
      expect(reported).to.have.length(1);
      expect(reported[0]!.level).to.equal('error');
      expect(String((reported[0]!.extra as Error).message)).to.include('ENOSPC');
    },
  );

  it('leaves no .tmp behind and keeps the log writable when a snapshot hits a full disk', async () => {
    const { t, fs, lines } = await startOnFaultyDisk(dir, 'always');
    const acked: string[] = [];
    try {
      for (let i = 0; i < 3; i++) acked.push((await insert(t, 'before', i)).body.id);
      // Enough for the new segment's header, not for the snapshot.
      fs.spaceLeft = 40;
      const snap = await t.request('POST', '/api/admin/snapshot');
      expect(snap.status).to.be.at.least(500);
      expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).to.deep.equal([]);
      expect((await health(t)).storage.state, 'a failed snapshot is not a log failure').to.equal('ok');
      fs.free();
      acked.push((await insert(t, 'after', 0)).body.id);
      expect(lines.filter((l) => /storage failure/.test(l.msg))).to.deep.equal([]);
    } finally {
      await t.stop({ keepData: true });
    }
    await expectExactly(dir, acked);
  });
});
