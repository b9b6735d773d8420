/**
 * `cluster`: a primary and a replica on a three-server NATS cluster
 * (JetStream, three replicas). Inserts per second in `replicated` mode
 * against `always` on the same cluster (published in the background), and a
 * single node's `always` as a second reference; the replica's lag (a write's
 * send on the primary to its SSE event on the replica) under steady single
 * writes; and the failover time after kill -9 of the primary.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { load, type LoadResult } from '../lib/load.js';
import { percentile, report } from '../lib/report.js';
import { startEddy, stop, token, type Proc } from '../lib/procs.js';
import { startNats, type NatsFixture } from '../../spec/helpers/nats-server.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const LEASE_TTL_MS = 2000;
const LAG_WRITES = 300;
const BODY = JSON.stringify({ name: 'Ann', email: 'ann@example.com', age: 41, active: true });

interface Node {
  proc: Proc;
  dir: string;
  auth: string;
}

async function role(url: string): Promise<string | undefined> {
  try {
    const health = (await (await fetch(url + '/api/health')).json()) as { cluster?: { role: string } };
    return health.cluster?.role;
  } catch {
    return undefined;
  }
}

async function until<T>(what: string, check: () => Promise<T | undefined>, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`bench cluster: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function startNode(nats: NatsFixture, cluster: string, durability: string): Promise<Node> {
  const dir = mkdtempSync(path.join(tmpdir(), 'eddydb-bench-cluster-'));
  const proc = await startEddy(dir, [
    '--nats',
    nats.urls,
    '--cluster',
    cluster,
    '--lease-ttl',
    String(LEASE_TTL_MS),
    '--durability',
    durability,
  ]);
  const auth = `Bearer ${await until('a token', () => token(proc.url).catch(() => undefined), 15_000)}`;
  return { proc, dir, auth };
}

async function stopNode(node: Node): Promise<void> {
  await stop(node.proc);
  rmSync(node.dir, { recursive: true, force: true });
}

function insertLoad(label: string, node: Node): Promise<LoadResult> {
  return load(label, {
    url: `${node.proc.url}/api/insert/bench`,
    method: 'POST',
    body: BODY,
    headers: { 'content-type': 'application/json', authorization: node.auth },
    seconds: SECONDS,
  });
}

/** Milliseconds from sending each of LAG_WRITES inserts to the primary to its event on the replica's SSE stream. */
async function replicaLag(primary: Node, replica: Node): Promise<number[]> {
  const sent = new Map<number, number>();
  const lags: number[] = [];
  let wake: (() => void) | undefined;
  const req = http.get(
    `${replica.proc.url}/api/subscribe/lag`,
    { headers: { accept: 'text/event-stream', authorization: replica.auth } },
    (res) =>
      res.setEncoding('utf8').on('data', (chunk: string) => {
        for (const m of chunk.matchAll(/"n":\{?(?:"type":"Integer","value":)?(\d+)/g)) {
          const at = sent.get(Number(m[1]));
          if (at !== undefined) lags.push(performance.now() - at);
        }
        wake?.();
      }),
  );
  try {
    await new Promise((r) => setTimeout(r, 500));
    for (let n = 0; n < LAG_WRITES; n++) {
      sent.set(n, performance.now());
      const r = await fetch(`${primary.proc.url}/api/insert/lag`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: primary.auth },
        body: JSON.stringify({ n }),
      });
      await r.body?.cancel();
      await new Promise((r) => setTimeout(r, 5));
    }
    await until('every event on the replica', async () => (lags.length >= LAG_WRITES ? true : undefined), 10_000);
  } finally {
    req.destroy();
  }
  return lags.sort((a, b) => a - b);
}

/** Kills the primary with SIGKILL; ms until the replica is primary and has taken a write. */
async function failover(primary: Node, replica: Node): Promise<number> {
  primary.proc.proc.kill('SIGKILL');
  const killed = performance.now();
  await until(
    'the replica as primary',
    async () => ((await role(replica.proc.url)) === 'primary' ? true : undefined),
    30_000,
  );
  await until(
    'a write on the new primary',
    async () => {
      const r = await fetch(`${replica.proc.url}/api/insert/after`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: replica.auth },
        body: BODY,
      });
      await r.body?.cancel();
      return r.status === 201 ? true : undefined;
    },
    10_000,
  );
  return performance.now() - killed;
}

export async function clusterScenario(): Promise<void> {
  const nats = await startNats(3);
  const single = mkdtempSync(path.join(tmpdir(), 'eddydb-bench-single-'));
  try {
    const alone = await startEddy(single, ['--durability', 'always']);
    const aloneNode: Node = { proc: alone, dir: single, auth: `Bearer ${await token(alone.url)}` };
    const singleAlways = await insertLoad('single node, always', aloneNode);
    await stop(alone);

    const always = await startNode(nats, 'bench_always', 'always');
    await until('a primary', async () => ((await role(always.proc.url)) === 'primary' ? true : undefined), 15_000);
    const clusterAlways = await insertLoad('cluster primary, always', always);
    await stopNode(always);

    const primary = await startNode(nats, 'bench', 'replicated');
    await until('a primary', async () => ((await role(primary.proc.url)) === 'primary' ? true : undefined), 15_000);
    const replica = await startNode(nats, 'bench', 'replicated');
    try {
      const replicated = await insertLoad('cluster primary, replicated', primary);
      const lags = await replicaLag(primary, replica);
      const failoverMs = await failover(primary, replica);
      report({
        scenario: 'cluster',
        subject: replicated,
        reference: clusterAlways,
        ratio: replicated.throughput! / clusterAlways.throughput!,
        ratio_of: 'replicated vs always inserts/s on a cluster primary (50 connections)',
        extra: {
          single_node_always_per_s: singleAlways.throughput,
          replicated_vs_single_node: replicated.throughput! / singleAlways.throughput!,
          replica_lag_p50_ms: percentile(lags, 50),
          replica_lag_p99_ms: percentile(lags, 99),
          failover_ms: failoverMs,
          lease_ttl_ms: LEASE_TTL_MS,
        },
        notes:
          'three nats-server 2.9 processes (JetStream, 3 replicas) on this machine; replica lag: send on the primary ' +
          `to the SSE event on the replica, ${LAG_WRITES} sequential inserts; failover: kill -9 of the primary to a ` +
          'write acknowledged by the replica turned primary',
      });
    } finally {
      await stopNode(primary);
      await stopNode(replica);
    }
  } finally {
    rmSync(single, { recursive: true, force: true });
    await nats.stop();
  }
}
