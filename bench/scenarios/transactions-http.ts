/**
 * transactions-http: Serializable bank transfers over HTTP. One EddyDB server
 * (durability always) holds ACCOUNTS accounts of balance 100; a client process
 * pinned to the load core (bench/bank-client.ts) runs CLIENTS concurrent
 * clients on keep-alive connections, each moving 1 between two random
 * accounts in a loop: begin a Serializable transaction, read both accounts,
 * write both balances, commit, and on a 409 retry the whole transfer.
 *
 * Runs, BENCH_SECONDS each, each after WARMUP_SECONDS of the same transfers
 * not counted (the server's compiler warms to the path, as in a server that
 * has been running): the reference (the same two writes without a
 * transaction, as decrement/increment actions, from the same client),
 * Serializable over all accounts, and Serializable over HOT_ACCOUNTS hot
 * accounts. Each reports transfers/s, the retry rate (retries / attempts),
 * p50/p99 per transfer (retries included), the server's CPU per transfer
 * from /proc, and the log's fsyncs and groups per second from the server's
 * metrics (do commits share group commits?). PostgreSQL 15's figures on the
 * same workload are the stated targets. At the end the balances must still
 * add up to ACCOUNTS x 100: serializability held.
 *
 * Unless BENCH_PROFILE=0, a separate run under `node --cpu-prof` gives the
 * µs table per transfer (Serializable, all accounts); BENCH_KEEP_PROFILE=file
 * keeps that profile there, to read by function.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { printUsTable, usTable, type UsTable } from '../lib/cpu-profile.js';
import { keepProfile } from '../lib/profile-run.js';
import { processCpuMicros } from '../lib/proc-cpu.js';
import { compiled, LOAD_CORE, pinned } from '../lib/procs.js';
import { report, type Measurement } from '../lib/report.js';
import { startServer, stopEddy, type Eddy } from '../lib/seeded-eddy.js';

export const ACCOUNTS = 10_000;
export const HOT_ACCOUNTS = 10;
const BALANCE = 100;
const CLIENTS = 16;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** Transfers run before a measured run and not counted: a cold server's first seconds run code not yet optimized. */
const WARMUP_SECONDS = 2;
const PROFILE = process.env.BENCH_PROFILE !== '0';
/** PostgreSQL 15 on this machine kind, the same workload at Serializable (transfers/s). */
const POSTGRES_UNIFORM = 2_700;
const POSTGRES_HOT = 556;

interface ClientResult {
  transfers: number;
  retries: number;
  errors: number;
  first_error: string;
  elapsed_s: number;
  p50_ms: number;
  p99_ms: number;
  step_p50_ms: Record<string, number>;
  load_cpu: number;
}

/** Runs bench/bank-client.ts on the load core until it prints its figures. */
function runClient(
  e: Eddy,
  mode: 'txn' | 'plain',
  idsFile: string,
  hot: number,
  seconds = SECONDS,
): Promise<ClientResult> {
  compiled('bench/lib/http-connection.ts');
  const [cmd, argv] = pinned(LOAD_CORE, process.execPath, [
    compiled('bench/bank-client.ts'),
    e.url,
    mode,
    idsFile,
    String(hot),
    String(seconds),
    String(CLIENTS),
  ]);
  const token = e.headers.authorization!.slice('Bearer '.length);
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, BENCH_TOKEN: token } });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (out += d));
    p.on('exit', () => {
      let r: ClientResult;
      try {
        r = JSON.parse(out.trim().split('\n').pop()!) as ClientResult;
      } catch {
        return reject(new Error(`bank client output unreadable: ${out.slice(0, 800)}`));
      }
      if (r.errors) reject(new Error(`bank client: ${r.errors} failed transfers, first: ${r.first_error}`));
      else resolve(r);
    });
  });
}

/** The log's counters from the server's Prometheus metrics. */
interface LogCounters {
  fsyncs: number;
  groups: number;
  writes: number;
}

async function logCounters(e: Eddy): Promise<LogCounters> {
  const r = await fetch(`${e.url}/metrics`, { headers: { authorization: e.headers.authorization! } });
  const text = await r.text();
  if (!r.ok) throw new Error(`GET /metrics: ${r.status} ${text.slice(0, 300)}`);
  const value = (name: string) => {
    const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'm').exec(text);
    if (!m) throw new Error(`GET /metrics has no ${name}`);
    return Number(m[1]);
  };
  return {
    fsyncs: value('eddydb_log_fsync_seconds_count'),
    groups: value('eddydb_write_group_writes_count'),
    writes: value('eddydb_write_group_writes_sum'),
  };
}

