/**
 * batch-insert-http: one POST /api/batch/insert of 10,000 records of ~200
 * bytes (one durable unit, durability `always`), JSON and MessagePack
 * bodies, against the built server over HTTP: ms per batch (client side),
 * records/s, and the server's CPU ms per batch (/proc). Reference: the bare
 * node:http server receiving the same body (the cost of moving it through
 * HTTP), posted in the same rounds (bare, JSON, MessagePack, bare, ...).
 * The event-loop hold is measured from outside, in a separate phase: a
 * probe process pinned to the load core keeps 4 point reads in flight,
 * first with the server otherwise idle, then while batches run back to
 * back; the reads' p99 and max during the batches show how long the loop
 * was held.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pack } from 'msgpackr';
import { median } from '../lib/interleave.js';
import { processCpuMicros } from '../lib/proc-cpu.js';
import { startBare, stop, type Proc } from '../lib/procs.js';
import { PROBE_CONCURRENCY, startProbe, type ProbeResult } from '../lib/read-probe.js';
import { benchRecord } from '../lib/records.js';
import { report, type Measurement } from '../lib/report.js';
import { seed, startServer, stopEddy, type Eddy } from '../lib/seeded-eddy.js';

const N = 10_000;
const RUNS = Number(process.env.BENCH_BATCH_RUNS ?? 6);
const HOLD_RUNS = 3;
const IDLE_PROBE_MS = 2000;

interface BatchRun {
  ms: number[];
  cpuMs: number[];
}

/** Posts `body` once; client-side ms and server CPU ms go into `run`. */
async function postBatch(
  run: BatchRun,
  url: string,
  pid: number,
  headers: Record<string, string>,
  body: Buffer,
  expectIds: boolean,
): Promise<void> {
  const cpu0 = processCpuMicros(pid);
  const t0 = performance.now();
  const r = await fetch(url, { method: 'POST', headers, body });
  const text = await r.text();
  run.ms.push(performance.now() - t0);
  run.cpuMs.push((processCpuMicros(pid) - cpu0) / 1000);
  if (!r.ok) throw new Error(`batch insert: ${r.status} ${text.slice(0, 300)}`);
  if (expectIds) {
    const j = JSON.parse(text) as { successful: string[]; failed: unknown[] };
    if (j.successful.length !== N || j.failed.length)
      throw new Error(`batch insert stored ${j.successful.length} of ${N}: ${JSON.stringify(j.failed).slice(0, 300)}`);
  }
}

function asMeasurement(label: string, run: BatchRun, probe?: ProbeResult): Measurement {
  const ms = median(run.ms);
  return {
    label,
    throughput: N / (ms / 1000),
    p50_ms: ms,
    p99_ms: Math.max(...run.ms),
    server_cpu_ms_per_batch: median(run.cpuMs),
    ...(probe
      ? { reads_during_p99_ms: probe.p99_ms, reads_during_max_ms: probe.max_ms, reads_during: probe.requests }
      : {}),
  };
}

const FORMATS = ['json', 'msgpack'] as const;
const TYPES = { json: 'application/json', msgpack: 'application/msgpack' };
const newRun = (): BatchRun => ({ ms: [], cpuMs: [] });

