/**
 * The worker thread of the bcrypt pool (bcrypt-pool.ts): computes each
 * posted job's raw hash in one go. Holding this thread is the point: the
 * event loop is elsewhere, and the pool terminates the thread when the
 * job's call runs out of time.
 */
import { serveJobs } from '../../../workers/worker-pool.js';
import type { BcryptJob } from '../../../services.js';
import { bcryptRawSync } from './eks-blowfish.js';

serveJobs((job: BcryptJob) => new Uint8Array(bcryptRawSync(job.key, job.salt, job.cost)));
