/**
 * One stored-function call, end to end (product.md call rules 1-9):
 * parameters bound (defaults, missing required and unknown names refused),
 * the steps run on auto-commit or on one transaction (committed on success,
 * rolled back on any error), nested calls depth-checked, and the records,
 * statistics and any Return handed back.
 *
 * System-supplied parameters (exempt from the unknown-name check): the
 * `:name` segments of a path-routed function's `http_path`.
 */
import { InvalidInput, NotFound } from '../../errors.js';
import { fieldsFromWire, isPlainObject, type Session, type TransactionSession } from '../../engine/index.js';
import type { CompiledFunction } from '../compiler/index.js';
import type { Returned, Row } from '../steps/step.js';
import { boundsFromSettings, CallBudget, CallLimitExceeded, type CallBounds } from './call-budget.js';
import { CallState, type CallServices, type StageStat } from './execution.js';
import { NO_FUNCTION_ENV, type FunctionEnv } from './function-env.js';
import { NO_FUNCTION_AI, type BcryptRunner, type FunctionAi, type FunctionEngine } from '../services.js';
import { SLICED_BCRYPT } from '../steps/index.js';

/** Transactions of stored functions are owned by no key: only admins could see them, and they live one call. */
export const FUNCTION_TRANSACTION_OWNER = '\u0000function';

export interface CallEnvironment {
  /** The engine the call runs on (a Database satisfies it). */
  readonly engine: FunctionEngine;
  /** A compiled function by id or label, undefined when there is none. */
  lookup(idOrLabel: string): CompiledFunction | undefined;
  /** Per-call bounds; default: the `function_*` settings at the start of the call. */
  readonly bounds?: CallBounds;
  /** What `{{env.NAME}}` reads; default: nothing. */
  readonly env?: FunctionEnv;
  /** What the Chat and Embed steps call; default: no provider, the offline embedder. */
  readonly ai?: FunctionAi;
  /** Where BcryptHash and BcryptVerify run their rounds; default: sliced on the event loop. */
  readonly bcrypt?: BcryptRunner;
}

export interface CallStats {
  input_count: number;
  output_count: number;
  execution_time_ms: number;
  stages_executed: number;
  stage_stats: StageStat[];
}

export interface CallResult {
  readonly records: Row[];
  /** Set when a Return step ended the call: its body and HTTP status. */
  readonly returned?: Returned;
  readonly stats: CallStats;
}

/** Calls `fn` with the request body's parameter values. */
export async function callStoredFunction(
  environment: CallEnvironment,
  fn: CompiledFunction,
  body: unknown,
): Promise<CallResult> {
  const started = performance.now();
  const params = bindParameters(fn, body);
  const { engine } = environment;
  const budget = new CallBudget(environment.bounds ?? boundsFromSettings(engine.settings()));
  const services: CallServices = {
    engine,
    env: environment.env ?? NO_FUNCTION_ENV,
    ai: environment.ai ?? NO_FUNCTION_AI,
    bcrypt: environment.bcrypt ?? SLICED_BCRYPT,
  };
  const call = await runCall(services, (label) => environment.lookup(label), fn, params, undefined, 1, budget);
  const stats: CallStats = {
    input_count: 0,
    output_count: call.records.length,
    execution_time_ms: Math.round(performance.now() - started),
    stages_executed: call.state.stagesExecuted,
    stage_stats: call.state.stageStats,
  };
  return { records: call.records, stats, ...(call.state.returned ? { returned: call.state.returned } : {}) };
}

/** Rules 1-2: declared defaults fill omitted parameters; missing required and unknown names are a 400. */
export function bindParameters(fn: CompiledFunction, body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) body = {};
  if (!isPlainObject(body)) throw new InvalidInput('Function parameters must be a JSON object');
  const out: Record<string, unknown> = Object.create(null);
  for (const [name, value] of Object.entries(body)) {
    if (!fn.parameters.has(name) && !fn.systemParameters.has(name))
      throw new InvalidInput(`Unknown parameter '${name}'`);
    out[name] = value;
  }
  fillDeclared(fn, out);
  return out;
}

function fillDeclared(fn: CompiledFunction, out: Record<string, unknown>): void {
  for (const [name, spec] of fn.parameters) {
    if (Object.hasOwn(out, name) && out[name] !== undefined) continue;
    if (spec.default !== undefined) out[name] = spec.default;
    else if (spec.required) throw new InvalidInput(`Missing required parameter '${name}'`);
  }
}

/** Parameters a CallFunction without `params` passes on: the caller's, for the names the callee declares. */
function inheritParameters(
  fn: CompiledFunction,
  callerParams: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  for (const name of [...fn.parameters.keys(), ...fn.systemParameters]) {
    if (Object.hasOwn(callerParams, name)) out[name] = callerParams[name];
  }
  fillDeclared(fn, out);
  return out;
}

async function runCall(
  services: CallServices,
  lookup: CallEnvironment['lookup'],
  fn: CompiledFunction,
  params: Record<string, unknown>,
  outer: Session | undefined,
  depth: number,
  budget: CallBudget,
): Promise<{ records: Row[]; state: CallState }> {
  const { engine } = services;
  const nested = async (
    label: string,
    given: Record<string, unknown> | undefined,
    caller: CallState,
  ): Promise<Row[]> => {
    const max = engine.settings().max_function_call_depth;
    if (caller.depth + 1 > max)
      throw new CallLimitExceeded(`Maximum function call depth (${max}) exceeded`, 'INVALID_INPUT');
    const callee = lookup(label);
    if (!callee) throw new NotFound(`Function '${label}' not found`);
    const calleeParams = given === undefined ? inheritParameters(callee, caller.params) : bindParameters(callee, given);
    const inner = caller.transactional ? caller.session : undefined;
    if (inner && !callee.transactionSafe) {
      throw new InvalidInput(`Function '${callee.label}' has steps that cannot take part in the caller's transaction`);
    }
    const result = await runCall(services, lookup, callee, calleeParams, inner, caller.depth + 1, budget);
    return result.state.returned ? returnedRows(result.state.returned) : result.records;
  };

  // Inside a caller's transaction the callee joins it; otherwise a transactional callee opens its own.
  if (outer !== undefined || !fn.transaction) {
    const state = new CallState(services, outer ?? engine.session(undefined), params, budget, depth, nested);
    return { records: await state.runTopLevel(fn.steps, []), state };
  }
  // The transaction outlives the call's time bound, so it cannot expire under a call still running.
  const timeoutSecs = Math.min(86_400, Math.ceil(budget.bounds.maxMs / 1000) + 60);
  const transaction = engine.transactions.begin(fn.transaction.isolationLevel, timeoutSecs, FUNCTION_TRANSACTION_OWNER);
  const session: TransactionSession = engine.session(undefined, transaction.id);
  const state = new CallState(services, session, params, budget, depth, nested);
  let records: Row[];
  try {
    records = await state.runTopLevel(fn.steps, []);
  } catch (err) {
    discard(session);
    throw err;
  }
  await session.commit();
  return { records, state };
}

function discard(session: TransactionSession): void {
  try {
    session.rollback();
  } catch {
    // Already gone (expired or committed): nothing staged survives either way.
  }
}

/** A callee's Return seen from its caller: its fields as one working record. */
function returnedRows(returned: Returned): Row[] {
  return isPlainObject(returned.fields) ? [fieldsFromWire(returned.fields)] : [];
}
