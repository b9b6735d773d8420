/**
 * Measured in a fresh process for the access-log scenario: the cost of
 * Dispatcher.handle for an authenticated point read, in process (no
 * sockets, so the number is the server's own work), with the access log off
 * and on. Access lines go to this process's stdout exactly as a server
 * writes them (batched per event-loop turn); the parent discards them. The
 * variants alternate and each keeps its best round, to damp a busy machine.
 * Prints one JSON line on stderr.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Server } from '../lib/http/index.js';

const REQUESTS = Number(process.env.BENCH_ACCESS_REQUESTS ?? 20_000);
const ROUNDS = 8;
const KEY = 'bench-admin-key-0123456789';

/**
 * A server (not listening) and a loop of point reads through its Dispatcher; resolves with microseconds per request.
 */
async function variant(accessLog: boolean) {
  const dir = mkdtempSync(path.join(tmpdir(), 'eddydb-bench-access-'));
  const server = await Server.create({
    port: 0,
    host: '127.0.0.1',
    dataDir: dir,
    adminKey: KEY,
    accessLog,
    snapshotCron: '',
    trashPurgeCron: '',
    ttlSweepMs: 0,
    settings: { durability: 'none' },
  });
  const d = server.dispatcher;
  const call = async (method: string, url: string, headers: Record<string, string>, body?: unknown) =>
    JSON.parse(
      (
        await d.handle({
          method,
          url,
          headers,
          body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)),
        })
      ).body.toString(),
    );
  const json = { 'content-type': 'application/json' };
  const { token } = await call('POST', '/api/auth/token', json, { api_key: KEY });
  const headers = { ...json, authorization: `Bearer ${token}` };
  const { id } = await call('POST', '/api/insert/bench', headers, {
    name: 'Ann',
    age: 31,
    email: 'ann@example.com',
    active: true,
  });
  const req = { method: 'GET', url: `/api/find/bench/${id}`, headers };
  const round = async () => {
    const t0 = performance.now();
    for (let i = 0; i < REQUESTS; i++) {
      await d.handle(req);
      // Let the event loop turn now and then, as it does between requests on sockets (the batch is written then).
      if (i % 32 === 31) await new Promise((r) => setImmediate(r));
    }
    return ((performance.now() - t0) * 1000) / REQUESTS;
  };
  return {
    round,
    close: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const off = await variant(false);
const on = await variant(true);
const best = { off: Infinity, on: Infinity };
for (let r = 0; r < ROUNDS; r++) {
  best.off = Math.min(best.off, await off.round());
  best.on = Math.min(best.on, await on.round());
}
await off.close();
await on.close();
process.stderr.write(JSON.stringify({ requests: REQUESTS, rounds: ROUNDS, offUs: best.off, onUs: best.on }) + '\n');
