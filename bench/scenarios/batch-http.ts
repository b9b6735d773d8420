/**
 * batch-insert-http: one POST /api/batch/insert of 10,000 records of ~200
 * bytes (one durable unit, durability `always`), JSON and MessagePack
 * bodies, against the built server over HTTP: ms per batch (client side),
 * records/s, and the server's CPU ms per batch (/proc). Reference: the
 * batch floor (bench/batch-floor-server.ts: parse, an id and a MessagePack
 * log line per record, one write, one fdatasync, the same answer) taking
 * the same body, posted in the same rounds (bare, then floor and EddyDB per
 * format, ...); the ratio is the median over rounds of floor ms / EddyDB
 * ms. Bare node:http receiving the JSON body (the cost of moving it
 * through HTTP) is measured beside them. With BENCH_PROFILE (the default),
 * --cpu-prof runs of EddyDB and of the floor give the µs table of one
 * batch for each, in each body format.
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
import { printUsTable, type UsTable } from '../lib/cpu-profile.js';
import { median } from '../lib/interleave.js';
import { processCpuMicros } from '../lib/proc-cpu.js';
import { profiledDrive } from '../lib/profile-run.js';
import { startBare, startBatchFloor, stop, type Proc } from '../lib/procs.js';
import { PROBE_CONCURRENCY, startProbe, type ProbeResult } from '../lib/read-probe.js';
import { benchRecord } from '../lib/records.js';
import { report, type Measurement } from '../lib/report.js';
import { seed, startServer, stopEddy, type Eddy } from '../lib/seeded-eddy.js';

const N = 10_000;
const RUNS = Number(process.env.BENCH_BATCH_RUNS ?? 6);
const HOLD_RUNS = 3;
const IDLE_PROBE_MS = 2000;
const PROFILE = process.env.BENCH_PROFILE !== '0';
/** Batches per profiled run (after WARM_RUNS not profiled). */
const PROFILE_RUNS = 10;
const WARM_RUNS = 3;

interface BatchRun {
  ms: number[];
  cpuMs: number[];
}

/** Where a batch goes and how: the server, its headers, and whether it answers EddyDB's batch answer. */
interface Target {
  url: string;
  pid: number;
  headers: Record<string, string>;
  checked: boolean;
}

