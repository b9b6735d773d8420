/**
 * The subscriber side of the ws-fanout scenario, run pinned to LOAD_CORE:
 * connects `clients` WebSockets to `<url>/api/ws` (Bearer BENCH_TOKEN when
 * set), subscribes each to collection `fan`, then inserts `n` records over
 * HTTP one at a time, each after the previous one reached every subscriber.
 * Latency runs from sending the insert to each subscriber's receipt. Checks
 * that every subscriber got every record, in order. Prints `ready` once
 * subscribed, then one JSON line.
 */
import WebSocket from 'ws';

const [url, clientsArg, nArg] = process.argv.slice(2) as [string, string, string];
const CLIENTS = Number(clientsArg),
  N = Number(nArg),
  WARMUP = 10,
  WAVE = 100,
  TIMEOUT_MS = 30_000;
const token = process.env.BENCH_TOKEN;
const auth: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
const ids = [
  ...Array.from({ length: WARMUP }, (_, i) => `warm${i}`),
  ...Array.from({ length: N }, (_, i) => `r${String(i).padStart(4, '0')}`),
];
const slot = new Map(ids.map((id, i) => [id, i]));

const sentAt = new Float64Array(ids.length);
const ackAt = new Float64Array(ids.length);
const recvAt = new Float64Array(ids.length * CLIENTS);
const delivered = new Uint32Array(ids.length);
const got: string[][] = Array.from({ length: CLIENTS }, () => []);
let waiter: { i: number; resolve: () => void } | undefined;
let payloadBytes = 0;
const errors: string[] = [];

function onNotification(client: number, text: string): void {
  const t = performance.now();
  const m = JSON.parse(text) as { type: string; payload?: { record_ids?: string[] }; message?: string };
  if (m.type !== 'MutationNotification') {
    errors.push(`${m.type}: ${m.message ?? text.slice(0, 200)}`);
    return;
  }
  const id = m.payload!.record_ids![0]!;
  const i = slot.get(id);
  got[client]!.push(id);
  if (i === undefined) return;
  payloadBytes ||= Buffer.byteLength(text);
  recvAt[i * CLIENTS + client] = t;
  if (++delivered[i] === CLIENTS && waiter?.i === i) waiter.resolve();
}

function connect(client: number): Promise<WebSocket> {
  const ws = new WebSocket(url.replace(/^http/, 'ws') + '/api/ws', { headers: auth, perMessageDeflate: false });
  return new Promise((resolve, reject) => {
    ws.once('error', reject);
    ws.once('open', () => {
      ws.once('message', (data: Buffer) => {
        const m = JSON.parse(data.toString()) as { type: string; messageId?: string };
        if (m.type !== 'Success' || m.messageId !== 'sub')
          return reject(new Error(`Subscribe answered ${data.toString().slice(0, 200)}`));
        ws.on('message', (d: Buffer) => onNotification(client, d.toString()));
        resolve(ws);
      });
      ws.send(JSON.stringify({ type: 'Subscribe', messageId: 'sub', payload: { collection: 'fan' } }));
    });
  });
}

async function insert(i: number): Promise<void> {
  const all = new Promise<void>((resolve, reject) => {
    waiter = { i, resolve };
    setTimeout(
      () =>
        reject(
          new Error(
            `${ids[i]} reached ${delivered[i]} of ${CLIENTS} subscribers in ${TIMEOUT_MS} ms; ` +
              `${errors.slice(0, 3).join('; ')}`,
          ),
        ),
      TIMEOUT_MS,
    ).unref();
  });
  sentAt[i] = performance.now();
  const r = await fetch(url + '/api/insert/fan', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...auth },
    body: JSON.stringify({ id: ids[i], seq: i, name: `user ${i}`, city: 'Oslo', score: i * 1.5 }),
  });
  ackAt[i] = performance.now();
  if (!r.ok) throw new Error(`insert ${ids[i]} failed: ${r.status} ${await r.text()}`);
  await r.arrayBuffer();
  await all;
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

let t0 = performance.now();
const sockets: WebSocket[] = [];
for (let c = 0; c < CLIENTS; c += WAVE) {
  sockets.push(...(await Promise.all(Array.from({ length: Math.min(WAVE, CLIENTS - c) }, (_, k) => connect(c + k)))));
}
const connectMs = performance.now() - t0;
console.log('ready'); // the parent starts its server CPU count here
for (let i = 0; i < WARMUP; i++) await insert(i);
t0 = performance.now();
for (let i = WARMUP; i < ids.length; i++) await insert(i);
const totalMs = performance.now() - t0;

for (let c = 0; c < CLIENTS; c++) {
  if (got[c]!.length !== ids.length || got[c]!.some((id, k) => id !== ids[k])) {
    throw new Error(
      `subscriber ${c} got ${got[c]!.length} of ${ids.length} notifications, or out of order: ` +
        `${got[c]!.slice(0, 5).join(',')}...`,
    );
  }
}
const fromSend: number[] = [],
  fromAck: number[] = [],
  insertRtt: number[] = [],
  span: number[] = [];
let beforeAck = 0;
for (let i = WARMUP; i < ids.length; i++) {
  let first = Infinity,
    last = 0;
  for (let c = 0; c < CLIENTS; c++) {
    const t = recvAt[i * CLIENTS + c]!;
    fromSend.push(t - sentAt[i]!);
    fromAck.push(t - ackAt[i]!);
    if (t < ackAt[i]!) beforeAck++;
    first = Math.min(first, t);
    last = Math.max(last, t);
  }
  insertRtt.push(ackAt[i]! - sentAt[i]!);
  span.push(last - first);
}
for (const a of [fromSend, fromAck, insertRtt, span]) a.sort((x, y) => x - y);
for (const ws of sockets) ws.close();
console.log(
  JSON.stringify({
    clients: CLIENTS,
    n: N,
    connectMs,
    totalMs,
    throughput: (CLIENTS * N) / (totalMs / 1000),
    p50: pct(fromSend, 50),
    p99: pct(fromSend, 99),
    max: fromSend.at(-1),
    ackP50: pct(fromAck, 50),
    ackP99: pct(fromAck, 99),
    beforeAckShare: beforeAck / fromSend.length,
    insertRttP50: pct(insertRtt, 50),
    spanP50: pct(span, 50),
    spanP99: pct(span, 99),
    payloadBytes,
    errors: errors.length,
  }),
);
setTimeout(() => process.exit(0), 200);
