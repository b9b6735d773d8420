/**
 * Idle compaction: once the server's resident memory has grown a lot (a bulk
 * load, a recovery, a mass delete) and the server has then been quiet for
 * a couple of seconds, V8 is asked for the memory-reducing collection it
 * would itself run only after a longer quiet time, and when that collection
 * is over, glibc returns the free pages it holds to the OS.
 *
 * Why: a write burst leaves its transient buffers (request bodies, log
 * frames, answers) as garbage that no collection frees while the server is
 * idle, and glibc keeps the memory they held even after they are freed. At a
 * million records that is about a fifth of the resident memory.
 *
 * The collection marks incrementally: at a million records it takes about
 * half a second, holding the event loop at most 25-30 ms at a time (a
 * marking step or the final pause), the same collection V8's own reducer
 * runs later anyway. It starts once the server has been quiet for three
 * quarters of a second, so that the memory a load leaves is given back
 * about a second after it ends: quiet is at most one request or WebSocket
 * message in each quarter of a second, so that a health probe or light
 * traffic does not put it off forever, and the event loop busy less than a
 * quarter of the time. The count alone took a bulk load of 10,000-record
 * batches for quiet (a few requests a second, each long): it compacted
 * four times during a million-record load, holding the loop up to 130 ms,
 * and the growth after the last one stayed under a quarter, so the load
 * ended without one (627 MB resident against about 520). Utilization alone
 * reads 2-8% on an idle process here, about what light traffic reads, so it
 * cannot tell those apart.
 * `--idle-compaction-mb 0` turns it off. It needs the native addon
 * (lib/cli/native-memory.ts).
 */
import {
  constants,
  monitorEventLoopDelay,
  performance,
  PerformanceObserver,
  type PerformanceEntry,
} from 'node:perf_hooks';
import type { NativeMemory } from './native-memory.js';
import type { ServerLog } from '../http/index.js';

export interface IdleCompactionOptions {
  /** Growth of resident memory (bytes) since the lowest point after the last compaction that makes one worth it. */
  minGrowthBytes: number;
  /** The same growth as a share of that lowest point (a big heap pauses longer, so it must grow more). */
  minGrowthShare: number;
  /** Consecutive quiet ticks before a compaction. */
  idleTicks: number;
  /** The most requests and WebSocket messages a tick may take and still be quiet. */
  quietRequests: number;
  /** The largest share of a quiet tick the event loop may be busy (0-1). */
  quietUtilization: number;
}

export const IDLE_COMPACTION_DEFAULTS: IdleCompactionOptions = {
  minGrowthBytes: 64 * 2 ** 20,
  minGrowthShare: 0.25,
  idleTicks: 3,
  quietRequests: 1,
  quietUtilization: 0.25,
};

/** How often idle compaction reads the process (an unref'd timer): IDLE_COMPACTION_DEFAULTS counts in these ticks. */
export const IDLE_COMPACTION_TICK_MS = 250;

/** The decision alone, one reading per tick (pure, so specs drive it with readings instead of time). */
export class IdleCompactionPolicy {
  private low: number;
  private idle = 0;
  constructor(
    startRss: number,
    private readonly o: IdleCompactionOptions = IDLE_COMPACTION_DEFAULTS,
  ) {
    this.low = startRss;
  }

  /**
   * True when a compaction should start now; `requests`: what the server took
   * during the tick, `utilization`: the share of it its event loop was busy.
   */
  shouldCompact(rss: number, requests: number, utilization: number): boolean {
    this.low = Math.min(this.low, rss);
    const quiet = requests <= this.o.quietRequests && utilization <= this.o.quietUtilization;
    this.idle = quiet ? this.idle + 1 : 0;
    if (this.idle < this.o.idleTicks) return false;
    const growth = rss - this.low;
    return growth >= this.o.minGrowthBytes && growth >= this.o.minGrowthShare * this.low;
  }

  /** After a compaction: growth is measured from what it left. */
  compacted(rss: number): void {
    this.low = rss;
    this.idle = 0;
  }
}

export interface Compaction {
  rssBefore: number;
  rssAfter: number;
  /** From the request to the trim. */
  ms: number;
  /** The final (atomic) pause of the major collection, when one was seen. */
  pauseMs: number | undefined;
  /** The longest the event loop was held meanwhile (incremental marking steps, the final pause). */
  longestHoldMs: number;
  trimmed: boolean;
}

/**
 * Starts V8's memory-reducing collection, waits for the major collection that
 * ends it (at most `timeoutMs`), then trims malloc's arenas. Resolves with
 * what it freed.
 */
export function compactNow(native: NativeMemory, timeoutMs = 10_000): Promise<Compaction> {
  const rssBefore = process.memoryUsage.rss();
  const t0 = performance.now();
  const holds = monitorEventLoopDelay({ resolution: 10 });
  holds.enable();
  return new Promise((resolve) => {
    let done = false;
    let pauseMs: number | undefined;
    const finish = () => {
      if (done) return;
      done = true;
      observer.disconnect();
      clearTimeout(timer);
      const trimmed = native.trimMalloc();
      holds.disable();
      resolve({
        rssBefore,
        rssAfter: process.memoryUsage.rss(),
        ms: performance.now() - t0,
        pauseMs,
        longestHoldMs: holds.max / 1e6,
        trimmed,
      });
    };
    const observer = new PerformanceObserver((list) => {
      const major = list
        .getEntries()
        .find(
          (e) =>
            (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind ===
            constants.NODE_PERFORMANCE_GC_MAJOR,
        );
      if (!major) return;
      pauseMs = major.duration;
      finish();
    });
    observer.observe({ entryTypes: ['gc'] });
    const timer = setTimeout(finish, timeoutMs);
    native.reduceHeap();
  });
}

/**
 * Checks once per `tickMs` (an unref'd timer); `requests` counts what the
 * server has taken so far. Returns the function that stops it.
 */
export function startIdleCompaction(
  native: NativeMemory,
  log: ServerLog,
  requests: () => number,
  options: IdleCompactionOptions,
  startRss: number,
  tickMs = IDLE_COMPACTION_TICK_MS,
): () => void {
  const policy = new IdleCompactionPolicy(startRss, options);
  let seen = requests();
  let loop = performance.eventLoopUtilization();
  let running = false;
  const timer = setInterval(() => {
    const now = requests();
    const taken = now - seen;
    seen = now;
    const sinceLast = performance.eventLoopUtilization(loop);
    loop = performance.eventLoopUtilization();
    if (running || !policy.shouldCompact(process.memoryUsage.rss(), taken, sinceLast.utilization)) return;
    running = true;
    void compactNow(native).then((c) => {
      policy.compacted(c.rssAfter);
      running = false;
      const pause = c.pauseMs === undefined ? '' : `, final pause ${Math.round(c.pauseMs)} ms`;
      log(
        'info',
        `idle compaction: resident memory ${mb(c.rssBefore)} MB -> ${mb(c.rssAfter)} MB in ${Math.round(c.ms)} ms ` +
          `(event loop held at most ${Math.round(c.longestHoldMs)} ms${pause})`,
      );
    });
  }, tickMs);
  timer.unref();
  return () => clearInterval(timer);
}

const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
