/**
 * Where bcrypt's expensive rounds run, as the BcryptHash and BcryptVerify
 * steps see it (`x.bcrypt`). The server gives each of its StoredFunctions a
 * pool of worker threads (bcrypt-pool.ts), so a hash never takes the event
 * loop's time; without one (an engine embedded with no server, the step
 * specs) the rounds run sliced on the event loop, a yield every half
 * millisecond. Either way the call's deadline aborts the work
 * (interpreter/bounded-ai.ts `withinBudget`).
 */
import { bcryptRawSliced } from './eks-blowfish.js';

/** One bcrypt computation: the key (the password's UTF-8 bytes and a NUL, at most 72 bytes), a 16-byte salt, the cost. */
export interface BcryptJob {
  readonly key: Uint8Array;
  readonly salt: Uint8Array;
  readonly cost: number;
}

export interface BcryptRunner {
  /** The 23 raw hash bytes. Rejects with `signal.reason` once `signal` aborts; the work stops or is abandoned. */
  raw(job: BcryptJob, signal?: AbortSignal): Promise<Uint8Array>;
}

/** The runner when none is supplied: sliced on the event loop. */
export const SLICED_BCRYPT: BcryptRunner = {
  raw: (job, signal) => bcryptRawSliced(job.key, job.salt, job.cost, () => signal?.throwIfAborted()),
};
