/**
 * Crypto steps under load. `bcrypt-under-load`: a stored function hashing
 * with BcryptHash at cost 12 (the default) is called back to back by four
 * callers while the load tool runs point reads; the reads' p99 during the
 * hashing is compared with the same reads on the same server idle, measured
 * first in the same run, and the hashes per second are reported. bcrypt
 * runs on the server's worker threads, so the event loop keeps answering
 * reads; what they lose is the CPU the workers take (the server is pinned
 * to one core, so its one worker shares that core with the request thread).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { load } from '../lib/load.js';
import { startEddy, stop, token } from '../lib/procs.js';
import { report } from '../lib/report.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** Concurrent callers of the hashing function. */
const HASH_CALLERS = 4;
const HASH_COST = 12;
const READ_CONNECTIONS = 16;

const HASH_FUNCTION = {
  label: 'bench_hash',
  name: 'bench hash',
  parameters: { password: { required: true } },
  functions: [{ type: 'BcryptHash', plain: '{{password}}', output_field: 'password_hash', cost: HASH_COST }],
};

export async function bcryptUnderLoad(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'eddydb-bench-'));
  const eddy = await startEddy(dir, ['--durability', 'none']);
  try {
    const headers = { authorization: `Bearer ${await token(eddy.url)}`, 'content-type': 'application/json' };
    const post = (p: string, body: unknown) =>
      fetch(eddy.url + p, { method: 'POST', headers, body: JSON.stringify(body) });
    const { id } = (await (await post('/api/insert/bench', { name: 'Ann', age: 31 })).json()) as { id: string };
    const saved = await post('/api/functions', HASH_FUNCTION);
    if (!saved.ok) throw new Error(`saving the function failed: ${saved.status} ${await saved.text()}`);
    const readSpec = {
      url: `${eddy.url}/api/find/bench/${id}`,
      headers,
      connections: READ_CONNECTIONS,
      seconds: SECONDS,
    };

    const idle = await load('point read, idle', readSpec);

    let hashes = 0;
    let failures = 0;
    let running = true;
    const started = performance.now();
    const callers = Array.from({ length: HASH_CALLERS }, async () => {
      while (running) {
        const r = await post('/api/functions/bench_hash', { password: 'correct horse battery staple' });
        await r.arrayBuffer();
        if (r.ok) hashes++;
        else failures++;
      }
    });
    const busy = await load(`point read, ${HASH_CALLERS} callers hashing at cost ${HASH_COST}`, readSpec);
    running = false;
    await Promise.all(callers);
    const hashesPerSecond = hashes / ((performance.now() - started) / 1000);

    report({
      scenario: 'bcrypt-under-load',
      subject: busy,
      reference: idle,
      ratio: busy.p99_ms! / Math.max(idle.p99_ms!, 1),
      ratio_of: 'point-read p99 while hashing vs idle',
      extra: {
        bcrypt_hashes_per_s: hashesPerSecond,
        bcrypt_cost: HASH_COST,
        hash_failures: failures,
        read_p50_idle_ms: idle.p50_ms,
        read_p50_busy_ms: busy.p50_ms,
        read_max_idle_ms: idle.max_ms,
        read_max_busy_ms: busy.max_ms,
      },
      notes:
        `${HASH_CALLERS} callers of a BcryptHash (cost ${HASH_COST}) function back to back, on the server's ` +
        `bcrypt worker threads; ${READ_CONNECTIONS} keep-alive connections of point reads.`,
    });
  } finally {
    await stop(eddy);
    rmSync(dir, { recursive: true, force: true });
  }
}
