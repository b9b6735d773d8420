/**
 * Damaged files with real processes: `eddydb start` after a clean
 * shutdown whose snapshot is then damaged, compaction + damage (a
 * refusal on stderr with a non-zero exit), `eddydb verify` saying so, and
 * `eddydb start --salvage` followed by a clean normal start.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { startChild, killChild, childToken, type ChildServer } from '../helpers/child-server.js';
import { tempDir, removeDir } from '../helpers/temp-dir.js';
import { flipByte, frames, snapshotsOf } from '../helpers/data-files.js';
import { Database } from '../../lib/engine/index.js';

function eddydb(args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.resolve('lib/cli/main.ts'), ...args], {
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

async function call(c: ChildServer, method: string, route: string, body?: unknown): Promise<any> {
  const token = await childToken(c.url);
  const r = await fetch(c.url + route, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return r.json();
}

const countItems = async (c: ChildServer) => ((await call(c, 'POST', '/api/find/items', {})) as unknown[]).length;

describe('damaged snapshots across real restarts', function () {
  this.timeout(120_000);
  let dir: string;
  beforeEach(() => {
    dir = tempDir('eddydb-i8-proc-');
  });
  afterEach(() => removeDir(dir));

  it(
    'restarts with every acknowledged record after the shutdown snapshot is damaged; refuses, verifies and ' +
      'salvages once the older log is compacted away',
    async () => {
      let child = await startChild(dir);
      for (let i = 0; i < 8; i++) await call(child, 'POST', '/api/insert/items', { n: i });
      await killChild(child, 'SIGTERM');
      const snap = () => path.join(dir, snapshotsOf(dir).at(-1)!);
      flipByte(snap(), frames(snap()).find((f) => f.k === 'recs')!.offset + 30);

      child = await startChild(dir);
      expect(await countItems(child)).to.equal(8);
      await killChild(child, 'SIGTERM');

      // What `eddydb compact` does: one generation, the log before the snapshot gone.
      const db = await Database.open({ dataDir: dir, keepGenerations: 1 });
      await db.snapshot();
      await db.close();
      const name = snapshotsOf(dir).at(-1)!;
      const recs = frames(snap()).find((f) => f.k === 'recs')!;
      flipByte(snap(), recs.offset + 30);

      const refused = await startChild(dir).then(
        async (c) => {
          await killChild(c);
          return '';
        },
        (err: Error) => err.message,
      );
      expect(refused).to.include('child exited with 1');
      expect(refused).to.include(`eddydb: corruption in ${name} at byte ${recs.offset}: checksum mismatch`);
      expect(refused).to.include('eddydb verify').and.include('--salvage');

      const verify = eddydb(['verify', '--data-dir', dir]);
      expect(verify.code).to.equal(1);
      expect(verify.stdout).to.include(`BAD ${name}`);
      expect(verify.stdout).to.include('a normal start would REFUSE');
      expect(verify.stdout).to.include(`--salvage would start from ${name}`);
      expect(verify.stdout).to.include("collection 'items': 8 of 8 records lost");

      child = await startChild(dir, ['--salvage']);
      const health = (await call(child, 'GET', '/api/health')) as {
        recovery: { salvaged: boolean; warnings: string[] };
      };
      expect(health.recovery.salvaged).to.equal(true);
      expect(health.recovery.warnings.join('\n')).to.include("collection 'items': 8 of 8 records lost");
      expect(await countItems(child)).to.equal(0);
      await killChild(child, 'SIGTERM');
      // One from the first restart (the damaged snapshot moved aside), one from salvage.
      expect(readdirSync(dir).filter((f) => f.startsWith('damaged-'))).to.have.length(2);

      child = await startChild(dir);
      const clean = (await call(child, 'GET', '/api/health')) as {
        recovery: { salvaged: boolean; warnings: string[] };
      };
      expect(clean.recovery).to.deep.include({ salvaged: false, warnings: [] });
      await killChild(child, 'SIGTERM');
    },
  );
});