async function loadAccounts(e: Eddy): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < ACCOUNTS; i += 1000) {
    const inserts = Array.from({ length: 1000 }, () => ({ data: { balance: BALANCE } }));
    const r = await fetch(`${e.url}/api/batch/insert/accounts`, {
      method: 'POST',
      headers: e.headers,
      body: JSON.stringify({ inserts }),
    });
    const body = (await r.json()) as { successful?: string[] };
    if (!r.ok || body.successful?.length !== 1000)
      throw new Error(`loading accounts failed: ${r.status} ${JSON.stringify(body).slice(0, 300)}`);
    ids.push(...body.successful);
  }
  return ids;
}

/** The sum of every balance (the JSON wire form renders an integer as {type, value}). */
async function totalBalance(e: Eddy): Promise<number> {
  const r = await fetch(`${e.url}/api/find/accounts`, {
    method: 'POST',
    headers: e.headers,
    body: JSON.stringify({ limit: ACCOUNTS * 2 }),
  });
  const rows = (await r.json()) as Array<{ balance: number | { value: number } }>;
  if (!r.ok || rows.length !== ACCOUNTS)
    throw new Error(`reading the accounts back: ${r.status}, ${Array.isArray(rows) ? rows.length : 'no'} records`);
  return rows.reduce(
    (sum, row) => sum + (typeof row.balance === 'number' ? row.balance : Number(row.balance.value)),
    0,
  );
}

interface Run extends Measurement {
  throughput: number;
  cpu_us_per_op: number;
  retries: number;
  retry_rate: number;
  fsyncs_per_s: number;
  groups_per_s: number;
  writes_per_group: number;
  step_p50_ms: Record<string, number>;
  load_cpu: number;
}

/** One measured run: the client's figures with the server's CPU and log counters over the same window. */
async function measure(e: Eddy, label: string, mode: 'txn' | 'plain', idsFile: string, hot: number): Promise<Run> {
  await runClient(e, mode, idsFile, hot, WARMUP_SECONDS);
  const log0 = await logCounters(e);
  const cpu0 = processCpuMicros(e.pid);
  const r = await runClient(e, mode, idsFile, hot);
  const cpuUs = processCpuMicros(e.pid) - cpu0;
  const log1 = await logCounters(e);
  const groups = log1.groups - log0.groups;
  return {
    label,
    throughput: r.transfers / r.elapsed_s,
    p50_ms: r.p50_ms,
    p99_ms: r.p99_ms,
    cpu_us_per_op: cpuUs / Math.max(1, r.transfers),
    retries: r.retries,
    retry_rate: r.retries / Math.max(1, r.transfers + r.retries),
    fsyncs_per_s: (log1.fsyncs - log0.fsyncs) / r.elapsed_s,
    groups_per_s: groups / r.elapsed_s,
    writes_per_group: (log1.writes - log0.writes) / Math.max(1, groups),
    step_p50_ms: r.step_p50_ms,
    load_cpu: r.load_cpu,
  };
}

/** A fresh server with the accounts loaded, and the file of their ids for the client. */
async function startBank(nodeArgs: string[] = []): Promise<{ eddy: Eddy; idsFile: string }> {
  const eddy = await startServer('always', nodeArgs);
  const ids = await loadAccounts(eddy);
  const idsFile = path.join(eddy.dir, 'account-ids.txt');
  writeFileSync(idsFile, ids.join('\n') + '\n');
  return { eddy, idsFile };
}

