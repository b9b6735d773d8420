/**
 * The interpreter: runs compiled step lists over working records, on one
 * `CallState` per function call (session, parameters, budget, statistics,
 * the Return that ends it). Steps see it through the `Execution` interface
 * (steps/step.ts); each nested list with a ForEach frame gets its own view.
 *
 * A failing step becomes `StepFailed` with its index and type (the
 * innermost step that failed keeps its identity on the way out).
 *
 * Names in templates are looked up in the ForEach frames (innermost
 * first), then the parameters, then the step's current record. Record
 * values are stored values; they come out as wire values (a Tagged value as
 * its typed wrapper) so writes keep their types. Only own members are
 * followed, so no path reaches the prototype chain.
 */
import {
  isPlainObject,
  isTypedWrapper,
  Tagged,
  valueToWire,
  yieldToLoop,
  type Fields,
  type Session,
  type Value,
} from '../../engine/index.js';
import { InvalidInput, StepFailed } from '../../errors.js';
import { outboundPolicy, type OutboundPolicy } from '../../outbound/index.js';
import type { BcryptRunner, FunctionAi, FunctionEngine, KeyValueStore } from '../services.js';
import type { CompiledStep, Execution, Returned, Row, StepSettings } from '../steps/step.js';
import { resolveTemplate, type Template, type TemplateScope } from '../template.js';
import { boundedAi, boundedBcrypt, CallLimitExceeded, type CallBudget } from './call-budget.js';
import type { FunctionEnv } from './function-env.js';

export interface StageStat {
  stage: string;
  input_count: number;
  output_count: number;
  execution_time_ms: number;
}

/** What a call and the calls it makes share: the engine and the services its steps use. */
export interface CallServices {
  readonly engine: FunctionEngine;
  /** What `{{env.NAME}}` reads. */
  readonly env: FunctionEnv;
  readonly ai: FunctionAi;
  readonly bcrypt: BcryptRunner;
}

/** Calls another function by label (the runner supplies it: depth, transaction, parameters). */
export type NestedCaller = (
  label: string,
  params: Record<string, unknown> | undefined,
  caller: CallState,
) => Promise<Row[]>;

/** One function call's running state. */
export class CallState {
  returned: Returned | undefined;
  readonly stageStats: StageStat[] = [];
  stagesExecuted = 0;
  /** The language-model port, bounded by the call's wall time. */
  readonly ai: FunctionAi;
  /** The bcrypt runner, bounded by the call's wall time (a hash that would outlast the call is stopped). */
  readonly bcrypt: BcryptRunner;

  constructor(
    readonly services: CallServices,
    readonly session: Session,
    readonly params: Readonly<Record<string, unknown>>,
    readonly budget: CallBudget,
    readonly depth: number,
    readonly callNested: NestedCaller,
  ) {
    this.ai = boundedAi(services.ai, budget);
    this.bcrypt = boundedBcrypt(services.bcrypt, budget);
  }

  get transactional(): boolean {
    return this.session.transactionId !== undefined;
  }

  /** Runs the function's top-level steps, recording stage statistics. */
  runTopLevel(steps: readonly CompiledStep[], rows: readonly Row[]): Promise<Row[]> {
    return new FrameExecution(this, []).runList(steps, rows, true);
  }
}

class FrameExecution implements Execution {
  constructor(
    private readonly call: CallState,
    private readonly frames: readonly Row[],
  ) {}

  get session(): Session {
    return this.call.session;
  }

  get params(): Readonly<Record<string, unknown>> {
    return this.call.params;
  }

  get kv(): KeyValueStore {
    return this.call.services.engine.kv;
  }

  get transactional(): boolean {
    return this.call.transactional;
  }

  get ai(): FunctionAi {
    return this.call.ai;
  }

  get bcrypt(): BcryptRunner {
    return this.call.bcrypt;
  }

  settings(): StepSettings {
    return this.call.services.engine.settings();
  }

  outbound(): OutboundPolicy {
    return outboundPolicy(this.call.services.engine.settings());
  }

  now(): number {
    return this.call.services.engine.now();
  }

  env(name: string): string {
    return this.call.services.env.read(name);
  }

  resolve(template: Template, row?: Row): unknown {
    return template.kind === 'const' ? template.value : resolveTemplate(template, this.scope(row));
  }

