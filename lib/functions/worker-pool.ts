/**
 * A small pool of worker threads for CPU-bound jobs that must not run on
 * the event loop (bcrypt). Workers start lazily, at most `size` of them,
 * one job each at a time; further jobs wait in order. A job whose signal
 * aborts (the call's deadline) is dropped from the queue, or, when it is
 * running, its worker is terminated (V8 stops it mid-loop) and replaced on
 * demand. Workers are unref'd: an idle or busy worker never keeps the
 * process alive (whoever awaits a job holds a socket or a timer); `close`
 * terminates them all, as the server does when it closes.
 *
 * The worker module is given by URL (often the module that owns the pool,
 * `import.meta.url`, which serves jobs when it finds itself started with
 * the pool's `workerData`), built to `.js` in dist/ and run from `.ts`
 * under tsx (mocha, bench), started by `startModuleWorker`
 * (lib/vector/module-worker.ts).
 * The worker side answers jobs with `serveJobs`, which first lowers its
 * thread's priority by WORKER_NICENESS (Linux): when a worker and the
 * request thread want the same core, the request thread wins it, and a
 * worker still gets about a tenth of it under a saturated event loop.
 *
 * Not a general scheduler: no job priorities, no job that outlives its signal.
 */
import { parentPort, type Worker } from 'node:worker_threads';
import { Unavailable } from '../errors.js';
import { lowerThisThread, startModuleWorker, WORKER_NICENESS } from '../vector/index.js';

interface Job<I, O> {
  readonly input: I;
  readonly resolve: (output: O) => void;
  readonly reject: (err: unknown) => void;
  readonly signal: AbortSignal | undefined;
  readonly onAbort: () => void;
}

type Reply<O> = { readonly output: O } | { readonly error: string };

export class WorkerPool<I, O> {
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Job<I, O>>();
  private readonly queue: Job<I, O>[] = [];
  private readonly started = new Set<Worker>();
  private closed = false;

  /**
   * `entry`: the worker module; `size`: most workers at once (at least 1);
   * `workerData`: what each worker is started with (node's `workerData`).
   */
  constructor(
    private readonly entry: URL,
    private readonly size: number,
    private readonly workerData?: unknown,
  ) {}

  /** Workers started and not yet gone (for specs and health). */
  get workers(): number {
    return this.started.size;
  }

  /**
   * Runs one job on a worker and resolves with its output. Rejects with
   * `signal.reason` once `signal` aborts (the job is dropped or its worker
   * terminated), with Unavailable once the pool is closed, and with an Error
   * carrying the worker's message when the job throws there or the worker
   * dies. REQUIRES: the caller holds something that keeps the process
   * alive until the job settles (a socket, the call's deadline timer): the
   * pool's threads never do.
   */
  run(input: I, signal?: AbortSignal): Promise<O> {
    if (this.closed) return Promise.reject(new Unavailable('The server is shutting down'));
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<O>((resolve, reject) => {
      const job: Job<I, O> = {
        input,
        signal,
        resolve: (output) => {
          signal?.removeEventListener('abort', job.onAbort);
          resolve(output);
        },
        reject: (err) => {
          signal?.removeEventListener('abort', job.onAbort);
          reject(err);
        },
        onAbort: () => this.abandon(job),
      };
      signal?.addEventListener('abort', job.onAbort, { once: true });
      this.queue.push(job);
      this.dispatch();
    });
  }

  /** Terminates every worker and fails every job waiting or running. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    const gone = new Unavailable('The server is shutting down');
    for (const job of this.queue.splice(0)) job.reject(gone);
    for (const job of this.busy.values()) job.reject(gone);
    this.busy.clear();
    this.idle.length = 0;
    const workers = [...this.started];
    this.started.clear();
    await Promise.all(workers.map((w) => w.terminate().catch(() => undefined)));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const worker = this.idle.pop() ?? (this.started.size < Math.max(1, this.size) ? this.spawn() : undefined);
      if (!worker) return;
      const job = this.queue.shift()!;
      this.busy.set(worker, job);
      worker.postMessage(job.input);
    }
  }

  private spawn(): Worker {
    const worker = startModuleWorker(this.entry, this.workerData);
    this.started.add(worker);
    worker.on('message', (reply: Reply<O>) => this.settle(worker, reply));
    worker.on('error', (err) => this.retire(worker, new Error(`worker failed: ${err.message}`, { cause: err })));
    worker.on('exit', (code) => this.retire(worker, new Error(`worker exited (code ${code})`)));
    // After the listeners: a 'message' listener refs the worker again.
    worker.unref();
    return worker;
  }

  private settle(worker: Worker, reply: Reply<O>): void {
    const job = this.busy.get(worker);
    if (!job) return;
    this.busy.delete(worker);
    if ('error' in reply) job.reject(new Error(reply.error));
    else job.resolve(reply.output);
    if (this.started.has(worker)) this.idle.push(worker);
    this.dispatch();
  }

  /** A worker that failed or exited: its job (if any) fails, and it is replaced when work waits. */
  private retire(worker: Worker, err: Error): void {
    if (!this.started.delete(worker)) return;
    const at = this.idle.indexOf(worker);
    if (at >= 0) this.idle.splice(at, 1);
    const job = this.busy.get(worker);
    this.busy.delete(worker);
    job?.reject(err);
    if (!this.closed) this.dispatch();
  }

  /** The job's signal aborted: drop it from the queue, or stop the worker running it. */
  private abandon(job: Job<I, O>): void {
    const reason: unknown = job.signal?.reason;
    const queued = this.queue.indexOf(job);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      job.reject(reason);
      return;
    }
    for (const [worker, running] of this.busy) {
      if (running !== job) continue;
      this.busy.delete(worker);
      this.started.delete(worker);
      // Not awaited: the job is answered at once, the thread goes away on its own.
      worker.terminate().catch(() => undefined);
      job.reject(reason);
      this.dispatch();
      return;
    }
  }
}

/**
 * The worker side: lowers this thread's priority (WORKER_NICENESS), then
 * answers each posted job with `handle`'s output, or with its error's
 * message. REQUIRES: running in a worker thread of a WorkerPool.
 */
export function serveJobs<I, O>(handle: (input: I) => O): void {
  const port = parentPort;
  if (!port) throw new Error('serveJobs runs only in a worker thread');
  lowerThisThread(WORKER_NICENESS);
  port.on('message', (input: I) => {
    let reply: Reply<O>;
    try {
      reply = { output: handle(input) };
    } catch (err) {
      reply = { error: err instanceof Error ? err.message : String(err) };
    }
    port.postMessage(reply);
  });
}
