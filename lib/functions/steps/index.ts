/**
 * The step table: every step type a definition may name, by `type`. One
 * module per step (see step.ts, "How to write a step"); adding a step is a
 * file and a line here.
 */
import type { StepType } from './step.js';
import { findAll } from './read/find-all.js';
import { insert } from './write/insert.js';

export const STEPS: readonly StepType<unknown>[] = [
  // read
  findAll,
  // write
  insert,
];

/** Steps by type name (a Map, so a type named like a prototype key finds nothing). */
export const STEP_TABLE: ReadonlyMap<string, StepType<unknown>> = new Map(STEPS.map((s) => [s.type, s]));

export { step, type CompiledStep, type Execution, type MemberNames, type MemberReader, type Returned, type Row, type StepAccess, type StepType } from './step.js';
