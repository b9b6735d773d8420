/**
 * Online backup and restore with real processes: `eddydb backup` saves a
 * backup of a child server while 16 writers insert, `eddydb restore`
 * builds a data directory from it, and a server started there holds
 * exactly the records acknowledged up to the backup's seq: every
 * acknowledged write at or below it, none above it (each write's seq is
 * read back from the source's log). A memory-only server's backup restores
 * into a data directory the same way. The tools refuse what they must: a
 * non-empty directory, a damaged file, a wrong key.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { nodeFs, readBackup } from '../../lib/engine/index.js';
import { readBatchesAfter } from '../../lib/engine/storage/log/log-scan.js';
import { CHILD_ADMIN_KEY, childToken, killChild, startChild, type ChildServer } from '../helpers/child-server.js';
import { verifyAcked, writeUntilKilled, type Acked, type WriteStop } from '../helpers/crash-writers.js';
import { runCli, spawnCli, type CliProcess } from '../helpers/run-cli.js';
import { removeDir, tempDir } from '../helpers/temp-dir.js';

const KEY_ENV = { EDDYDB_ADMIN_KEY: CHILD_ADMIN_KEY };

/** Runs `eddydb backup` without blocking the writers of this process; resolves with its exit code and output. */
async function backup(url: string, out: string): Promise<{ code: number | null; output: string }> {
  const cli = spawnCli(['backup', '--url', url, '--out', out], KEY_ENV);
  const { code } = await cli.exited;
  return { code, output: cli.output() };
}

/** The record ids of `crash` on a server. */
async function storedIds(url: string, token: string): Promise<string[]> {
  const r = await fetch(`${url}/api/find/crash`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: '{}',
  });
  return ((await r.json()) as Array<{ id: string }>).map((row) => row.id).sort();
}

/** Some megabytes the backup must stream while the writers go on. */
async function preseed(url: string, token: string): Promise<void> {
  for (let at = 0; at < 6000; at += 1000) {
    const inserts = Array.from({ length: 1000 }, (_, i) => ({ data: { n: at + i, text: 'x'.repeat(1000) } }));
    const r = await fetch(`${url}/api/batch/insert/bulk`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ inserts }),
    });
    expect(r.status).to.equal(201);
  }
}

/** Writers going, a backup taken once `before` writes are acknowledged, and `after` more acknowledged after it. */
async function backupUnderWriters(
  child: { url: string },
  out: string,
): Promise<{ acked: Acked[]; during: number; code: number | null; output: string }> {
  const token = await childToken(child.url);
  await preseed(child.url, token);
  let acks = 0;
  let wanted = 200;
  let reached: () => void = () => undefined;
  const stop: WriteStop = {
    done: false,
    onAck: () => {
      if (++acks >= wanted) reached();
    },
  };
  const reach = (n: number) => {
    wanted = n;
    return acks >= n ? Promise.resolve() : new Promise<void>((resolve) => (reached = resolve));
  };
  const writing = writeUntilKilled(child.url, token, 'w', stop);
  await reach(200);
  const started = acks;
  const result = await backup(child.url, out);
  const during = acks - started;
  await reach(acks + 200);
  stop.done = true;
  const acked = await writing;
  expect(stop.other, 'every write was acknowledged').to.equal(undefined);
  return { acked, during, ...result };
}

