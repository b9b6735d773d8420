/**
 * Where bcrypt's expensive rounds run when no worker pool is given (an
 * engine embedded with no server, the step specs): sliced on the event
 * loop, a yield every half millisecond. The server gives each of its
 * StoredFunctions a pool of worker threads instead (bcrypt-pool.ts). Either
 * way the call's deadline aborts the work (interpreter/bounded-ai.ts
 * `withinBudget`).
 */
import type { BcryptRunner } from '../../../services.js';
import { bcryptRawSliced } from './eks-blowfish.js';

/** The runner when none is supplied: sliced on the event loop. */
export const SLICED_BCRYPT: BcryptRunner = {
  raw: (job, signal) => bcryptRawSliced(job.key, job.salt, job.cost, () => signal?.throwIfAborted()),
};