export async function batchInsertHttp(): Promise<void> {
  const eddy: Eddy = await startServer('always');
  const tmp = mkdtempSync(path.join(tmpdir(), 'eddydb-batch-'));
  let bare: Proc | undefined;
  try {
    const ids = await seed(eddy);
    const idsFile = path.join(tmp, 'ids.txt');
    writeFileSync(idsFile, ids.join('\n'));
    const token = eddy.headers.authorization!.slice('Bearer '.length);
    const inserts = { inserts: Array.from({ length: N }, (_, i) => ({ data: benchRecord(RECORDS_OFFSET + i) })) };
    const bodies = { json: Buffer.from(JSON.stringify(inserts)), msgpack: pack(inserts) };
    const headers = (format: 'json' | 'msgpack') => ({
      authorization: eddy.headers.authorization!,
      'content-type': TYPES[format],
    });
    bare = await startBare();
    const bareHeaders = { 'content-type': 'application/json' };

    // Timing, interleaved: bare, eddy json, eddy msgpack, bare, ... (after one warm-up post each).
    const runs = { bare: newRun(), json: newRun(), msgpack: newRun() };
    await postBatch(newRun(), `${bare.url}/api/batch/insert/bench`, bare.pid, bareHeaders, bodies.json, false);
    for (const f of FORMATS)
      await postBatch(newRun(), `${eddy.url}/api/batch/insert/warm`, eddy.pid, headers(f), bodies[f], true);
    for (let i = 0; i < RUNS; i++) {
      await postBatch(runs.bare, `${bare.url}/api/batch/insert/bench`, bare.pid, bareHeaders, bodies.json, false);
      for (const f of FORMATS)
        await postBatch(runs[f], `${eddy.url}/api/batch/insert/bench_${f}`, eddy.pid, headers(f), bodies[f], true);
    }

    // Event-loop hold: reads idle, then during back-to-back batches of each format (the bare server idles meanwhile).
    const stopIdle = startProbe(eddy.url, idsFile, token);
    await new Promise((r) => setTimeout(r, IDLE_PROBE_MS));
    const idle = await stopIdle();
    const during: Record<string, ProbeResult> = {};
    for (const f of FORMATS) {
      const stopProbe = startProbe(eddy.url, idsFile, token);
      await new Promise((r) => setTimeout(r, 200));
      for (let i = 0; i < HOLD_RUNS; i++)
        await postBatch(newRun(), `${eddy.url}/api/batch/insert/hold_${f}`, eddy.pid, headers(f), bodies[f], true);
      during[f] = await stopProbe();
    }

    const reference = asMeasurement('bare node:http, same JSON body', runs.bare);
    const json = asMeasurement('eddydb batch of 10k (json)', runs.json, during.json);
    const msgpack = asMeasurement('eddydb batch of 10k (msgpack)', runs.msgpack, during.msgpack);
    report({
      scenario: 'batch-insert-http',
      subject: json,
      reference,
      ratio: json.throughput! / reference.throughput!,
      ratio_of: 'records/s vs bare node:http receiving the same body',
      target: '>= 150,000 records/s; reads keep their p99',
      rows: [
        { subject: json, reference, ratio: json.throughput! / reference.throughput!, target: '>= 150,000 records/s' },
        {
          subject: msgpack,
          reference,
          ratio: msgpack.throughput! / reference.throughput!,
          target: '>= 150,000 records/s',
        },
      ],
      extra: {
        json_records_per_s: json.throughput,
        json_ms: json.p50_ms,
        json_server_cpu_ms: json.server_cpu_ms_per_batch,
        msgpack_records_per_s: msgpack.throughput,
        msgpack_ms: msgpack.p50_ms,
        msgpack_server_cpu_ms: msgpack.server_cpu_ms_per_batch,
        body_bytes_json: bodies.json.length,
        body_bytes_msgpack: bodies.msgpack.length,
        reads_idle_p50_ms: idle.p50_ms,
        reads_idle_p99_ms: idle.p99_ms,
        reads_idle_max_ms: idle.max_ms,
        reads_during_json_p99_ms: json.reads_during_p99_ms,
        reads_during_json_max_ms: json.reads_during_max_ms,
        reads_during_msgpack_p99_ms: msgpack.reads_during_p99_ms,
        reads_during_msgpack_max_ms: msgpack.reads_during_max_ms,
        // A read that waited longest waited for the loop to be released; its idle latency is what it costs anyway.
        longest_hold_estimate_ms:
          Math.max(json.reads_during_max_ms as number, msgpack.reads_during_max_ms as number) - idle.p50_ms,
        longest_hold_target_ms: 20,
      },
      notes:
        `median of ${RUNS} interleaved batches per body format (durability always, ${ids.length} records already ` +
        `stored); ` +
        `reads: ${PROBE_CONCURRENCY} in flight from a probe on the load core, idle and during ${HOLD_RUNS} ` +
        `back-to-back batches per format; ` +
        'the longest event-loop hold is about reads_during max minus reads_idle p50',
    });
  } finally {
    if (bare) await stop(bare);
    await stopEddy(eddy);
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Batch records are numbered after the seeded ones, so they differ from them. */
const RECORDS_OFFSET = 1_000_000;
