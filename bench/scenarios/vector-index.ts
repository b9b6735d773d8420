/**
 * vector-index-startup: how soon vector search answers after a restart with
 * 100k x 384-dim vectors (bench/scenarios/vector-index-child.ts does the
 * work in a fresh process). Subject: searches once the index is ready after
 * a restart with the persisted graph; reference: the exact scans that answer
 * while it is not ready. Extra: first-search latency and time until ready,
 * with the persisted graph and with a background rebuild, and the longest
 * event-loop stall meanwhile.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { percentile, report, type Measurement } from '../lib/report.js';

interface Restart {
  openMs: number;
  firstSearchMs: number;
  stateAtFirstSearch: string;
  duringTimes: number[];
  readyMs: number;
  cpuToReadyMs: number;
  maxStallMs: number;
  readyTimes: number[];
  note?: string;
}
interface Child {
  n: number;
  dims: number;
  insertAndIndexMs: number;
  snapshotMs: number;
  indexBytes: number;
  persisted: Restart;
  rebuilt: Restart;
}

function summarize(label: string, times: number[]): Measurement {
  const sorted = [...times].sort((a, b) => a - b);
  const total = sorted.reduce((s, t) => s + t, 0);
  return {
    label,
    throughput: sorted.length / (total / 1000),
    p50_ms: percentile(sorted, 50),
    p99_ms: percentile(sorted, 99),
  };
}

export async function vectorIndexStartup(): Promise<void> {
  console.log('\n(vector-index-startup: inserting, indexing and restarting in a child process; several minutes...)');
  const r = spawnSync(
    process.execPath,
    ['--max-old-space-size=8192', '--import', 'tsx', path.resolve('bench/scenarios/vector-index-child.ts')],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024, timeout: 40 * 60_000 },
  );
  let m: Child;
  try {
    m = JSON.parse(r.stdout.trim().split('\n').pop()!) as Child;
  } catch {
    throw new Error(`vector-index child failed (status ${r.status}, signal ${r.signal}): ${r.stdout.slice(-1000)}`);
  }
  const subject = summarize(`HNSW after restart (${m.n / 1000}k x ${m.dims})`, m.persisted.readyTimes);
  const during = [...m.persisted.duringTimes, ...m.rebuilt.duringTimes];
  const reference = summarize('exact scan while not ready', during.length ? during : [m.rebuilt.firstSearchMs]);
  report({
    scenario: 'vector-index-startup',
    subject,
    reference,
    ratio: subject.throughput! / reference.throughput!,
    ratio_of: 'queries/s, ready HNSW vs the exact-scan fallback',
    extra: {
      persisted_open_ms: m.persisted.openMs,
      persisted_first_search_ms: m.persisted.firstSearchMs,
      persisted_first_search_state: m.persisted.stateAtFirstSearch,
      persisted_ready_s: m.persisted.readyMs / 1000,
      persisted_cpu_to_ready_s: m.persisted.cpuToReadyMs / 1000,
      persisted_longest_stall_ms: m.persisted.maxStallMs,
      rebuild_open_ms: m.rebuilt.openMs,
      rebuild_first_search_ms: m.rebuilt.firstSearchMs,
      rebuild_ready_s: m.rebuilt.readyMs / 1000,
      rebuild_cpu_to_ready_s: m.rebuilt.cpuToReadyMs / 1000,
      rebuild_longest_stall_ms: m.rebuilt.maxStallMs,
      index_file_mb: m.indexBytes / (1024 * 1024),
      snapshot_with_index_s: m.snapshotMs / 1000,
      insert_and_index_s: m.insertAndIndexMs / 1000,
    },
    notes:
      'Before this change the first search after a restart built the whole index first (index_build_s of ' +
      'vector-search, ~45 s). ' +
      "CPU: this process from open to ready (includes recovery and the bench's exact-scan searches). Stalls: " +
      'longest gap of a 1 ms timer between open and ready (includes the exact scans the bench itself runs).',
  });
}
