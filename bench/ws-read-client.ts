/**
 * The load side of the ws-read scenario, run pinned to LOAD_CORE (the
 * WebSocket counterpart of wrk): opens CONNECTIONS WebSockets to
 * `<url>/api/ws` (Bearer BENCH_TOKEN when set), keeps one FindById request in
 * flight on each (random ids from the file IDS_FILE, seeded), and for
 * SECONDS seconds counts answers and their latency. Every answer must be a
 * Success echoing its messageId, or it counts as an error. Prints one JSON
 * line: {requests, duration_us, p50_us, p99_us, max_us, errors, load_cpu}
 * (load_cpu: this client's CPU over the run, in cores).
 */
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';

const [url, connectionsArg, secondsArg, idsFile] = process.argv.slice(2) as [string, string, string, string];
const CONNECTIONS = Number(connectionsArg),
  SECONDS = Number(secondsArg);
const ids = readFileSync(idsFile, 'utf8').split('\n').filter(Boolean);
const token = process.env.BENCH_TOKEN;
/** mulberry32, seeded: every run asks for the same ids (kept inline: this file runs transpiled, alone). */
let seed = 12345;
const random = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const latencies: number[] = [];
let errors = 0,
  running = true,
  firstError = '';

function open(): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url.replace(/^http/, 'ws') + '/api/ws', {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      perMessageDeflate: false,
    });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

function drive(ws: WebSocket, c: number): Promise<void> {
  let n = 0,
    sentAt = 0,
    expected = '';
  return new Promise((resolve) => {
    const send = () => {
      if (!running) {
        ws.close();
        return resolve();
      }
      expected = `${c}-${n++}`;
      sentAt = performance.now();
      ws.send(
        JSON.stringify({
          type: 'FindById',
          messageId: expected,
          payload: { collection: 'bench', id: ids[Math.floor(random() * ids.length)] },
        }),
      );
    };
    ws.on('message', (data) => {
      latencies.push(performance.now() - sentAt);
      const m = JSON.parse(data.toString()) as { type: string; messageId?: string };
      if (m.type !== 'Success' || m.messageId !== expected) {
        errors++;
        firstError ||= data.toString().slice(0, 200);
      }
      send();
    });
    send();
  });
}

const sockets = await Promise.all(Array.from({ length: CONNECTIONS }, open));
const t0 = performance.now();
const cpu0 = process.cpuUsage();
setTimeout(() => {
  running = false;
}, SECONDS * 1000);
await Promise.all(sockets.map(drive));
const durationUs = (performance.now() - t0) * 1000;
const cpu = process.cpuUsage(cpu0);
latencies.sort((a, b) => a - b);
const pct = (p: number) =>
  Math.round((latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0) * 1000);
console.log(
  JSON.stringify({
    requests: latencies.length,
    duration_us: Math.round(durationUs),
    p50_us: pct(50),
    p99_us: pct(99),
    max_us: pct(100),
    errors,
    first_error: firstError,
    load_cpu: (cpu.user + cpu.system) / durationUs,
  }),
);
