/**
 * The step table: every step type a definition may name, by `type`. One
 * module per step (see step.ts, "How to write a step"); adding a step is a
 * file and a line here.
 */
import type { StepType } from './step.js';
import { findAll } from './read/find-all.js';
import { insert } from './write/insert.js';
import { ifStep } from './control/if.js';
import { forEach } from './control/for-each.js';
import { parallel } from './control/parallel.js';
import { tryCatch } from './control/try-catch.js';
import { sleep } from './control/sleep.js';
import { returnStep } from './control/return.js';
import { validate } from './control/validate.js';
import { callFunction } from './control/call-function.js';
import { createSavepoint, releaseSavepoint, rollbackToSavepoint } from './control/savepoints.js';
import { kvGet } from './kv/kv-get.js';
import { kvSet } from './kv/kv-set.js';
import { kvDelete } from './kv/kv-delete.js';
import { kvExists } from './kv/kv-exists.js';
import { kvQuery } from './kv/kv-query.js';
import { idempotencyClaim } from './concurrency/idempotency-claim.js';
import { rateLimit } from './concurrency/rate-limit.js';
import { lockAcquire } from './concurrency/lock-acquire.js';
import { lockRelease } from './concurrency/lock-release.js';

export const STEPS: readonly StepType<unknown>[] = [
  // read
  findAll,
  // write
  insert,
  // control
  ifStep, forEach, parallel, tryCatch, sleep, returnStep, validate, callFunction,
  // transactions
  createSavepoint, rollbackToSavepoint, releaseSavepoint,
  // key-value (the engine's KV store, durable; never part of a transaction)
  kvGet, kvSet, kvDelete, kvExists, kvQuery,
  // caching and concurrency (atomic check-and-set in the engine's single writer)
  idempotencyClaim, rateLimit, lockAcquire, lockRelease,
];

/** Steps by type name (a Map, so a type named like a prototype key finds nothing). */
export const STEP_TABLE: ReadonlyMap<string, StepType<unknown>> = new Map(STEPS.map((s) => [s.type, s]));

export { step, type CompiledStep, type Execution, type MemberNames, type MemberReader, type Returned, type Row, type StepAccess, type StepType } from './step.js';
