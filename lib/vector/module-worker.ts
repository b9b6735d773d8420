/**
 * Starting a module as a worker thread, from its built `.js` or, under tsx
 * (mocha, bench), its `.ts` source, and lowering a worker's own priority.
 * A `.ts` worker is started through a one-line bootstrap that registers
 * tsx's loader inside the worker, then imports it: a worker does not inherit
 * the loader from `--import tsx`. The HNSW worker (hnsw-thread.ts) and the
 * stored functions' pool start their threads here.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { getPriority, setPriority } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/** How much a helper thread's nice value is raised above the process's (Linux; 19 at most). */
export const WORKER_NICENESS = 10;

/**
 * Starts `entry` (a module URL, `.ts` or `.js`) in a new worker thread with
 * `workerData`. execArgv is empty: the server's own flags (inspector,
 * memory) are not the worker's.
 */
export function startModuleWorker(entry: URL, workerData?: unknown): Worker {
  const options = { execArgv: [], workerData };
  return entry.pathname.endsWith('.ts')
    ? new Worker(tsBootstrap(entry), { ...options, eval: true })
    : new Worker(entry, options);
}

/**
 * Worker code that registers tsx's loader, then imports the TypeScript
 * worker module. tsx's ESM API is found from this module through the
 * package's own export map (createRequire: under tsx's CommonJS transform
 * `import.meta.resolve` is missing, and a require resolution would give the
 * CommonJS build, which cannot register from a worker) and imported by its
 * file URL, so the worker's working directory does not matter.
 */
function tsBootstrap(entry: URL): string {
  const manifest = createRequire(import.meta.url).resolve('tsx/package.json');
  const exported = (
    JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> }
  ).exports['./esm/api']!;
  const tsx = pathToFileURL(path.join(path.dirname(manifest), exported.import.default)).href;
  return (
    `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return ` +
    `import(${JSON.stringify(entry.href)}); });`
  );
}

/**
 * Raises the calling thread's nice value by `by`, so that when it and the
 * request thread want the same core, the request thread wins it; where
 * threads cannot be found or changed (not Linux, not allowed), leaves it.
 */
export function lowerThisThread(by: number): void {
  try {
    const tid = thisThreadId();
    setPriority(tid, loweredBy(getPriority(tid), by));
  } catch {
    // Not Linux, or not allowed: the worker runs at the process's priority.
  }
}

/** A nice value `by` lower than `priority`, within Linux's range (19 at most). */
const loweredBy = (priority: number, by: number): number => Math.min(19, priority + by);

/** The calling thread's id (Linux): /proc/thread-self names it, and setpriority on it changes that thread alone. */
function thisThreadId(): number {
  return Number(path.basename(readlinkSync('/proc/thread-self')));
}

/**
 * The calling thread's priority, switched between its own (for work a
 * request waits on) and `by` lower (for work nobody waits on, such as
 * building an index), so that background work yields the core to the
 * request thread. Switching back needs the right to raise a thread's
 * priority (root, or RLIMIT_NICE), which the constructor tries by lowering
 * the thread one step and raising it again: without that right the thread
 * is never switched, and stays one step below its own priority (where the
 * try left it); off Linux it stays at its own.
 */
export class ThreadPriority {
  private readonly tid: number | undefined;
  private readonly own: number = 0;
  private lowered = false;

  constructor(private readonly by: number) {
    try {
      const tid = thisThreadId();
      this.own = getPriority(tid);
      // Only if the priority can be set back: lowered by one and raised again.
      setPriority(tid, loweredBy(this.own, 1));
      setPriority(tid, this.own);
      this.tid = tid;
    } catch {
      this.tid = undefined;
    }
  }

  /** For work nobody waits on. */
  background(): void {
    if (this.lowered || this.tid === undefined) return;
    this.set(loweredBy(this.own, this.by));
    this.lowered = true;
  }

  /** For work a request waits on. */
  foreground(): void {
    if (!this.lowered || this.tid === undefined) return;
    this.set(this.own);
    this.lowered = false;
  }

  private set(priority: number): void {
    try {
      setPriority(this.tid!, priority);
    } catch {
      // The thread's priority is left as it was; nothing depends on it.
    }
  }
}
