/**
 * 1,000,000 records of about 200 bytes: recovery time (log replay and
 * snapshot load) and heap bytes per record, against a bare msgpack replay
 * into a Map; then snapshot write time and the longest write stall while
 * concurrent writers keep inserting.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Database } from '../../lib/engine/index.js';
import { percentile, report } from '../lib/report.js';

const N = Number(process.env.BENCH_RECORDS ?? 1_000_000);

function record(i: number) {
  return {
    name: `user number ${i}`,
    email: `user${i}@example.com`,
    age: 18 + (i % 60),
    city: ['Oslo', 'Lima', 'Pune', 'Kyiv'][i % 4],
    score: i * 1.5,
    active: i % 3 === 0,
    bio: 'x'.repeat(40 + (i % 20)),
  };
}

/** Each child runs with V8's settings as the `eddydb` command sets them (bin/v8-flags.js), the bare replay too. */
function measure(dir: string, mode: 'eddy' | 'bare'): { ms: number; heap: number; count: number } {
  const r = spawnSync(
    process.execPath,
    [
      '--expose-gc',
      '--max-old-space-size=8192',
      '--no-allocation-site-pretenuring',
      '--import',
      'tsx',
      path.resolve('bench/recovery-child.ts'),
      dir,
      mode,
    ],
    { encoding: 'utf8' },
  );
  const line = r.stdout.trim().split('\n').pop()!;
  try {
    return JSON.parse(line);
  } catch {
    throw new Error(`recovery child failed: ${r.stderr.slice(-1000)}`);
  }
}

async function generate(dir: string): Promise<{ jsonBytesPerRecord: number }> {
  const db = await Database.open({
    dataDir: dir,
    settings: { durability: 'none' },
    snapshotBytes: Number.MAX_SAFE_INTEGER,
  });
  let jsonBytes = 0;
  for (let i = 0; i < N; i += 10_000) {
    const chunk = Array.from({ length: Math.min(10_000, N - i) }, (_, k) => record(i + k));
    const res = await db.bulk.insertMany('bench', chunk);
    jsonBytes += chunk.reduce((s, r, k) => s + JSON.stringify({ id: res.successful[k], ...r }).length, 0);
  }
  await db.close();
  return { jsonBytesPerRecord: jsonBytes / N };
}

export async function recovery(): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'eddydb-bench-recovery-'));
  try {
    console.log(`\n(generating ${N} records...)`);
    const { jsonBytesPerRecord } = await generate(dir);
    const bare = measure(dir, 'bare');
    const fromLog = measure(dir, 'eddy');
    const db = await Database.open({
      dataDir: dir,
      settings: { durability: 'none' },
      snapshotBytes: Number.MAX_SAFE_INTEGER,
    });
    await db.snapshot();
    await db.close();
    const fromSnapshot = measure(dir, 'eddy');
    const bytesPerRecord = fromLog.heap / fromLog.count;
    report({
      scenario: 'recovery',
      subject: {
        label: `eddydb log replay (${fromLog.count})`,
        throughput: fromLog.count / (fromLog.ms / 1000),
        p50_ms: fromLog.ms,
        p99_ms: fromLog.ms,
      },
      reference: {
        label: `bare msgpack replay into a Map (${bare.count})`,
        throughput: bare.count / (bare.ms / 1000),
        p50_ms: bare.ms,
        p99_ms: bare.ms,
      },
      ratio: bare.ms / fromLog.ms,
      ratio_of: 'bare time / eddydb time',
      target: 'recovery < 8 s; memory < 2.5x JSON size',
      extra: {
        recovery_from_log_s: fromLog.ms / 1000,
        recovery_from_snapshot_s: fromSnapshot.ms / 1000,
        bare_replay_s: bare.ms / 1000,
        json_bytes_per_record: jsonBytesPerRecord,
        heap_bytes_per_record: bytesPerRecord,
        memory_vs_json: bytesPerRecord / jsonBytesPerRecord,
        bare_map_bytes_per_record: bare.heap / bare.count,
      },
    });
    await snapshotStall(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function writeLatencies(db: Database, until: () => boolean): Promise<number[]> {
  const lat: number[] = [];
  let i = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (!until()) {
        const t0 = performance.now();
        await db.records.insert('bench', record(N + i++));
        lat.push(performance.now() - t0);
      }
    }),
  );
  return lat.sort((a, b) => a - b);
}

async function snapshotStall(dir: string): Promise<void> {
  const db = await Database.open({ dataDir: dir, snapshotBytes: Number.MAX_SAFE_INTEGER });
  const base = await writeLatencies(
    db,
    (
      (end) => () =>
        performance.now() > end
    )(performance.now() + 2000),
  );
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  let done = false;
  const t0 = performance.now();
  const snap = db.snapshot().then((s) => {
    done = true;
    return s;
  });
  const during = await writeLatencies(db, () => done);
  const snapMs = performance.now() - t0;
  loop.disable();
  const s = await snap;
  await db.close();
  report({
    scenario: 'snapshot-stall',
    subject: {
      label: 'writes during snapshot',
      throughput: during.length / (snapMs / 1000),
      p50_ms: percentile(during, 50),
      p99_ms: percentile(during, 99),
      max_ms: during.at(-1),
    },
    reference: {
      label: 'writes without snapshot',
      throughput: base.length / 2,
      p50_ms: percentile(base, 50),
      p99_ms: percentile(base, 99),
      max_ms: base.at(-1),
    },
    ratio: during.at(-1)! / base.at(-1)!,
    ratio_of: 'longest write during / without snapshot',
    target: 'longest stall < 100 ms',
    extra: {
      snapshot_s: snapMs / 1000,
      snapshot_bytes: s.bytes,
      longest_write_ms: during.at(-1),
      event_loop_max_ms: loop.max / 1e6,
    },
  });
}
