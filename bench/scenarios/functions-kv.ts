/**
 * functions-edge-cache: the hit path of an edge cache built as a stored
 * function (one KvGet of `cache:product:{{id}}`, protocol.md 2.16), called
 * over HTTP with `POST /api/functions/edge`, against the plain
 * `GET /api/kv/get/{key}` of the same cached value on the same server in
 * the same run. Both are measured twice, alternating, and the better of each
 * is reported (the machine is shared). The ratio is what calling a function
 * costs over the route it wraps: parameter binding, the interpreter, stage
 * statistics and the `{records, stats}` envelope.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { load } from '../lib/load.js';
import { startEddy, stop, token } from '../lib/procs.js';
import { report, type Measurement } from '../lib/report.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const PRODUCT = { name: 'Desk lamp', price: 39.9, tags: ['home', 'light'], stock: { warehouse: 'north', units: 120 } };

const EDGE = {
  label: 'edge',
  name: 'edge cache (hit path)',
  parameters: { id: { required: true } },
  functions: [{ type: 'KvGet', key: 'cache:product:{{id}}' }],
};

async function send(url: string, method: string, headers: Record<string, string>, body?: unknown): Promise<unknown> {
  const r = await fetch(url, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const parsed = await r.json();
  if (!r.ok) throw new Error(`${method} ${url}: ${r.status} ${JSON.stringify(parsed)}`);
  return parsed;
}

const better = (a: Measurement, b: Measurement) => ((a.throughput ?? 0) >= (b.throughput ?? 0) ? a : b);

export async function functionsEdgeCache(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'eddydb-bench-'));
  const eddy = await startEddy(dir);
  try {
    const headers = { authorization: `Bearer ${await token(eddy.url)}`, 'content-type': 'application/json' };
    await send(`${eddy.url}/api/kv/set/cache:product:7`, 'POST', headers, { value: PRODUCT, ttl: 3600 });
    await send(`${eddy.url}/api/functions`, 'POST', headers, EDGE);
    // The function answers the cached value, the route the same value: both measure a hit.
    const viaFunction = (await send(`${eddy.url}/api/functions/edge`, 'POST', headers, { id: 7 })) as {
      records: Array<{ value: unknown }>;
    };
    const viaRoute = (await send(`${eddy.url}/api/kv/get/cache:product:7`, 'GET', headers)) as { value: unknown };
    if (JSON.stringify(viaFunction.records[0]?.value) !== JSON.stringify(viaRoute.value))
      throw new Error('the function and the route answer different values');

    const fn = () =>
      load('KvGet function call (hit)', {
        url: `${eddy.url}/api/functions/edge`,
        method: 'POST',
        body: JSON.stringify({ id: 7 }),
        headers,
        seconds: SECONDS,
      });
    const get = () =>
      load('GET /api/kv/get (same key)', { url: `${eddy.url}/api/kv/get/cache:product:7`, headers, seconds: SECONDS });
    let reference: Measurement = await get();
    let subject: Measurement = await fn();
    reference = better(reference, await get());
    subject = better(subject, await fn());
    if (subject.non2xx || reference.non2xx)
      throw new Error(`non-2xx answers: function ${subject.non2xx}, route ${reference.non2xx}`);
    report({
      scenario: 'functions-edge-cache',
      subject,
      reference,
      ratio: subject.throughput! / reference.throughput!,
      ratio_of: 'calls/s of a KvGet-hit function vs GET /api/kv/get, same server and run',
      target: '>= 0.50',
      notes: `50 keep-alive connections, best of 2 alternating ${SECONDS} s runs each.`,
    });
  } finally {
    await stop(eddy);
    rmSync(dir, { recursive: true, force: true });
  }
}
