/**
 * HTTP scenarios against the bare node:http reference, interleaved in the
 * same run (see bench/lib/interleave.ts), wrk -t1 -c50, server on core 0 and
 * load on core 1: point reads of random ids over 10,000 records of ~200 bytes
 * (JSON, and MessagePack with `Accept: application/msgpack`), and single
 * inserts in the three durability modes side by side, with the durable
 * floor (bench/durable-floor-server.ts: the least a Node server can do for
 * a durable insert) as a fourth contender, the ceiling the `always` ratio
 * is read against. Each reports server
 * CPU µs per request for both sides and the difference (ours), plus a µs
 * table from a separate --cpu-prof run. Also kept: `durability-modes` and
 * `access-log` (the access log's cost, in a child process).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { printUsTable, type UsTable } from '../lib/cpu-profile.js';
import { interleave, loadContender, SECONDS, type Interleaved } from '../lib/interleave.js';
import { load, type LoadSpec } from '../lib/load.js';
import { profiledRun } from '../lib/profile-run.js';
import { startBare, startDurableFloor, stop, type Proc } from '../lib/procs.js';
import { benchRecord } from '../lib/records.js';
import { check, RECORDS, seed, startServer, stopEddy, type Eddy } from '../lib/seeded-eddy.js';
import { report, type Measurement } from '../lib/report.js';

const INSERT_BODY = JSON.stringify(benchRecord(0));
const PROFILE = process.env.BENCH_PROFILE !== '0';

function cpuExtra(r: Interleaved): Record<string, unknown> {
  const extra: Record<string, unknown> = { bare_cpu_us_per_request: r.reference.cpu_us_per_op };
  for (const s of r.subjects) extra[`ours_us (${s.label} - bare)`] = s.cpu_us_per_op - r.reference.cpu_us_per_op;
  return extra;
}

async function profileIfWanted(
  title: string,
  mode: string,
  prepare: (e: Eddy) => Promise<LoadSpec>,
): Promise<UsTable | undefined> {
  if (!PROFILE) return undefined;
  let eddy: Eddy | undefined;
  try {
    const table = await profiledRun(
      async (nodeArgs) => (eddy = await startServer(mode, nodeArgs)),
      () => prepare(eddy!),
      SECONDS,
    );
    printUsTable(title, table);
    return table;
  } finally {
    if (eddy) rmSync(eddy.dir, { recursive: true, force: true });
  }
}

async function pointRead(scenario: string, accept: 'application/json' | 'application/msgpack'): Promise<void> {
  let eddy: Eddy | undefined = await startServer('always');
  let bare: Proc | undefined;
  try {
    const ids = await seed(eddy);
    const paths = ids.map((id) => `/api/find/bench/${id}`);
    const record = await check(`${eddy.url}${paths[0]}`, { headers: eddy.headers }, 'application/json');
    await check(`${eddy.url}${paths[1]}`, { headers: { ...eddy.headers, accept } }, accept);
    bare = await startBare(record);
    const r = await interleave(loadContender('bare node:http', bare, { url: bare.url, paths, headers: { accept } }), [
      loadContender(`eddydb point read (${accept.slice(12)})`, eddy, {
        url: eddy.url,
        paths,
        headers: { ...eddy.headers, accept },
      }),
    ]);
    await stop(bare);
    bare = undefined;
    await stopEddy(eddy);
    eddy = undefined;
    const us = await profileIfWanted(scenario, 'always', async (e) => ({
      url: e.url,
      paths: (await seed(e)).map((id) => `/api/find/bench/${id}`),
      headers: { ...e.headers, accept },
    }));
    report({
      scenario,
      subject: r.subjects[0]!,
      reference: r.reference,
      ratio: r.ratios[0]!,
      ratio_of: `requests/s vs bare node:http (median of ${r.subjects[0]!.rounds.length} interleaved rounds)`,
      target: '>= 0.70',
      extra: { ...cpuExtra(r), us_table: us },
      notes: `GET of random ids over ${RECORDS} records of ~200 B, Accept: ${accept}; both answer the same record bytes`,
    });
  } finally {
    if (bare) await stop(bare);
    if (eddy) await stopEddy(eddy);
  }
}

export const httpRead = () => pointRead('http-read', 'application/json');
export const httpReadMsgpack = () => pointRead('http-read-msgpack', 'application/msgpack');

export async function httpInsert(): Promise<void> {
  const modes = ['always', 'batch', 'none'] as const;
  const names = [...modes, 'floor'] as const;
  const eddies: Eddy[] = [];
  let bare: Proc | undefined;
  let floor: Proc | undefined;
  const floorDir = mkdtempSync(path.join(tmpdir(), 'eddydb-floor-'));
  try {
    for (const mode of modes) eddies.push(await startServer(mode));
    for (const e of eddies)
      await check(
        `${e.url}/api/insert/bench`,
        { method: 'POST', headers: e.headers, body: INSERT_BODY },
        'application/json',
      );
    bare = await startBare();
    floor = await startDurableFloor(path.join(floorDir, 'inserts.log'));
    const spec = (p: Proc, headers: Record<string, string>): LoadSpec => ({
      url: `${p.url}/api/insert/bench`,
      method: 'POST',
      body: INSERT_BODY,
      headers,
    });
    const plain = { 'content-type': 'application/json' };
    const r = await interleave(loadContender('bare node:http', bare, spec(bare, plain)), [
      ...eddies.map((e, i) => loadContender(`eddydb insert (${modes[i]})`, e, spec(e, e.headers))),
      loadContender('durable floor (always)', floor, spec(floor, plain)),
    ]);
    for (const e of eddies.splice(0)) await stopEddy(e);
    await stop(bare);
    bare = undefined;
    await stop(floor);
    floor = undefined;
    const us = await profileIfWanted('http-insert (always)', 'always', async (e) => spec(e, e.headers));
    const extra: Record<string, unknown> = { ...cpuExtra(r), us_table: us };
    r.subjects.forEach((s, i) => {
      extra[`ratio_${names[i]}`] = r.ratios[i];
    });
    // The share of what a Node server can reach at all that `always` reaches (same rounds).
    extra.always_vs_floor = r.ratios[0]! / r.ratios[3]!;
    extra.modes = r.subjects;
    console.log('\n  mode     req/s     p99 ms   CPU µs/req   ours µs   ratio vs bare');
    for (const [i, s] of [r.reference, ...r.subjects].entries()) {
      const name = i === 0 ? 'bare' : names[i - 1]!;
      const ours = i === 0 ? '' : (s.cpu_us_per_op - r.reference.cpu_us_per_op).toFixed(1);
      console.log(
        `  ${name.padEnd(7)} ${s.throughput.toFixed(0).padStart(7)} ${s.p99_ms.toFixed(2).padStart(9)} ` +
          `${s.cpu_us_per_op.toFixed(1).padStart(11)} ${ours.padStart(9)}   ` +
          `${i === 0 ? '' : r.ratios[i - 1]!.toFixed(3)}`,
      );
    }
    console.log(`  always reaches ${((extra.always_vs_floor as number) * 100).toFixed(0)}% of the durable floor`);
    report({
      scenario: 'http-insert',
      subject: r.subjects[0]!,
      reference: r.reference,
      ratio: r.ratios[0]!,
      ratio_of: `requests/s, always vs bare node:http (median of ${r.subjects[0]!.rounds.length} interleaved rounds)`,
      target: '>= 0.50',
      rows: r.subjects.map((s, i) => ({
        subject: s,
        reference: r.reference,
        ratio: r.ratios[i]!,
        target: names[i] === 'always' ? '>= 0.50' : names[i] === 'floor' ? 'ceiling for always' : undefined,
      })),
      extra,
      notes:
        'single POST /api/insert of a ~200 B record; always = fsync before the answer (group commit), batch = fsync ' +
        'within the batch window, none = no fsync; ' +
        'durable floor = bench/durable-floor-server.ts (parse, append a line, group-commit fdatasync, answer: the ' +
        'least a Node server can do for an always insert)',
    });
  } finally {
    for (const e of eddies) await stopEddy(e);
    if (bare) await stop(bare);
    if (floor) await stop(floor);
    rmSync(floorDir, { recursive: true, force: true });
  }
}

export async function durabilityModes(): Promise<void> {
  const results: Record<string, Measurement> = {};
  for (const mode of ['none', 'batch', 'always']) {
    const e = await startServer(mode);
    try {
      results[mode] = await load(`eddydb insert (${mode})`, {
        url: `${e.url}/api/insert/bench`,
        method: 'POST',
        body: INSERT_BODY,
        headers: e.headers,
        seconds: SECONDS,
      });
    } finally {
      await stopEddy(e);
    }
  }
  report({
    scenario: 'durability-modes',
    subject: results.always!,
    reference: results.none!,
    ratio: results.always!.throughput! / results.none!.throughput!,
    ratio_of: 'always vs none inserts/s (50 connections)',
    target: '>= 0.60',
    extra: {
      batch_ops_per_s: results.batch!.throughput,
      batch_vs_none: results.batch!.throughput! / results.none!.throughput!,
    },
  });
}

export async function accessLog(): Promise<void> {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.resolve('bench/access-log-child.ts')], {
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 5 * 60_000,
  });
  let m: { requests: number; rounds: number; offUs: number; onUs: number };
  try {
    m = JSON.parse(r.stderr.trim().split('\n').pop()!);
  } catch {
    throw new Error(`access-log child failed (status ${r.status}): ${r.stderr.slice(-1000)}`);
  }
  const subject: Measurement = { label: 'point read, access log on', throughput: 1e6 / m.onUs };
  const reference: Measurement = { label: 'point read, access log off', throughput: 1e6 / m.offUs };
  report({
    scenario: 'access-log',
    subject,
    reference,
    ratio: m.offUs / m.onUs,
    ratio_of: 'Dispatcher.handle calls/s, access log on vs off (in process)',
    extra: { added_us_per_request: m.onUs - m.offUs, off_us_per_request: m.offUs, on_us_per_request: m.onUs },
    notes:
      `${m.requests} authenticated point reads per round, best of ${m.rounds} alternating rounds; access lines ` +
      `written to stdout (discarded).`,
  });
}
