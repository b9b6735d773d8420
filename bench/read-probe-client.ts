/**
 * Point reads issued while something else happens on the server (the
 * batch-insert-http scenario), run pinned to the load core: CONCURRENCY
 * keep-alive GETs of random ids (from IDS_FILE) in flight, Bearer
 * BENCH_TOKEN, until stdin closes. Then prints one JSON line:
 * {requests, p50_ms, p99_ms, max_ms, errors}. A read's latency includes any
 * time the server's event loop was held by other work, which is what the
 * scenario measures from outside.
 */
import http from 'node:http';
import { readFileSync } from 'node:fs';

const [url, concurrencyArg, idsFile] = process.argv.slice(2) as [string, string, string];
const ids = readFileSync(idsFile, 'utf8').split('\n').filter(Boolean);
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(concurrencyArg) });
const headers = { authorization: `Bearer ${process.env.BENCH_TOKEN ?? ''}` };
const latencies: number[] = [];
let errors = 0,
  running = true,
  i = 0;

function read(): Promise<void> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const req = http.get(`${url}/api/find/bench/${ids[i++ % ids.length]}`, { agent, headers }, (res) => {
      res.resume();
      res.on('end', () => {
        latencies.push(performance.now() - t0);
        if (res.statusCode !== 200) errors++;
        resolve();
      });
    });
    req.on('error', () => {
      errors++;
      resolve();
    });
  });
}

async function loop(): Promise<void> {
  while (running) await read();
}

process.stdin.resume();
process.stdin.on('end', () => {
  running = false;
});
await Promise.all(Array.from({ length: Number(concurrencyArg) }, loop));
latencies.sort((a, b) => a - b);
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
console.log(JSON.stringify({ requests: latencies.length, p50_ms: pct(50), p99_ms: pct(99), max_ms: pct(100), errors }));
agent.destroy();