/** The µs table per transfer from a separate server run under --cpu-prof (Serializable, all accounts). */
async function profileTransfers(): Promise<UsTable> {
  const profDir = mkdtempSync(path.join(tmpdir(), 'eddydb-prof-'));
  let bank: { eddy: Eddy; idsFile: string } | undefined;
  try {
    bank = await startBank(['--cpu-prof', '--cpu-prof-dir', profDir]);
    await runClient(bank.eddy, 'txn', bank.idsFile, 0, WARMUP_SECONDS);
    const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);
    const cpu0 = processCpuMicros(bank.eddy.pid);
    const from = monotonicUs();
    const r = await runClient(bank.eddy, 'txn', bank.idsFile, 0);
    const to = monotonicUs();
    const cpuUs = processCpuMicros(bank.eddy.pid) - cpu0;
    await stopEddy(bank.eddy);
    if (bank.eddy.proc.exitCode !== 0) throw new Error(`profiled server exited with ${bank.eddy.proc.exitCode}`);
    bank = undefined;
    const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) throw new Error('the server exited without writing its --cpu-prof profile');
    const table = usTable(path.join(profDir, file), from, to, r.transfers);
    keepProfile(path.join(profDir, file));
    return { ...table, proc_cpu_us_per_request: cpuUs / Math.max(1, r.transfers) };
  } finally {
    if (bank) await stopEddy(bank.eddy);
    rmSync(profDir, { recursive: true, force: true });
  }
}

export async function transactionsHttp(): Promise<void> {
  let bank: { eddy: Eddy; idsFile: string } | undefined = await startBank();
  try {
    const { eddy, idsFile } = bank;
    const plain = await measure(eddy, 'two writes, no transaction', 'plain', idsFile, 0);
    const uniform = await measure(eddy, `Serializable, ${ACCOUNTS} accounts`, 'txn', idsFile, 0);
    const hot = await measure(eddy, `Serializable, ${HOT_ACCOUNTS} hot accounts`, 'txn', idsFile, HOT_ACCOUNTS);
    const total = await totalBalance(eddy);
    if (total !== ACCOUNTS * BALANCE)
      throw new Error(`the balances add up to ${total}, not ${ACCOUNTS * BALANCE}: a transfer was lost or doubled`);
    await stopEddy(eddy);
    bank = undefined;
    const us = PROFILE ? await profileTransfers() : undefined;
    if (us) printUsTable('Serializable transfer, all accounts', us);
    const postgres = (n: number, what: string): Measurement => ({
      label: `PostgreSQL 15 ${what} (stated)`,
      throughput: n,
    });
    const extra: Record<string, unknown> = { sum_of_balances: total };
    for (const [name, r] of [
      ['plain', plain],
      ['uniform', uniform],
      ['hot', hot],
    ] as const) {
      extra[`${name}: transfers/s`] = r.throughput;
      extra[`${name}: retry rate`] = r.retry_rate;
      extra[`${name}: server CPU µs/transfer`] = r.cpu_us_per_op;
      extra[`${name}: server CPU (cores)`] = (r.cpu_us_per_op * r.throughput) / 1e6;
      extra[`${name}: fsyncs/s`] = r.fsyncs_per_s;
      extra[`${name}: writes per group`] = r.writes_per_group;
      extra[`${name}: step p50 ms`] = Object.entries(r.step_p50_ms)
        .filter(([, v]) => v > 0)
        .map(([k, v]) => `${k} ${v.toFixed(2)}`)
        .join(', ');
    }
    extra.us_table = us;
    report({
      scenario: 'transactions-http',
      subject: uniform,
      reference: plain,
      ratio: uniform.throughput / plain.throughput,
      ratio_of: 'Serializable transfers/s vs the same two writes without a transaction',
      rows: [
        { subject: uniform, reference: plain, ratio: uniform.throughput / plain.throughput },
        {
          subject: uniform,
          reference: postgres(POSTGRES_UNIFORM, `${ACCOUNTS} accounts`),
          ratio: uniform.throughput / POSTGRES_UNIFORM,
          target: '>= 1.0',
        },
        {
          subject: hot,
          reference: postgres(POSTGRES_HOT, `${HOT_ACCOUNTS} hot accounts`),
          ratio: hot.throughput / POSTGRES_HOT,
          target: '>= 1.0',
        },
      ],
      extra,
      notes:
        `${CLIENTS} clients on keep-alive connections (one client process on the load core), ${SECONDS} s per ` +
        `run after ${WARMUP_SECONDS} s of the same transfers not counted, durability always; a transfer = begin Serializable, read both accounts, write both, commit, the ` +
        `whole retried on a 409 (retry rate = retries / attempts; p50/p99 per transfer, retries included); the ` +
        `reference does the two writes as decrement/increment actions without a transaction; PostgreSQL 15 ` +
        `figures are the stated targets, not measured here`,
    });
  } finally {
    if (bank) await stopEddy(bank.eddy);
  }
}