/** Posts `body` once; client-side ms and server CPU ms go into `run`. */
async function postBatch(run: BatchRun, t: Target, collection: string, body: Buffer): Promise<void> {
  const cpu0 = processCpuMicros(t.pid);
  const t0 = performance.now();
  const r = await fetch(`${t.url}/api/batch/insert/${collection}`, { method: 'POST', headers: t.headers, body });
  const text = await r.text();
  run.ms.push(performance.now() - t0);
  run.cpuMs.push((processCpuMicros(t.pid) - cpu0) / 1000);
  if (!r.ok) throw new Error(`batch insert: ${r.status} ${text.slice(0, 300)}`);
  if (t.checked) {
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

/** The median over rounds of reference ms / subject ms (records/s, subject over reference). */
const roundRatio = (subject: BatchRun, reference: BatchRun) =>
  median(subject.ms.map((ms, round) => reference.ms[round]! / ms));

const FORMATS = ['json', 'msgpack'] as const;
type Format = (typeof FORMATS)[number];
const TYPES = { json: 'application/json', msgpack: 'application/msgpack' };
const newRun = (): BatchRun => ({ ms: [], cpuMs: [] });

export function batchBodies(): Record<Format, Buffer> {
  const inserts = { inserts: Array.from({ length: N }, (_, i) => ({ data: benchRecord(RECORDS_OFFSET + i) })) };
  return { json: Buffer.from(JSON.stringify(inserts)), msgpack: pack(inserts) };
}

/** The µs table of one batch of `format` on a server `start` starts (profiled), after a few not profiled. */
async function profileBatches(
  title: string,
  start: (nodeArgs: string[]) => Promise<Proc>,
  headers: (server: Proc) => Promise<Record<string, string>>,
  checked: boolean,
  body: Buffer,
): Promise<UsTable> {
  const table = await profiledDrive(start, async (server) => {
    const target: Target = { url: server.url, pid: server.pid, headers: await headers(server), checked };
    for (let i = 0; i < WARM_RUNS; i++) await postBatch(newRun(), target, 'warm', body);
    return async () => {
      for (let i = 0; i < PROFILE_RUNS; i++) await postBatch(newRun(), target, 'bench', body);
      return PROFILE_RUNS;
    };
  });
  printUsTable(title, table);
  return table;
}

/** µs tables of one batch of `format` into EddyDB and into the floor, each in a server of its own. */
export async function batchProfiles(
  format: (typeof FORMATS)[number],
  body: Buffer,
): Promise<{ eddydb: UsTable; floor: UsTable }> {
  let eddy: Eddy | undefined;
  const floorDir = mkdtempSync(path.join(tmpdir(), 'eddydb-batch-floor-prof-'));
  try {
    const eddydb = await profileBatches(
      `eddydb batch of 10k (${format}), per batch`,
      async (nodeArgs) => (eddy = await startServer('always', nodeArgs)),
      async () => ({ authorization: eddy!.headers.authorization!, 'content-type': TYPES[format] }),
      true,
      body,
    );
    const floor = await profileBatches(
      `batch floor (${format}), per batch`,
      (nodeArgs) => startBatchFloor(path.join(floorDir, 'batches.log'), nodeArgs),
      async () => ({ 'content-type': TYPES[format] }),
      true,
      body,
    );
    return { eddydb, floor };
  } finally {
    if (eddy) rmSync(eddy.dir, { recursive: true, force: true });
    rmSync(floorDir, { recursive: true, force: true });
  }
}

export async function batchInsertHttp(): Promise<void> {
  const eddy: Eddy = await startServer('always');
  const tmp = mkdtempSync(path.join(tmpdir(), 'eddydb-batch-'));
  let bare: Proc | undefined;
  let floor: Proc | undefined;
  try {
    const ids = await seed(eddy);
    const idsFile = path.join(tmp, 'ids.txt');
    writeFileSync(idsFile, ids.join('\n'));
    const token = eddy.headers.authorization!.slice('Bearer '.length);
    const bodies = batchBodies();
    bare = await startBare();
    floor = await startBatchFloor(path.join(tmp, 'batches.log'));
    const eddyAt = (f: Format): Target => ({
      url: eddy.url,
      pid: eddy.pid,
      headers: { authorization: eddy.headers.authorization!, 'content-type': TYPES[f] },
      checked: true,
    });
    const floorAt = (f: Format): Target => ({
      url: floor!.url,
      pid: floor!.pid,
      headers: { 'content-type': TYPES[f] },
      checked: true,
    });
    const bareAt: Target = { url: bare.url, pid: bare.pid, headers: { 'content-type': TYPES.json }, checked: false };

    // Timing, interleaved: bare, floor json, eddy json, floor msgpack, eddy msgpack, bare, ... (after warm-ups).
    const runs = {
      bare: newRun(),
      floor: { json: newRun(), msgpack: newRun() },
      eddy: { json: newRun(), msgpack: newRun() },
    };
    for (let i = 0; i < WARM_RUNS; i++) {
      await postBatch(newRun(), bareAt, 'bench', bodies.json);
      for (const f of FORMATS) {
        await postBatch(newRun(), floorAt(f), 'warm', bodies[f]);
        await postBatch(newRun(), eddyAt(f), 'warm', bodies[f]);
      }
    }
    for (let i = 0; i < RUNS; i++) {
      await postBatch(runs.bare, bareAt, 'bench', bodies.json);
      for (const f of FORMATS) {
        await postBatch(runs.floor[f], floorAt(f), 'bench', bodies[f]);
        await postBatch(runs.eddy[f], eddyAt(f), `bench_${f}`, bodies[f]);
      }
    }

    // Event-loop hold: reads idle, then during back-to-back batches of each format (the others idle meanwhile).
    const stopIdle = startProbe(eddy.url, idsFile, token);
    await new Promise((r) => setTimeout(r, IDLE_PROBE_MS));
    const idle = await stopIdle();
    const during: Record<string, ProbeResult> = {};
    for (const f of FORMATS) {
      const stopProbe = startProbe(eddy.url, idsFile, token);
      await new Promise((r) => setTimeout(r, 200));
      for (let i = 0; i < HOLD_RUNS; i++) await postBatch(newRun(), eddyAt(f), `hold_${f}`, bodies[f]);
      during[f] = await stopProbe();
    }
    await stop(bare);
    bare = undefined;
    await stop(floor);
    floor = undefined;
    await stopEddy(eddy);
    const us = PROFILE ? await batchProfiles('json', bodies.json) : undefined;
    const usMsgpack = PROFILE ? await batchProfiles('msgpack', bodies.msgpack) : undefined;

    const bareRef = asMeasurement('bare node:http, same JSON body', runs.bare);
    const floorRef = {
      json: asMeasurement('batch floor, same JSON body', runs.floor.json),
      msgpack: asMeasurement('batch floor, same MessagePack body', runs.floor.msgpack),
    };
    const json = asMeasurement('eddydb batch of 10k (json)', runs.eddy.json, during.json);
    const msgpack = asMeasurement('eddydb batch of 10k (msgpack)', runs.eddy.msgpack, during.msgpack);
    const ratio = {
      json: roundRatio(runs.eddy.json, runs.floor.json),
      msgpack: roundRatio(runs.eddy.msgpack, runs.floor.msgpack),
    };
    console.log('\n  batch of 10k     ms p50   server CPU ms   vs floor (records/s)');
    for (const [name, m, r] of [
      ['bare (json)', bareRef, undefined],
      ['floor (json)', floorRef.json, undefined],
      ['eddydb (json)', json, ratio.json],
      ['floor (msgpack)', floorRef.msgpack, undefined],
      ['eddydb (msgpack)', msgpack, ratio.msgpack],
    ] as const)
      console.log(
        `  ${name.padEnd(16)} ${m.p50_ms!.toFixed(1).padStart(7)} ` +
          `${(m.server_cpu_ms_per_batch as number).toFixed(1).padStart(15)}   ${r === undefined ? '' : r.toFixed(3)}`,
      );
    report({
      scenario: 'batch-insert-http',
      subject: json,
      reference: floorRef.json,
      ratio: ratio.json,
      ratio_of: `records/s vs the batch floor taking the same body (median of ${RUNS} interleaved rounds)`,
      target: '>= 0.80 for both formats; reads keep their p99',
      rows: [
        { subject: json, reference: floorRef.json, ratio: ratio.json, target: '>= 0.80' },
        { subject: msgpack, reference: floorRef.msgpack, ratio: ratio.msgpack, target: '>= 0.80' },
        { subject: json, reference: bareRef, ratio: roundRatio(runs.eddy.json, runs.bare) },
      ],
      extra: {
        msgpack_vs_floor: ratio.msgpack,
        json_vs_bare: roundRatio(runs.eddy.json, runs.bare),
        json_records_per_s: json.throughput,
        json_ms: json.p50_ms,
        json_server_cpu_ms: json.server_cpu_ms_per_batch,
        msgpack_records_per_s: msgpack.throughput,
        msgpack_ms: msgpack.p50_ms,
        msgpack_server_cpu_ms: msgpack.server_cpu_ms_per_batch,
        floor_json_ms: floorRef.json.p50_ms,
        floor_json_server_cpu_ms: floorRef.json.server_cpu_ms_per_batch,
        floor_msgpack_ms: floorRef.msgpack.p50_ms,
        floor_msgpack_server_cpu_ms: floorRef.msgpack.server_cpu_ms_per_batch,
        bare_json_ms: bareRef.p50_ms,
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
        us_table_eddydb_json: us?.eddydb,
        us_table_floor_json: us?.floor,
        us_table_eddydb_msgpack: usMsgpack?.eddydb,
        us_table_floor_msgpack: usMsgpack?.floor,
      },
      notes:
        `median of ${RUNS} interleaved batches per body format (durability always, ${ids.length} records already ` +
        `stored); floor = bench/batch-floor-server.ts (parse, an id and a MessagePack line per record, one ` +
        `write, one fdatasync, the same answer); ` +
        `reads: ${PROBE_CONCURRENCY} in flight from a probe on the load core, idle and during ${HOLD_RUNS} ` +
        `back-to-back batches per format; ` +
        'the longest event-loop hold is about reads_during max minus reads_idle p50',
    });
  } finally {
    if (bare) await stop(bare);
    if (floor) await stop(floor);
    await stopEddy(eddy);
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Batch records are numbered after the seeded ones, so they differ from them. */
const RECORDS_OFFSET = 1_000_000;
