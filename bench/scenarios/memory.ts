/**
 * Memory per record at scale, measured as users run the server: the built
 * `bin/eddydb.js` loads BENCH_RECORDS (1,000,000) records of about 200 bytes
 * of JSON through 10,000-record batch inserts; two seconds after the last
 * batch and again after a settle, the server's resident memory (VmRSS)
 * minus the empty server's, per record, against the JSON size of the
 * records (the reference: 1x; the ratio with the empty server counted in
 * beside it). Then recovery of the same data set after kill -9: from the
 * snapshots the load took and the log after them, and from a fresh
 * snapshot. `memory-3m` does all of it at three times BENCH_RECORDS and at
 * BENCH_RECORDS, and compares the two.
 */
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { mulberry32 } from '../lib/seeded-random.js';
import { BENCH_ADMIN_KEY, startListening, stop, token, type Proc } from '../lib/procs.js';
import { report } from '../lib/report.js';

const N = Number(process.env.BENCH_RECORDS ?? 1_000_000);
const BATCH = 10_000;
const COLLECTION = 'people';

const FIRST = [
  'Ada',
  'Bo',
  'Chen',
  'Dara',
  'Eli',
  'Fatima',
  'Goran',
  'Hana',
  'Ivo',
  'Jun',
  'Kai',
  'Lena',
  'Mads',
  'Nia',
  'Omar',
  'Pia',
];
const LAST = [
  'Andersen',
  'Berg',
  'Costa',
  'Dahl',
  'Eriksen',
  'Fischer',
  'Garcia',
  'Haugen',
  'Ito',
  'Jensen',
  'Khan',
  'Larsen',
];
const CITIES = [
  'Oslo',
  'Lima',
  'Pune',
  'Kyiv',
  'Accra',
  'Bergen',
  'Porto',
  'Quito',
  'Riga',
  'Seoul',
  'Turin',
  'Utrecht',
];
const PLANS = ['free', 'pro', 'team', 'enterprise'];
const WORDS = [
  'alpha',
  'brisk',
  'cobalt',
  'delta',
  'ember',
  'fjord',
  'granite',
  'harbor',
  'indigo',
  'juniper',
  'kelp',
  'lumen',
];
const TAGS = ['new', 'vip', 'beta', 'churn-risk', 'trial', 'partner', 'internal', 'press'];

/**
 * One record of about 200 bytes of JSON, the same for the same `i`: strings
 * (some enum-like, some unique), integers, a float, a boolean, and sometimes
 * an array of tags or a nested address.
 */
export function memoryRecord(i: number): Record<string, unknown> {
  const u = mulberry32(i + 1);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(u() * list.length)]!;
  const first = pick(FIRST),
    last = pick(LAST);
  const r: Record<string, unknown> = {
    name: `${first} ${last}`,
    email: `${first.toLowerCase()}.${last.toLowerCase()}${i}@example.com`,
    age: 18 + Math.floor(u() * 60),
    city: pick(CITIES),
    plan: pick(PLANS),
    score: Math.round(u() * 100_000) / 100,
    visits: Math.floor(u() * 5000),
    active: u() < 0.5,
    note: Array.from({ length: 3 + Math.floor(u() * 5) }, () => pick(WORDS)).join(' '),
  };
  if (i % 3 === 0) r.tags = Array.from({ length: 1 + Math.floor(u() * 3) }, () => pick(TAGS));
  if (i % 4 === 0)
    r.address = {
      street: `${1 + Math.floor(u() * 200)} ${pick(WORDS)} street`,
      zip: String(10000 + Math.floor(u() * 89999)),
      country: 'NO',
    };
  return r;
}

function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until RSS changes by less than 1% over 5 s (at most 60 s); the last reading. */
async function settledRss(pid: number): Promise<number> {
  const readings: number[] = [];
  for (let s = 0; s < 60; s++) {
    await sleep(1000);
    readings.push(rssBytes(pid));
    if (readings.length >= 6) {
      const recent = readings.slice(-6);
      if (Math.max(...recent) - Math.min(...recent) < 0.01 * recent.at(-1)!) break;
    }
  }
  return readings.at(-1)!;
}

