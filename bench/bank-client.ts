/**
 * The load side of the transactions-http scenario, run pinned to the load
 * core: CLIENTS concurrent clients on keep-alive connections (Bearer
 * BENCH_TOKEN), each moving 1 between two distinct random accounts of the
 * `accounts` collection in a loop until SECONDS have passed. Accounts are
 * drawn uniformly from the ids in IDS_FILE, or from its first HOT ids when
 * HOT > 0.
 *
 * Modes:
 * - `txn`: begin a Serializable transaction, read both accounts in it, write
 *   both balances (-1, +1) in it, commit. A 409 from any step (the commit's
 *   conflict check, as a rule) retries the whole transfer in a new
 *   transaction, and counts a retry.
 * - `plain`: the same two writes without a transaction, as `decrement` and
 *   `increment` actions (atomic each, so the balances still add up).
 *
 * Prints one JSON line: {transfers, retries, errors, first_error, elapsed_s,
 * p50_ms, p99_ms, step_p50_ms: {begin, read, update, commit}, load_cpu}
 * (a transfer's latency includes its retries; load_cpu is this client's CPU
 * over the run, in cores).
 */
import { readFileSync } from 'node:fs';
import { Connection, type Answer } from './lib/http-connection.js';

const [url, mode, idsFile, hotArg, secondsArg, clientsArg] = process.argv.slice(2) as [
  string,
  'txn' | 'plain',
  string,
  string,
  string,
  string,
];
const HOT = Number(hotArg),
  SECONDS = Number(secondsArg),
  CLIENTS = Number(clientsArg);
const all = readFileSync(idsFile, 'utf8').split('\n').filter(Boolean);
const ids = HOT > 0 ? all.slice(0, HOT) : all;
const auth = `Bearer ${process.env.BENCH_TOKEN ?? ''}`;

/** mulberry32, seeded per client: runs draw the same accounts (inline: this file runs transpiled, with its one import). */
function seededRandom(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function request(conn: Connection, method: string, path: string, body?: unknown): Promise<Answer> {
  return conn.request(method, path, body === undefined ? undefined : JSON.stringify(body));
}

/** A step answered something other than 200 or 409. */
class StepFailed extends Error {}
/** A step answered 409: the transfer is retried. */
class Retry extends Error {}

const steps = { begin: [] as number[], read: [] as number[], update: [] as number[], commit: [] as number[] };

async function step(
  conn: Connection,
  name: keyof typeof steps,
  method: string,
  path: string,
  body?: unknown,
): Promise<string> {
  const t0 = performance.now();
  const a = await request(conn, method, path, body);
  steps[name].push(performance.now() - t0);
  if (a.status === 409) throw new Retry(a.body);
  if (a.status < 200 || a.status > 299) throw new StepFailed(`${method} ${path}: ${a.status} ${a.body.slice(0, 300)}`);
  return a.body;
}

/** A record's balance as the JSON wire form renders it: a typed value {type, value} or a bare number. */
function balanceOf(recordJson: string): number {
  const b = (JSON.parse(recordJson) as { balance: number | { value: number } }).balance;
  return typeof b === 'number' ? b : Number(b.value);
}

async function transferInTransaction(conn: Connection, from: string, to: string): Promise<void> {
  const begun = await step(conn, 'begin', 'POST', '/api/transactions', { isolation_level: 'Serializable' });
  const tx = (JSON.parse(begun) as { transaction_id: string }).transaction_id;
  const q = `?transaction_id=${tx}`;
  try {
    const f = balanceOf(await step(conn, 'read', 'GET', `/api/find/accounts/${from}${q}`));
    const g = balanceOf(await step(conn, 'read', 'GET', `/api/find/accounts/${to}${q}`));
    await step(conn, 'update', 'PUT', `/api/update/accounts/${from}${q}`, { balance: f - 1 });
    await step(conn, 'update', 'PUT', `/api/update/accounts/${to}${q}`, { balance: g + 1 });
  } catch (err) {
    // The commit was never sent: end the transaction so it holds nothing open.
    await request(conn, 'POST', `/api/transactions/${tx}/rollback`).catch(() => undefined);
    throw err;
  }
  await step(conn, 'commit', 'POST', `/api/transactions/${tx}/commit`);
}

async function transferPlain(conn: Connection, from: string, to: string): Promise<void> {
  await step(conn, 'update', 'PUT', `/api/update/accounts/${from}/action/decrement`, { field: 'balance', value: 1 });
  await step(conn, 'update', 'PUT', `/api/update/accounts/${to}/action/increment`, { field: 'balance', value: 1 });
}

const latencies: number[] = [];
let retries = 0,
  errors = 0,
  firstError = '';
const start = performance.now();
const deadline = start + SECONDS * 1000;
const cpu0 = process.cpuUsage();
/** Each client's own connection: its requests go one at a time, as a transaction's steps do. */
const connections = Array.from({ length: CLIENTS }, () => new Connection(url, auth));

async function client(n: number): Promise<void> {
  const random = seededRandom(1000 + n);
  const conn = connections[n]!;
  const pick = () => ids[Math.floor(random() * ids.length)]!;
  while (performance.now() < deadline) {
    const from = pick();
    let to = pick();
    while (to === from) to = pick();
    const t0 = performance.now();
    for (;;) {
      try {
        await (mode === 'txn' ? transferInTransaction(conn, from, to) : transferPlain(conn, from, to));
        latencies.push(performance.now() - t0);
        break;
      } catch (err) {
        if (err instanceof Retry) {
          retries++;
          if (performance.now() < deadline) continue;
        } else {
          errors++;
          firstError ||= String(err instanceof Error ? err.message : err);
        }
        break;
      }
    }
  }
}

await Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n)));
const elapsed = (performance.now() - start) / 1000;
const cpu = process.cpuUsage(cpu0);
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : 0;
};
console.log(
  JSON.stringify({
    transfers: latencies.length,
    retries,
    errors,
    first_error: firstError,
    elapsed_s: elapsed,
    p50_ms: pct(latencies, 50),
    p99_ms: pct(latencies, 99),
    step_p50_ms: Object.fromEntries(Object.entries(steps).map(([k, v]) => [k, pct(v, 50)])),
    load_cpu: (cpu.user + cpu.system) / 1e6 / elapsed,
  }),
);
for (const conn of connections) conn.close();