describe('online backup and restore (real processes)', function () {
  this.timeout(180_000);
  let dirs: string[] = [];
  let children: Array<ChildServer | CliProcess> = [];
  const dir = (prefix: string) => {
    const d = tempDir(prefix);
    dirs.push(d);
    return d;
  };
  afterEach(async () => {
    for (const c of children) {
      if (c.proc.exitCode === null && c.proc.signalCode === null) {
        const gone = new Promise((resolve) => c.proc.once('exit', resolve));
        c.proc.kill('SIGKILL');
        await gone;
      }
    }
    children = [];
    for (const d of dirs) removeDir(d);
    dirs = [];
  });

  it('restores exactly the writes acknowledged up to the seq of a backup taken under 16 writers', async () => {
    const source = dir('eddydb-backup-source-');
    const restored = path.join(dir('eddydb-backup-target-'), 'data');
    const file = path.join(dir('eddydb-backup-file-'), 'db.backup');
    const child = await startChild(source, ['--durability', 'always']);
    children.push(child);
    const { acked, during, code, output } = await backupUnderWriters(child, file);
    expect(code, output).to.equal(0);
    expect(output).to.match(/backup of seq \d+ written to /);
    expect(during, 'writes acknowledged while the backup streamed').to.be.greaterThan(0);
    // Killed, so the log is as the writers left it: every acknowledged write is in it, with its seq.
    await killChild(child);
    const { seq } = (await readBackup(readFileSync(file), file)).manifest;
    const { batches } = await readBatchesAfter(nodeFs, source, 0, Number.MAX_SAFE_INTEGER);
    const seqOf = new Map<string, number>();
    for (const batch of batches)
      for (const e of batch.effects) if (e.kind === 'put' && e.collection === 'crash') seqOf.set(e.id, batch.seq);
    for (const a of acked) expect(seqOf.has(a.id), `acknowledged write ${a.id} in the log`).to.equal(true);
    const expected = acked.filter((a) => seqOf.get(a.id)! <= seq);
    expect(expected.length, 'writes at or below the backup seq').to.be.greaterThan(0);
    expect(acked.length - expected.length, 'writes above the backup seq').to.be.greaterThan(0);

    const verify = runCli(['verify', file]);
    expect(verify.code, verify.stdout + verify.stderr).to.equal(0);
    expect(verify.stdout).to.include(`backup at seq ${seq}`);
    expect(verify.stdout).to.include(`crash  ${expected.length}`);

    const restore = runCli(['restore', file, '--data-dir', restored]);
    expect(restore.code, restore.stdout + restore.stderr).to.equal(0);
    expect(readdirSync(restored).sort()).to.deep.equal(['secrets', `snapshot-${String(seq).padStart(16, '0')}.snap`]);
    const again = await startChild(restored);
    children.push(again);
    const token = await childToken(again.url);
    expect(await storedIds(again.url, token)).to.deep.equal(expected.map((a) => a.id).sort());
    await verifyAcked(again.url, token, expected);
    await killChild(again, 'SIGTERM');
  });

  it("restores a memory-only server's backup into a data directory", async () => {
    const restored = path.join(dir('eddydb-backup-target-'), 'data');
    const file = path.join(dir('eddydb-backup-file-'), 'memory.backup');
    const server = spawnCli(['start', '--memory', '--port', '0', '--host', '127.0.0.1'], KEY_ENV);
    children.push(server);
    const url = await listeningUrl(server);
    const { acked, code, output } = await backupUnderWriters({ url }, file);
    expect(code, output).to.equal(0);
    const contents = await readBackup(readFileSync(file), file);
    expect(contents.manifest.memory).to.equal(true);
    const restore = runCli(['restore', file, '--data-dir', restored]);
    expect(restore.code, restore.stderr).to.equal(0);
    const again = await startChild(restored);
    children.push(again);
    const token = await childToken(again.url);
    const ids = await storedIds(again.url, token);
    const held = new Set(ids);
    // Without a log to read seqs from: each writer's writes are acknowledged in seq order, so a backup at one seq
    // holds a prefix of each writer's acknowledged writes, and nothing else.
    const kept = acked.filter((a) => held.has(a.id));
    expect(kept.length).to.equal(ids.length);
    expect(kept.length).to.be.greaterThan(0).and.below(acked.length);
    const byWriter = new Map<string, Acked[]>();
    for (const a of acked) {
      const writer = a.id.slice(0, a.id.lastIndexOf('-'));
      byWriter.set(writer, [...(byWriter.get(writer) ?? []), a]);
    }
    for (const [writer, writes] of byWriter) {
      const count = writes.filter((a) => held.has(a.id)).length;
      expect(
        writes.slice(0, count).every((a) => held.has(a.id)),
        `${writer}: a prefix of its writes`,
      ).to.equal(true);
    }
    await verifyAcked(again.url, token, kept);
  });

  it('refuses a non-empty directory, a damaged backup and a wrong key, saying what to do', async () => {
    const source = dir('eddydb-backup-source-');
    const file = path.join(dir('eddydb-backup-file-'), 'db.backup');
    const child = await startChild(source);
    children.push(child);
    const wrong = runCli(['backup', '--url', child.url, '--out', file], { env: { EDDYDB_ADMIN_KEY: 'not-the-key' } });
    expect(wrong.code).to.equal(1);
    expect(wrong.stderr).to.include(`${child.url} refused the key: 401`);
    const { code } = await backup(child.url, file);
    expect(code).to.equal(0);

    const occupied = dir('eddydb-backup-occupied-');
    writeFileSync(path.join(occupied, 'notes.txt'), 'mine');
    const refused = runCli(['restore', file, '--data-dir', occupied]);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.include(`refusing to restore into ${occupied}: it is not empty (notes.txt)`);
    expect(readdirSync(occupied)).to.deep.equal(['notes.txt']);

    const damaged = Buffer.from(readFileSync(file));
    damaged[damaged.length - 20]! ^= 0xff;
    writeFileSync(file, damaged);
    const bad = runCli(['verify', file]);
    expect(bad.code).to.equal(1);
    expect(bad.stdout).to.match(/^BAD .*corruption in .* at byte \d+: checksum mismatch/);
    const target = path.join(dir('eddydb-backup-target-'), 'data');
    const notRestored = runCli(['restore', file, '--data-dir', target]);
    expect(notRestored.code).to.equal(1);
    expect(notRestored.stderr).to.include('nothing was restored');
  });
});

/** The URL a `start` child prints once it listens. */
async function listeningUrl(cli: CliProcess): Promise<string> {
  for (let waited = 0; waited < 20_000; waited += 50) {
    const m = /listening on (http:\/\/[^\s]+)/.exec(cli.output());
    if (m) return m[1]!;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the server did not start:\n${cli.output()}`);
}