/** The built server, as users run it (not under tsx), logging its startup line (recoveryMs). */
function startBuilt(dataDir: string): Promise<Proc & { startMs: number; recoveryMs: () => number }> {
  const t0 = performance.now();
  return startListening(
    [path.resolve('bin/eddydb.js'), 'start', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir],
    { EDDYDB_ADMIN_KEY: BENCH_ADMIN_KEY, EDDYDB_SNAPSHOT_CRON: '' },
  ).then((p) => {
    const startMs = performance.now() - t0;
    // From the process's whole output: the startup line may come in the same chunk as the listening line.
    const recoveryMs = () => Number(/"recoveryMs":([\d.]+)/.exec(p.output())?.[1] ?? NaN);
    return { ...p, startMs, recoveryMs };
  });
}

async function waitForRecoveryLine(p: { recoveryMs: () => number }): Promise<number> {
  for (let i = 0; i < 50 && Number.isNaN(p.recoveryMs()); i++) await sleep(100);
  return p.recoveryMs();
}

function kill9(p: Proc): Promise<void> {
  return new Promise((resolve) => {
    if (p.proc.exitCode !== null || p.proc.signalCode !== null) return resolve();
    p.proc.once('exit', () => resolve());
    p.proc.kill('SIGKILL');
  });
}

