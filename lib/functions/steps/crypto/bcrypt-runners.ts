/**
 * Where bcrypt's expensive rounds run (the `BcryptRunner` a call's
 * `run.bcrypt` wraps with its deadline, interpreter/call-budget.ts):
 *
 * - `BcryptWorkerPool`: worker threads (worker-pool.ts), one pool per
 *   StoredFunctions, so one per server, made lazily (no thread until the
 *   first hash) and closed with the server. Two workers at most by
 *   default, fewer on a one-core machine: a hash is 2^cost rounds of CPU,
 *   and more workers than cores would only take the request thread's core.
 *   This module is also the workers' entry: started with BCRYPT_WORKER as
 *   their `workerData`, it answers each job with the raw hash in one go.
 *   Holding the worker's thread is the point: the event loop is elsewhere,
 *   and the pool terminates the thread when the job's call runs out of time.
 * - `SLICED_BCRYPT`: on the event loop, a yield every half millisecond,
 *   where no pool is given (an engine embedded with no server, the step
 *   specs).
 */
import { availableParallelism } from 'node:os';
import { isMainThread, workerData } from 'node:worker_threads';
import type { BcryptJob, BcryptRunner } from '../../services.js';
import { serveJobs, WorkerPool } from '../../worker-pool.js';
import { bcryptRawSliced, bcryptRawSync } from './eks-blowfish.js';

/** The `workerData` the pool's threads start with. */
const BCRYPT_WORKER = 'eddydb:bcrypt-worker';

/** Workers when none is asked for: min(2, cores). */
export function defaultBcryptWorkers(): number {
  return Math.min(2, availableParallelism());
}

export class BcryptWorkerPool implements BcryptRunner {
  private readonly pool: WorkerPool<BcryptJob, Uint8Array>;

  constructor(size: number = defaultBcryptWorkers()) {
    this.pool = new WorkerPool(new URL(import.meta.url), size, BCRYPT_WORKER);
  }

  /** Worker threads running (none before the first hash). */
  get workers(): number {
    return this.pool.workers;
  }

  raw(job: BcryptJob, signal?: AbortSignal): Promise<Uint8Array> {
    return this.pool.run(job, signal);
  }

  /** Terminates the workers; hashes in progress fail with Unavailable. */
  close(): Promise<void> {
    return this.pool.close();
  }
}

/** The runner when none is supplied: sliced on the event loop. */
export const SLICED_BCRYPT: BcryptRunner = {
  raw: (job, signal) => bcryptRawSliced(job.key, job.salt, job.cost, () => signal?.throwIfAborted()),
};

if (!isMainThread && workerData === BCRYPT_WORKER) {
  serveJobs((job: BcryptJob) => new Uint8Array(bcryptRawSync(job.key, job.salt, job.cost)));
}
