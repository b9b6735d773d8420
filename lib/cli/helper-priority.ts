/**
 * V8's helper threads at the lowest scheduling priority (nice 19), so that
 * a busy core runs the request thread first.
 *
 * V8 scavenges, marks and sweeps partly on helper threads. With cores to
 * spare they run beside the server; on a server confined to one CPU (an
 * affinity of one, as under `taskset -c 0`) the scheduler shares that
 * core between them and the request thread, and hands it to a helper in
 * the middle of one of the server's slices of work: a 7 ms slice of a
 * batch insert stretched past 20 ms, and the point reads that arrived
 * meanwhile waited. At the lowest priority a helper runs when the request
 * thread waits (or on another core); the collector does its remaining
 * work on the request thread, in steps. Pinned to one core, 20 batches of
 * 10,000 records in process with a 1 ms timer: the longest event-loop gap
 * per run went from 17-34 ms to 12-15.5 ms.
 *
 * (`node --single-threaded-gc` has the same effect, but only on the
 * command line: set at run time it crashed V8. The server cannot add it
 * for itself.)
 *
 * Only the helpers: libuv's thread pool, which runs the log's writes and
 * fsyncs, keeps its priority (lowered too, `always` inserts lost 5-8%).
 * Node 20 names none of its threads, so the pool's are found by asking
 * them: each open of /proc/thread-self runs on a pool thread and names it.
 * Every other thread but the main one is Node's (V8's workers, its
 * delayed-task thread, the inspector's signal thread). When the pool's
 * threads cannot all be found, nothing is changed. Linux only; threads
 * made later (by the main thread) keep its priority.
 */
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';

/** Lowest priority for a thread: nice 19. */
const LOWEST = 19;
const DISCOVERY_ROUNDS = 5;

/** Lowers the helpers' priority; resolves with the line the start logs. */
export async function lowerHelperPriority(): Promise<string> {
  if (process.platform !== 'linux') return 'V8 helper threads at normal priority (lowering it needs Linux)';
  const poolSize = threadPoolSize();
  const pool = await poolThreads(poolSize);
  if (pool.size < poolSize) return `V8 helper threads at normal priority (found ${pool.size} of the ${poolSize} I/O pool threads, so could not tell them apart)`;
  let lowered = 0;
  for (const tid of threadIds()) {
    if (tid === process.pid || pool.has(tid)) continue;
    try {
      os.setPriority(tid, LOWEST);
      lowered++;
    } catch {
      // The thread ended meanwhile.
    }
  }
  return `V8 helper threads at the lowest priority (${lowered} threads; the I/O pool's ${pool.size} unchanged)`;
}

/** libuv's pool size: UV_THREADPOOL_SIZE (1-1024), 4 by default. */
function threadPoolSize(): number {
  const n = Number.parseInt(process.env.UV_THREADPOOL_SIZE ?? '', 10);
  return Number.isInteger(n) && n > 0 ? Math.min(n, 1024) : 4;
}

function threadIds(): number[] {
  return readdirSync('/proc/self/task').map(Number);
}

/** The pool's thread ids: many opens of /proc/thread-self at once, until every pool thread has answered. */
async function poolThreads(size: number): Promise<Set<number>> {
  const found = new Set<number>();
  for (let round = 0; round < DISCOVERY_ROUNDS && found.size < size; round++) {
    const stats = await Promise.all(Array.from({ length: size * 8 }, () => readFile('/proc/thread-self/stat', 'latin1').catch(() => '')));
    for (const stat of stats) {
      const tid = Number.parseInt(stat, 10);
      if (tid > 0) found.add(tid);
    }
  }
  return found;
}