async function post(url: string, auth: string, route: string, body: unknown): Promise<unknown> {
  const r = await fetch(url + route, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${auth}` },
    body: JSON.stringify(body),
  });
  if (r.status >= 300) throw new Error(`${route}: ${r.status} ${(await r.text()).slice(0, 300)}`);
  return r.json();
}

/** Loads `n` records in batches; the JSON bytes sent per record (without ids). */
async function load(url: string, auth: string, n: number): Promise<number> {
  let jsonBytes = 0;
  for (let start = 0; start < n; start += BATCH) {
    const records = Array.from({ length: Math.min(BATCH, n - start) }, (_, k) => memoryRecord(start + k));
    for (const r of records) jsonBytes += Buffer.byteLength(JSON.stringify(r));
    await post(url, auth, `/api/batch/insert/${COLLECTION}`, { inserts: records.map((data) => ({ data })) });
  }
  return jsonBytes / n;
}

async function recoverAndMeasure(
  dir: string,
  empty: number,
  n: number,
): Promise<{ recoveryS: number; startS: number; rssPerRecord: number; p: Proc }> {
  const p = await startBuilt(dir);
  const recoveryMs = await waitForRecoveryLine(p);
  const rss = await settledRss(p.proc.pid!);
  return { recoveryS: recoveryMs / 1000, startS: p.startMs / 1000, rssPerRecord: (rss - empty) / n, p };
}

/** What one load of `n` records measured. */
export interface MemoryRun {
  readonly records: number;
  readonly jsonPerRecord: number;
  /** RSS per record (minus the empty server's) two seconds after the last batch was answered. */
  readonly rightAfterPerRecord: number;
  /** RSS per record once it settled (idle compaction has run by then). */
  readonly settledPerRecord: number;
  readonly emptyRss: number;
  readonly loadedRss: number;
  readonly loadS: number;
  /** Restart after kill -9 at the end of the load: the snapshots the load took plus the log after them. */
  readonly recoveryFromLogS: number;
  readonly startFromLogS: number;
  readonly rssPerRecordAfterLogRecovery: number;
  /** Restart after kill -9 right after an explicit snapshot. */
  readonly recoveryFromSnapshotS: number;
  readonly startFromSnapshotS: number;
  readonly rssPerRecordAfterSnapshotRecovery: number;
}

/** Loads `n` records into a fresh built server, then restarts it after kill -9 twice (see the header). */
export async function memoryRun(n: number): Promise<MemoryRun> {
  const dir = mkdtempSync(path.join(tmpdir(), 'eddydb-bench-memory-'));
  try {
    const server = await startBuilt(dir);
    const empty = await settledRss(server.proc.pid!);
    const auth = await token(server.url);
    console.log(`\n(loading ${n} records...)`);
    const t0 = performance.now();
    const jsonPerRecord = await load(server.url, auth, n);
    const loadS = (performance.now() - t0) / 1000;
    await sleep(2000);
    const rightAfter = rssBytes(server.proc.pid!);
    const loaded = await settledRss(server.proc.pid!);
    await kill9(server);

    const fromLog = await recoverAndMeasure(dir, empty, n);
    await post(fromLog.p.url, await token(fromLog.p.url), '/api/admin/snapshot', {});
    await kill9(fromLog.p);
    const fromSnapshot = await recoverAndMeasure(dir, empty, n);
    await stop(fromSnapshot.p);
    return {
      records: n,
      jsonPerRecord,
      rightAfterPerRecord: (rightAfter - empty) / n,
      settledPerRecord: (loaded - empty) / n,
      emptyRss: empty,
      loadedRss: loaded,
      loadS,
      recoveryFromLogS: fromLog.recoveryS,
      startFromLogS: fromLog.startS,
      rssPerRecordAfterLogRecovery: fromLog.rssPerRecord,
      recoveryFromSnapshotS: fromSnapshot.recoveryS,
      startFromSnapshotS: fromSnapshot.startS,
      rssPerRecordAfterSnapshotRecovery: fromSnapshot.rssPerRecord,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The figures of a run as report extras. */
function runExtras(run: MemoryRun): Record<string, number> {
  return {
    rss_bytes_per_record: run.settledPerRecord,
    rss_bytes_per_record_right_after: run.rightAfterPerRecord,
    json_bytes_per_record: run.jsonPerRecord,
    ratio_right_after: run.rightAfterPerRecord / run.jsonPerRecord,
    whole_rss_ratio: (run.settledPerRecord + run.emptyRss / run.records) / run.jsonPerRecord,
    whole_rss_ratio_right_after: (run.rightAfterPerRecord + run.emptyRss / run.records) / run.jsonPerRecord,
    empty_rss_mb: run.emptyRss / 2 ** 20,
    loaded_rss_mb: run.loadedRss / 2 ** 20,
    load_s: run.loadS,
    records_per_s: run.records / run.loadS,
    recovery_from_log_s: run.recoveryFromLogS,
    start_from_log_s: run.startFromLogS,
    rss_per_record_after_log_recovery: run.rssPerRecordAfterLogRecovery,
    recovery_from_snapshot_s: run.recoveryFromSnapshotS,
    start_from_snapshot_s: run.startFromSnapshotS,
    rss_per_record_after_snapshot_recovery: run.rssPerRecordAfterSnapshotRecovery,
  };
}

const NOTES =
  'RSS minus the empty server, two seconds after the last batch (right after) and after a settle (under 1% ' +
  'change over 5 s); whole_rss_ratio counts the empty server in; recovery after kill -9, recoveryMs from the ' +
  'startup line.';

/** BENCH_RECORDS (1,000,000) records: RSS per record settled and right after the load, against JSON. */
export async function memory(): Promise<void> {
  const run = await memoryRun(N);
  report({
    scenario: 'memory',
    subject: { label: `eddydb RSS per record (${N})`, bytes_per_record: run.settledPerRecord },
    reference: { label: 'JSON size per record', bytes_per_record: run.jsonPerRecord },
    ratio: run.settledPerRecord / run.jsonPerRecord,
    ratio_of: 'RSS bytes per record / JSON bytes per record',
    target: 'ratio <= 2.0 settled, <= 2.5 right after the load; recovery < 4 s',
    extra: runExtras(run),
    notes: NOTES,
  });
}

/**
 * Cost as data grows: three times BENCH_RECORDS against BENCH_RECORDS in the
 * same run, RSS per record and recovery after kill -9 (a few minutes).
 */
export async function memory3m(): Promise<void> {
  const base = await memoryRun(N);
  const large = await memoryRun(3 * N);
  const recoveryRatio = large.recoveryFromLogS / base.recoveryFromLogS;
  report({
    scenario: 'memory-3m',
    subject: {
      label: `eddydb at ${3 * N}: ${Math.round(large.settledPerRecord)} B/record, recovery ${large.recoveryFromLogS.toFixed(1)} s`,
      bytes_per_record: large.settledPerRecord,
      recovery_s: large.recoveryFromLogS,
    },
    reference: {
      label: `eddydb at ${N}: ${Math.round(base.settledPerRecord)} B/record, recovery ${base.recoveryFromLogS.toFixed(1)} s`,
      bytes_per_record: base.settledPerRecord,
      recovery_s: base.recoveryFromLogS,
    },
    ratio: large.settledPerRecord / base.settledPerRecord,
    ratio_of: 'RSS bytes per record at 3x the records / at 1x',
    target: 'ratio <= 1.0 (linear); recovery at most 3x',
    extra: {
      recovery_ratio: recoveryRatio,
      snapshot_recovery_ratio: large.recoveryFromSnapshotS / base.recoveryFromSnapshotS,
      ratio_vs_json_large: large.settledPerRecord / large.jsonPerRecord,
      ratio_vs_json_base: base.settledPerRecord / base.jsonPerRecord,
      ...Object.fromEntries(Object.entries(runExtras(large)).map(([k, v]) => [`large_${k}`, v])),
      ...Object.fromEntries(Object.entries(runExtras(base)).map(([k, v]) => [`base_${k}`, v])),
    },
    notes: NOTES,
  });
}
