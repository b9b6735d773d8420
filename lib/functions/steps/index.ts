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
// external (outbound HTTP and e-mail)
import { httpRequest } from './external/http-request.js';
import { swr } from './external/swr.js';
import { emailSend } from './external/email-send.js';

export const STEPS: readonly StepType<unknown>[] = [
  // read
  findAll,
  // write
  insert,
  // control
  ifStep, forEach, parallel, tryCatch, sleep, returnStep, validate, callFunction,
  // transactions
  createSavepoint, rollbackToSavepoint, releaseSavepoint,
  // external: HttpRequest and EmailSend reach outside ('outside'); SWR's HTTP call and cache do too but its
  // audit write takes part in a transaction, so it is a 'write' step (see external/swr.ts)
  httpRequest, swr, emailSend,
];

/** Steps by type name (a Map, so a type named like a prototype key finds nothing). */
export const STEP_TABLE: ReadonlyMap<string, StepType<unknown>> = new Map(STEPS.map((s) => [s.type, s]));

export { step, type CompiledStep, type Execution, type MemberNames, type MemberReader, type Returned, type Row, type StepAccess, type StepType } from './step.js';
