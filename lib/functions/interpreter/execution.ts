/**
 * The interpreter: runs compiled step lists over working records, on one
 * `CallState` per function call (session, parameters, budget, statistics,
 * the Return that ends it). Steps see it through the `Execution` interface
 * (steps/step.ts); each nested list with a ForEach frame gets its own view.
 *
 * A failing step becomes `StepFailed` with its index and type (the
 * innermost step that failed keeps its identity on the way out).
 */
import { yieldToLoop } from '../../engine/index.js';
import { InvalidInput, StepFailed } from '../../errors.js';
import type { Session } from '../../engine/index.js';
import { outboundPolicy, type OutboundPolicy } from '../../outbound/index.js';
import type { CompiledStep, Execution, Returned, Row, StepSettings } from '../steps/step.js';
import { resolveTemplate, type Template, type TemplateScope } from '../template.js';
import { CallLimitExceeded, type CallBudget } from './call-limits.js';
import type { FunctionEnv } from './function-env.js';
import type { BcryptRunner, FunctionAi, FunctionEngine, KeyValueStore } from '../services.js';
import { boundedAi, withinBudget } from './bounded-ai.js';
import { lookupInParams, lookupInRecord } from './scope.js';

export interface StageStat {
  stage: string;
  input_count: number;
  output_count: number;
  execution_time_ms: number;
}

/** Calls another function by label (the runner supplies it: depth, transaction, parameters). */
export type NestedCaller = (label: string, params: Record<string, unknown> | undefined, caller: CallState) => Promise<Row[]>;

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
    readonly engine: FunctionEngine,
    readonly session: Session,
    readonly params: Readonly<Record<string, unknown>>,
    readonly budget: CallBudget,
    readonly depth: number,
    readonly callNested: NestedCaller,
    readonly environment: FunctionEnv,
    port: FunctionAi,
    bcrypt: BcryptRunner,
  ) {
    this.ai = boundedAi(port, budget);
    this.bcrypt = { raw: (job) => withinBudget(budget, (signal) => bcrypt.raw(job, signal)) };
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
  constructor(private readonly call: CallState, private readonly frames: readonly Row[]) {}

  get session(): Session { return this.call.session; }
  get params(): Readonly<Record<string, unknown>> { return this.call.params; }
  get kv(): KeyValueStore { return this.call.engine.kv; }
  get transactional(): boolean { return this.call.transactional; }
  get ai(): FunctionAi { return this.call.ai; }
  get bcrypt(): BcryptRunner { return this.call.bcrypt; }

  settings(): StepSettings {
    return this.call.engine.settings();
  }

  outbound(): OutboundPolicy {
    return outboundPolicy(this.call.engine.settings());
  }

  now(): number {
    return this.call.engine.now();
  }

  env(name: string): string {
    return this.call.environment.read(name);
  }

  resolve(template: Template, row?: Row): unknown {
    return template.k === 'const' ? template.v : resolveTemplate(template, this.scope(row));
  }

  text(template: Template, row: Row | undefined, what: string): string {
    const v = this.resolve(template, row);
    if (typeof v !== 'string' || v === '') throw new InvalidInput(`'${what}' must resolve to a non-empty string`);
    return v;
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
        return call.environment.read(name);
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
    for (let e: unknown = err, i = 0; e instanceof Error && i < 16; e = e.cause, i++) {
      if (e instanceof CallLimitExceeded) return true;
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
    for (const s of steps) {
      if (this.call.returned) break;
      const started = performance.now();
      const inputCount = current.length;
      try {
        if (this.call.budget.tick()) await yieldToLoop();
        current = await s.spec.run(s.config, current, this);
        this.call.budget.checkRecords(current.length);
      } catch (err) {
        throw err instanceof StepFailed ? err : new StepFailed(s.index, s.spec.type, err);
      }
      if (topLevel) {
        this.call.stagesExecuted++;
        this.call.stageStats.push({
          stage: s.spec.type, input_count: inputCount, output_count: current.length,
          execution_time_ms: Math.round(performance.now() - started),
        });
      }
    }
    return [...current];
  }
}
