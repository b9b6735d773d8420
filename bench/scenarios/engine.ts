/**
 * In-process engine scenarios: a bulk insert of 10,000 records (one logged
 * batch) and a filtered find over 100,000 records. References are the bare
 * work on plain objects: msgpack-encoding the records into a Map, and
 * Array.filter with the same predicate. `unique-insert` compares single
 * inserts into a collection with a unique field at 100k vs 10k existing
 * records: a unique check that scanned would make the ratio fall with n.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pack } from 'msgpackr';
import { Database, parseQuery } from '../../lib/engine/index.js';
import { percentile, report, timed } from '../lib/report.js';

function record(i: number) {
  return {
    name: `user ${i}`,
    age: 18 + (i % 60),
    city: ['Oslo', 'Lima', 'Pune', 'Kyiv'][i % 4],
    score: i * 1.5,
    active: i % 3 === 0,
  };
}

export async function batchInsert(): Promise<void> {
  const N = 10_000,
    RUNS = 10;
  const dir = mkdtempSync(path.join(tmpdir(), 'eddydb-bench-'));
  const db = await Database.open({ dataDir: dir });
  const bodies = Array.from({ length: N }, (_, i) => record(i));
  const subj = await timed(RUNS, async () => {
    await db.bulk.insertMany('bench', bodies);
  });
  await db.close();
  rmSync(dir, { recursive: true, force: true });
  const ref = await timed(RUNS, () => {
    const m = new Map<string, Buffer>();
    bodies.forEach((b, i) => m.set(String(i), pack(b)));
  });
  const subject = {
    label: 'eddydb bulk insert 10k (always)',
    throughput: N / (percentile(subj, 50) / 1000),
    p50_ms: percentile(subj, 50),
    p99_ms: percentile(subj, 99),
  };
  const reference = {
    label: 'msgpack encode into a Map',
    throughput: N / (percentile(ref, 50) / 1000),
    p50_ms: percentile(ref, 50),
    p99_ms: percentile(ref, 99),
  };
  report({
    scenario: 'batch-insert',
    subject,
    reference,
    ratio: subject.throughput / reference.throughput,
    ratio_of: 'records/s vs bare encode',
    notes: 'p50/p99 are per 10,000-record batch',
  });
}

export async function filteredFind(): Promise<void> {
  const N = 100_000,
    RUNS = 20;
  const dir = mkdtempSync(path.join(tmpdir(), 'eddydb-bench-'));
  const db = await Database.open({ dataDir: dir, settings: { durability: 'none' } });
  const bodies = Array.from({ length: N }, (_, i) => record(i));
  for (let i = 0; i < N; i += 10_000) await db.bulk.insertMany('bench', bodies.slice(i, i + 10_000));
  const q = parseQuery({
    filter: {
      type: 'Logical',
      content: {
        operator: 'And',
        expressions: [
          { type: 'Condition', content: { field: 'age', operator: 'Gte', value: 30 } },
          { type: 'Condition', content: { field: 'city', operator: 'Eq', value: 'Lima' } },
        ],
      },
    },
  });
  let found = 0;
  const subj = await timed(RUNS, async () => {
    found = (await db.records.find('bench', q)).length;
  });
  await db.close();
  rmSync(dir, { recursive: true, force: true });
  const ref = await timed(RUNS, () => {
    bodies.filter((b) => b.age >= 30 && b.city === 'Lima');
  });
  const subject = {
    label: `eddydb find (${found} of 100k match)`,
    throughput: 1000 / percentile(subj, 50),
    p50_ms: percentile(subj, 50),
    p99_ms: percentile(subj, 99),
  };
  const reference = {
    label: 'Array.filter on plain objects',
    throughput: 1000 / percentile(ref, 50),
    p50_ms: percentile(ref, 50),
    p99_ms: percentile(ref, 99),
  };
  report({
    scenario: 'filtered-find',
    subject,
    reference,
    ratio: subject.throughput / reference.throughput,
    ratio_of: 'queries/s vs Array.filter',
  });
}

interface UniqueRun {
  p50: number;
  p99: number;
  throughput: number;
}

/**
 * Single inserts into a collection with a unique field holding `existing`
 * records: latency percentiles, and inserts per second of the process's CPU
 * time (the latency of one awaited insert is mostly the log write's trip
 * through the threadpool, which varied 2x between runs; CPU is the cost).
 */
async function uniqueInserts(existing: number, inserts: number): Promise<UniqueRun> {
  const dir = mkdtempSync(path.join(tmpdir(), 'eddydb-bench-'));
  const db = await Database.open({ dataDir: dir, settings: { durability: 'none' } });
  await db.collections.create('bench', { fields: { email: { field_type: 'String', unique: true } } });
  for (let i = 0; i < existing; i += 1000) {
    await db.bulk.insertMany(
      'bench',
      Array.from({ length: Math.min(1000, existing - i) }, (_, k) => ({ ...record(i + k), email: `u${i + k}@x` })),
    );
  }
  let n = existing;
  const cpu0 = process.cpuUsage();
  const samples = await timed(inserts, async () => {
    await db.records.insert('bench', { ...record(n), email: `u${n}@x` });
    n++;
  });
  const cpu = process.cpuUsage(cpu0);
  await db.close();
  rmSync(dir, { recursive: true, force: true });
  return {
    p50: percentile(samples, 50),
    p99: percentile(samples, 99),
    throughput: inserts / ((cpu.user + cpu.system) / 1e6),
  };
}

export async function uniqueInsert(): Promise<void> {
  const INSERTS = 2000;
  // Each size runs twice, interleaved, and keeps its cheaper run: the first run of the process also pays for the JIT
  // warming up.
  const runs: Array<readonly [UniqueRun, UniqueRun]> = [];
  for (let round = 0; round < 2; round++)
    runs.push([await uniqueInserts(10_000, INSERTS), await uniqueInserts(100_000, INSERTS)]);
  const cheaper = (i: 0 | 1) => runs.map((r) => r[i]).reduce((a, b) => (b.throughput > a.throughput ? b : a));
  const small = cheaper(0),
    large = cheaper(1);
  const subject = {
    label: 'insert, unique field, 100k records',
    throughput: large.throughput,
    p50_ms: large.p50,
    p99_ms: large.p99,
  };
  const reference = {
    label: 'insert, unique field, 10k records',
    throughput: small.throughput,
    p50_ms: small.p50,
    p99_ms: small.p99,
  };
  report({
    scenario: 'unique-insert',
    subject,
    reference,
    ratio: subject.throughput / reference.throughput,
    ratio_of: 'inserts per CPU second at 100k vs 10k records',
    target: '~1 (no O(n) per write)',
    notes:
      'durability none; single inserts, each its own write group; throughput is inserts per second of process CPU; ' +
      'each size run twice, interleaved, keeping its cheaper run',
  });
}