  text(template: Template, row: Row | undefined, what: string): string {
    const value = this.resolve(template, row);
    if (typeof value !== 'string' || value === '')
      throw new InvalidInput(`'${what}' must resolve to a non-empty string`);
    return value;
  }

  scope(row?: Row): TemplateScope {
    const { frames, call } = this;
    return {
      lookup(path) {
        for (let i = frames.length - 1; i >= 0; i--) {
          const hit = lookupInRecord(frames[i], path);
          if (hit.found) return hit;
        }
        const param = lookupInParams(call.params, path);
        return param.found ? param : lookupInRecord(row, path);
      },
      param(name) {
        return Object.hasOwn(call.params, name) ? call.params[name] : null;
      },
      env(name) {
        return call.services.env.read(name);
      },
    };
  }

  runSteps(steps: readonly CompiledStep[], rows: readonly Row[], frame?: Row): Promise<Row[]> {
    const view = frame === undefined ? this : new FrameExecution(this.call, [...this.frames, frame]);
    return view.runList(steps, rows, false);
  }

  callFunction(label: string, params: Record<string, unknown> | undefined): Promise<Row[]> {
    return this.call.callNested(label, params, this.call);
  }

  checkRecords(count: number): void {
    this.call.budget.checkRecords(count);
  }

  isCallAbort(err: unknown): boolean {
    for (let cause: unknown = err, depth = 0; cause instanceof Error && depth < 16; cause = cause.cause, depth++) {
      if (cause instanceof CallLimitExceeded) return true;
    }
    return false;
  }

  finish(returned: Returned): void {
    this.call.returned ??= returned;
  }

  remainingMs(): number {
    return this.call.budget.remainingMs();
  }

  async sleep(ms: number): Promise<void> {
    const budget = this.call.budget;
    const remaining = budget.remainingMs();
    const wait = Math.min(ms, remaining);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (ms > remaining) budget.outOfTime();
    budget.checkTime();
  }

  async runList(steps: readonly CompiledStep[], rows: readonly Row[], topLevel: boolean): Promise<Row[]> {
    let current: readonly Row[] = rows;
    for (const compiled of steps) {
      if (this.call.returned) break;
      const started = performance.now();
      const inputCount = current.length;
      try {
        if (this.call.budget.tick()) await yieldToLoop();
        current = await compiled.spec.run(compiled.config, current, this);
        this.call.budget.checkRecords(current.length);
      } catch (err) {
        throw err instanceof StepFailed ? err : new StepFailed(compiled.index, compiled.spec.type, err);
      }
      if (topLevel) {
        this.call.stagesExecuted++;
        this.call.stageStats.push({
          stage: compiled.spec.type,
          input_count: inputCount,
          output_count: current.length,
          execution_time_ms: Math.round(performance.now() - started),
        });
      }
    }
    return [...current];
  }
}

type Found = { found: boolean; value: unknown };

const MISSING: Found = Object.freeze({ found: false, value: undefined });

/** Follows `path` inside a stored record. */
function lookupInRecord(record: Fields | undefined, path: readonly string[]): Found {
  if (record === undefined || !Object.hasOwn(record, path[0]!)) return MISSING;
  let current: Value | undefined = record[path[0]!];
  for (let i = 1; i < path.length; i++) {
    current = childOfValue(current, path[i]!);
    if (current === undefined) return MISSING;
  }
  return { found: true, value: current instanceof Tagged ? valueToWire(current, true) : current };
}

function childOfValue(value: Value | undefined, key: string): Value | undefined {
  if (Array.isArray(value)) return /^\d+$/.test(key) ? (value as readonly Value[])[Number(key)] : undefined;
  if (isPlainObject(value)) return Object.hasOwn(value, key) ? (value as Fields)[key] : undefined;
  return undefined;
}

/** Follows `path` inside the call parameters (wire JSON; an Object wrapper is stepped through). */
function lookupInParams(params: Readonly<Record<string, unknown>>, path: readonly string[]): Found {
  if (!Object.hasOwn(params, path[0]!)) return MISSING;
  let current: unknown = params[path[0]!];
  for (let i = 1; i < path.length; i++) {
    if (isTypedWrapper(current)) current = current.value;
    const key = path[i]!;
    if (Array.isArray(current) && /^\d+$/.test(key)) current = current[Number(key)];
    else if (isPlainObject(current) && Object.hasOwn(current, key)) current = current[key];
    else return MISSING;
    if (current === undefined) return MISSING;
  }
  return { found: true, value: current };
}
