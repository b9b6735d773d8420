/**
 * Crash tests with real processes: a child server takes concurrent writes
 * and is killed with SIGKILL at random points, many times. After each
 * restart every write acknowledged in `always` mode is present and no record
 * is partial. Small snapshot thresholds make kills land mid-snapshot too.
 */
import { expect } from 'chai';
import { startChild, killChild, childToken } from '../../helpers/child-server.js';
import { tempDir, removeDir } from '../../helpers/temp-dir.js';

const WRITERS = 16;

interface Acked { id: string; n: number; payload: string }

async function writeUntilKilled(url: string, token: string, prefix: string, stop: { done: boolean; other?: string; onAck?: () => void }): Promise<Acked[]> {
  const acked: Acked[] = [];
  let seq = 0;
  await Promise.all(Array.from({ length: WRITERS }, async (_, w) => {
    while (!stop.done) {
      const n = seq++;
      const id = `${prefix}-${w}-${n}`;
      const payload = `${id}:` + 'x'.repeat(50 + (n % 200));
      try {
        const r = await fetch(`${url}/api/insert/crash`, {
          method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ id, n, payload, nested: { a: [n, n + 1], b: { c: id } } }),
        });
        if (r.status === 201) { acked.push({ id, n, payload }); stop.onAck?.(); }
        else stop.other = `${r.status} ${(await r.text()).slice(0, 200)}`;
      } catch (err) {
        stop.other ??= String((err as Error).cause ?? err);
        return; // connection refused or reset: the server is gone
      }
    }
  }));
  return acked;
}

async function verify(url: string, token: string, acked: Acked[]): Promise<{ count: number }> {
  const r = await fetch(`${url}/api/find/crash`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: '{}' });
  const rows = (await r.json()) as Array<Record<string, { value: unknown }> & { id: string }>;
  const byId = new Map(rows.map((row) => [row.id, row]));
  for (const a of acked) {
    const row = byId.get(a.id);
    expect(row, `acknowledged write ${a.id} lost`).to.not.equal(undefined);
    expect(row!.payload!.value).to.equal(a.payload);
  }
  for (const row of rows) {
    // No partial records: every stored record has every field it was written with.
    expect(row.payload?.value, `partial record ${row.id}`).to.be.a('string');
    expect((row.payload!.value as string).startsWith(row.id + ':')).to.equal(true);
    expect(row.nested?.value).to.deep.equal({ a: [row.n!.value, (row.n!.value as number) + 1], b: { c: row.id } });
  }
  return { count: rows.length };
}

describe('crash recovery with SIGKILL (real processes)', function () {
  this.timeout(180_000);

  for (const mode of ['always', 'batch', 'none'] as const) {
    const rounds = mode === 'always' ? 6 : 2;
    it(`keeps every acknowledged write in ${mode} mode across ${rounds} kill -9 rounds${mode === 'always' ? '' : ' (no partial records)'}`, async () => {
      const dir = tempDir('eddydb-crash-');
      let allAcked: Acked[] = [];
      try {
        for (let round = 0; round < rounds; round++) {
          const child = await startChild(dir, ['--durability', mode, '--snapshot-bytes', '200000']);
          const token = await childToken(child.url);
          if (round > 0) await verify(child.url, token, mode === 'always' ? allAcked : []);
          const stop: { done: boolean; other?: string; onAck?: () => void } = { done: false };
          const firstAck = new Promise<void>((r) => { stop.onAck = r; setTimeout(r, 10_000).unref(); });
          const writing = writeUntilKilled(child.url, token, `r${round}`, stop);
          // Kill at a random point once writes are flowing.
          await firstAck;
          await new Promise((r) => setTimeout(r, 100 + Math.floor(Math.random() * 400)));
          await killChild(child);
          stop.done = true;
          const acked = await writing;
          expect(acked.length, `writes were acknowledged before the kill (last other outcome: ${stop.other})`).to.be.greaterThan(0);
          allAcked = allAcked.concat(acked);
        }
        const child = await startChild(dir, ['--durability', mode]);
        const token = await childToken(child.url);
        const { count } = await verify(child.url, token, mode === 'always' ? allAcked : []);
        if (mode === 'always') expect(count).to.be.at.least(allAcked.length);
        await killChild(child, 'SIGTERM');
      } finally {
        removeDir(dir);
      }
    });
  }
});
