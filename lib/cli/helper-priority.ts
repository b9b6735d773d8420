/**
 * V8's helper threads at a low scheduling priority (nice 10) while the
 * server runs long work in slices (a 10,000-record batch), so that the
 * core serves requests between the slices.
 *
 * V8 scavenges, marks, sweeps and compiles partly on helper threads. With
 * cores to spare they run beside the server; on a server confined to one
 * CPU (an affinity of one, as under `taskset -c 0`) they share its core,
 * and the scheduler hands it to a helper in the middle of one of the
 * server's slices: a 7 ms slice of a batch insert stretched past 20 ms,
 * and the point reads that arrived meanwhile waited for it. At nice 10 a
 * helper gets about a tenth of the core while the server's thread runs
 * (the rest when it waits, or another core), and the collector does most
 * of its remaining work on the server's thread, in steps.
 *
 * Not the lowest priority (nice 19, a seventieth of the core): V8 compiles
 * hot code on the same helpers, and under long requests that come one
 * after another (scans of 100,000 records, pinned) the scan's code was
 * compiled only after 10-14 scans at twice their time, against 4-5 at
 * nice 10; the reads waiting on long requests fared the same at both.
 *
 * Only while long work runs: lowered for good, the helpers also compiled
 * hot code late under full load, and point reads lost about 5%
 * (bench http-read, 0.71 against 0.75 of bare). Only sliced work counts
 * (engine slices.ts `whileSlicedWorkRuns`: a Slicer that used up a slice, or the turns of a large body's decode),
 * not the write queue's turns between groups, which under a load of
 * single inserts come all the time. The first such yield lowers them; once
 * none has come for QUIET_MS they get their priority back.
 *
 * (`node --single-threaded-gc` keeps collection on the server's thread
 * too, but only as a command-line flag: set at run time it crashed V8.)
 *
 * Only the helpers: libuv's thread pool, which runs the log's writes and
 * fsyncs, keeps its priority (lowered too, `always` inserts lost 5-8%).
 * Node 20 names none of its threads, so the pool's are found by asking
 * them: each open of /proc/thread-self runs on a pool thread and names it.
 * Every other thread but the main one is Node's (V8's workers, its
 * delayed-task thread, the inspector's signal thread). When the pool's
 * threads cannot all be found, nothing is changed. Linux only.
 */
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import { whileSlicedWorkRuns } from '../engine/index.js';

/** The helpers' priority while long work runs. */
export const LOWERED = 10;
/** Helpers get their priority back once no sliced work has yielded for this long. */
export const QUIET_MS = 100;
/**
 * How long the pool's threads are looked for. Under load (other processes on
 * every core, V8 compiling at start) one thread often drains a round's opens
 * before another is scheduled at all: five rounds missed a thread in about
 * one start in eight here, so rounds go on until each has answered.
 */
const DISCOVERY_MS = 3_000;
/** Between rounds, so the threads that answered go back to waiting and the next round wakes the others too. */
const ROUND_GAP_MS = 2;
/** A larger pool is not looked for: finding each of its threads by chance would take too many opens. */
const MAX_POOL = 64;

/** Node's helper threads (ids and their priority at start), or why they could not be told apart. */
export type HelperThreads =
  | { readonly threads: ReadonlyArray<{ tid: number; priority: number }>; readonly pool: number }
  | { readonly unavailable: string };

export async function findHelperThreads(): Promise<HelperThreads> {
  if (process.platform !== 'linux') return { unavailable: 'changing the priority of threads needs Linux' };
  const poolSize = threadPoolSize();
  if (poolSize > MAX_POOL)
    return { unavailable: `an I/O pool of ${poolSize} threads (UV_THREADPOOL_SIZE) is too large to tell apart` };
  const pool = await poolThreads(poolSize);
  if (pool.size < poolSize)
    return { unavailable: `found ${pool.size} of the ${poolSize} I/O pool threads, so could not tell them apart` };
  const threads: Array<{ tid: number; priority: number }> = [];
  for (const tid of readdirSync('/proc/self/task').map(Number)) {
    if (tid === process.pid || pool.has(tid)) continue;
    try {
      threads.push({ tid, priority: os.getPriority(tid) });
    } catch {
      // The thread ended meanwhile.
    }
  }
  return { threads, pool: pool.size };
}

/**
 * Lowers `helpers` whenever sliced work yields, and gives them
 * their priority back once none has for `quietMs`. Returns a function that
 * stops this (and restores them).
 */
export function lowerDuringLongWork(
  helpers: ReadonlyArray<{ tid: number; priority: number }>,
  quietMs = QUIET_MS,
): () => void {
  let live = [...helpers];
  let lowered = false;
  let stopped = false;
  let lastSlice = 0;
  let timer: NodeJS.Timeout | undefined;
  const setAll = (priority: (h: { priority: number }) => number) => {
    live = live.filter((h) => {
      try {
        os.setPriority(h.tid, priority(h));
        return true;
      } catch {
        return false; // the thread ended
      }
    });
  };
  const restore = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
    if (!lowered) return;
    lowered = false;
    setAll((h) => h.priority);
  };
  whileSlicedWorkRuns(() => {
    if (stopped) return;
    lastSlice = performance.now();
    if (lowered) return;
    lowered = true;
    setAll(() => LOWERED);
    timer = setInterval(() => {
      if (performance.now() - lastSlice >= quietMs) restore();
    }, quietMs);
    timer.unref();
  });
  return () => {
    stopped = true;
    restore();
  };
}

/** libuv's pool size: UV_THREADPOOL_SIZE (1-1024), 4 by default. */
function threadPoolSize(): number {
  const n = Number.parseInt(process.env.UV_THREADPOOL_SIZE ?? '', 10);
  return Number.isInteger(n) && n > 0 ? Math.min(n, 1024) : 4;
}

/** The pool's thread ids: many opens of /proc/thread-self at once, until every pool thread has answered. */
async function poolThreads(size: number): Promise<Set<number>> {
  const found = new Set<number>();
  const deadline = performance.now() + DISCOVERY_MS;
  for (;;) {
    const stats = await Promise.all(
      Array.from({ length: size * 8 }, () => readFile('/proc/thread-self/stat', 'latin1').catch(() => '')),
    );
    for (const stat of stats) {
      const tid = Number.parseInt(stat, 10);
      if (tid > 0) found.add(tid);
    }
    if (found.size >= size || performance.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, ROUND_GAP_MS));
  }
}
