/**
 * bcrypt on worker threads (bcrypt-worker.ts over workers/worker-pool.ts):
 * one per StoredFunctions, so one per server, made lazily (no thread until
 * the first hash) and closed with the server. Two workers at most by
 * default, fewer on a one-core machine: a hash is 2^cost rounds of CPU, and
 * more workers than cores would only take the request thread's core.
 */
import { availableParallelism } from 'node:os';
import { workerModule, WorkerPool } from '../../../workers/worker-pool.js';
import type { BcryptJob, BcryptRunner } from '../../../services.js';

/** Workers when none is asked for: min(2, cores). */
export function defaultBcryptWorkers(): number {
  return Math.min(2, availableParallelism());
}

export class BcryptWorkerPool implements BcryptRunner {
  private readonly pool: WorkerPool<BcryptJob, Uint8Array>;

  constructor(size: number = defaultBcryptWorkers()) {
    this.pool = new WorkerPool(workerModule(import.meta.url, 'bcrypt-worker'), size);
  }

  /** Worker threads running now (none before the first hash). */
  get workers(): number { return this.pool.workers; }

  raw(job: BcryptJob, signal?: AbortSignal): Promise<Uint8Array> {
    return this.pool.run(job, signal);
  }

  /** Terminates the workers; hashes in progress fail with Unavailable. */
  close(): Promise<void> {
    return this.pool.close();
  }
}
