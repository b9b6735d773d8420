/**
 * ws-fanout: 1,000 WebSocket subscribers on one collection of a real server
 * (Server.create in this process, durability none), and 200 records inserted
 * over HTTP one at a time; each insert waits until every subscriber got it.
 * The reference is a bare `ws` WebSocketServer in this process answering the
 * same Subscribe and broadcasting the same MutationNotification JSON (built
 * once per insert) to the same client code. Clients and the inserter run in
 * bench/ws-clients-child.ts, pinned to LOAD_CORE.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { Server } from '../../lib/http/index.js';
import { BENCH_ADMIN_KEY, LOAD_CORE, pinned, token } from '../lib/procs.js';
import { report, type Measurement } from '../lib/report.js';

const CLIENTS = Number(process.env.BENCH_WS_CLIENTS ?? 1_000);
const N = Number(process.env.BENCH_WS_RECORDS ?? 200);
/** Inserts the clients child makes before measuring (its WARMUP). */
const WARMUP = 10;

interface ClientsResult {
  clients: number;
  n: number;
  connectMs: number;
  totalMs: number;
  throughput: number;
  p50: number;
  p99: number;
  max: number;
  ackP50: number;
  ackP99: number;
  beforeAckShare: number;
  insertRttP50: number;
  spanP50: number;
  spanP99: number;
  payloadBytes: number;
  errors: number;
  /** CPU time of this (the server's) process from `ready` to the end, per notification sent, in microseconds. */
  serverCpuUs: number;
}

function runClients(url: string, bearer?: string): Promise<ClientsResult> {
  const [cmd, argv] = pinned(LOAD_CORE, process.execPath, [
    '--import',
    'tsx',
    path.resolve('bench/ws-clients-child.ts'),
    url,
    String(CLIENTS),
    String(N),
  ]);
  const p = spawn(cmd, argv, {
    env: { ...process.env, ...(bearer ? { BENCH_TOKEN: bearer } : {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '',
    err = '';
  let cpu: NodeJS.CpuUsage | undefined;
  p.stdout.on('data', (d: Buffer) => {
    out += d;
    if (!cpu && out.includes('ready\n')) cpu = process.cpuUsage();
  });
  p.stderr.on('data', (d: Buffer) => {
    err += d;
  });
  return new Promise((resolve, reject) => {
    p.on('exit', (code) => {
      const used = process.cpuUsage(cpu);
      try {
        const r = JSON.parse(out.trim().split('\n').pop()!) as ClientsResult;
        resolve({ ...r, serverCpuUs: (used.user + used.system) / ((r.n + WARMUP) * r.clients) });
      } catch {
        reject(new Error(`ws clients failed (${code}): ${out.slice(-500)}${err.slice(-1500)}`));
      }
    });
  });
}

/** The typed wire form EddyDB sends for a flat record of strings and numbers. */
function typed(record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) {
    out[k] =
      k === 'id' ? v : { type: typeof v === 'string' ? 'String' : Number.isInteger(v) ? 'Integer' : 'Float', value: v };
  }
  return out;
}

/** Bare reference: node:http + ws, subscribers in a Set, one JSON.stringify per insert, then ws.send to each. */
async function startBareFanout(): Promise<{ url: string; close: () => Promise<void> }> {
  const subs = new Set<WebSocket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const record = JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>;
      const timestamp = new Date().toISOString().replace('Z', '+00:00');
      const frame = JSON.stringify({
        type: 'MutationNotification',
        payload: { collection: 'fan', event: 'insert', record_ids: [record.id], records: typed(record), timestamp },
      });
      for (const ws of subs) ws.send(frame);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: record.id }));
    });
  });
  const wss = new WebSocketServer({ server, path: '/api/ws' });
  wss.on('connection', (ws) => {
    ws.on('message', (data: Buffer) => {
      const m = JSON.parse(data.toString()) as { type: string; messageId?: string; payload?: { collection?: string } };
      if (m.type !== 'Subscribe') return;
      subs.add(ws);
      ws.send(
        JSON.stringify({
          type: 'Success',
          payload: { data: { subscription_id: 'sub_bare', collection: m.payload?.collection } },
          messageId: m.messageId,
        }),
      );
    });
    ws.on('close', () => subs.delete(ws));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        for (const ws of wss.clients) ws.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function measurement(label: string, r: ClientsResult): Measurement {
  return {
    label,
    throughput: r.throughput,
    p50_ms: r.p50,
    p99_ms: r.p99,
    max_ms: r.max,
    connect_ms: r.connectMs,
    fanout_span_p50_ms: r.spanP50,
    payload_bytes: r.payloadBytes,
  };
}

export async function wsFanout(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'eddydb-bench-ws-'));
  let eddy: ClientsResult;
  try {
    const server = await Server.create({
      port: 0,
      host: '127.0.0.1',
      dataDir: dir,
      adminKey: BENCH_ADMIN_KEY,
      quiet: true,
      trashPurgeCron: '',
      snapshotCron: '',
      ttlSweepMs: 0,
      settings: { durability: 'none' },
    });
    await server.listen();
    try {
      eddy = await runClients(server.url, await token(server.url));
    } finally {
      await server.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const bareServer = await startBareFanout();
  let bare: ClientsResult;
  try {
    bare = await runClients(bareServer.url);
  } finally {
    await bareServer.close();
  }
  const subject = measurement(`eddydb ${CLIENTS} subscribers`, eddy);
  const reference = measurement(`bare ws broadcast, ${CLIENTS} clients`, bare);
  report({
    scenario: 'ws-fanout',
    subject,
    reference,
    ratio: eddy.throughput / bare.throughput,
    ratio_of: 'notifications/s delivered vs bare ws broadcast',
    extra: {
      server_cpu_us_per_notification: eddy.serverCpuUs,
      bare_server_cpu_us_per_notification: bare.serverCpuUs,
      server_cpu_ratio: eddy.serverCpuUs / bare.serverCpuUs,
      fanout_span_p50_ms: eddy.spanP50,
      fanout_span_p99_ms: eddy.spanP99,
      bare_fanout_span_p50_ms: bare.spanP50,
      insert_rtt_p50_ms: eddy.insertRttP50,
      bare_insert_rtt_p50_ms: bare.insertRttP50,
      from_ack_p50_ms: eddy.ackP50,
      from_ack_p99_ms: eddy.ackP99,
      delivered_before_ack: eddy.beforeAckShare,
      payload_bytes: eddy.payloadBytes,
      bare_payload_bytes: bare.payloadBytes,
      connect_ms: eddy.connectMs,
    },
    notes:
      `${N} inserts over HTTP, one at a time, each once the previous reached all ${CLIENTS} subscribers; every ` +
      `subscriber got all ` +
      `${N} in order (checked). Latency: insert sent -> received, since ${(eddy.beforeAckShare * 100).toFixed(0)}% ` +
      `of notifications ` +
      `arrived before the insert's HTTP ack (from_ack_* are ack-relative). Server CPU counts this process from ` +
      `subscribed to done.`,
  });
}
