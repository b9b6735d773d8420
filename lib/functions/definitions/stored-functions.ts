/**
 * The stored-function service the transports call: definitions (the
 * registry) and calls by id, label or routed path, with the engine and the
 * call bounds. It owns the bcrypt worker pool its calls hash on (one per
 * service, so one per server; no thread until the first hash); `close`
 * stops it.
 *
 * Which path-routed function answers `/api/route/<path>` (protocol.md 2.11)
 * is decided by the matcher of path-routes.ts: the method must match, the
 * segment counts must match, `:name` segments become parameters, and the
 * pattern with the fewest placeholders wins.
 */
import { NotFound } from '../../errors.js';
import type { CompiledFunction } from '../compiler/index.js';
import {
  callStoredFunction,
  functionEnv,
  type CallBounds,
  type CallEnvironment,
  type CallResult,
} from '../interpreter/index.js';
import { matchRoute, mergeRouteParams, type RouteCandidate } from '../path-routes.js';
import type { FunctionAi, FunctionEngine } from '../services.js';
import { BcryptWorkerPool } from '../steps/index.js';
import { FunctionRegistry, type RegistryWarn } from './registry.js';

/** The environment functions may read: names allowed at startup, and where values come from. */
export interface FunctionEnvironmentOptions {
  /**
   * Names allowed for the life of the process (`EDDYDB_FUNCTION_ENV`); the setting `function_env_allowlist` adds more.
   */
  readonly allow?: readonly string[];
  /** The variables (the server passes `process.env`); default none. */
  readonly variables?: Readonly<Record<string, string | undefined>>;
}

/** Told of every call by id, label or routed path once it ends (the server's metrics). Must not throw. */
export interface FunctionCallObserver {
  /** `label`: the function's label (never its id); `failed`: the call threw. */
  called(label: string, seconds: number, failed: boolean): void;
}

export class StoredFunctions {
  readonly registry: FunctionRegistry;
  private readonly env: CallEnvironment;
  private readonly bcrypt: BcryptWorkerPool;
  private readonly observe: FunctionCallObserver | undefined;

  /**
   * `ai`: what the Chat and Embed steps call (the server adapts lib/chat's providers); default none, offline
   * embeddings.
   * `bcryptWorkers`: the most worker threads BcryptHash and BcryptVerify use at once (default min(2, cores)).
   * `observe`: told of each call's label, duration and outcome.
   */
  constructor(
    engine: FunctionEngine,
    opts: {
      warn?: RegistryWarn;
      bounds?: CallBounds;
      environment?: FunctionEnvironmentOptions;
      ai?: FunctionAi;
      bcryptWorkers?: number;
      observe?: FunctionCallObserver;
    } = {},
  ) {
    this.observe = opts.observe;
    // `{{env.NAME}}`: the startup list plus the setting, checked at save and at each read.
    const environment = functionEnv({
      startup: opts.environment?.allow ?? [],
      current: () => engine.settings().function_env_allowlist,
      variables: opts.environment?.variables ?? {},
    });
    this.registry = new FunctionRegistry(engine, opts.warn, { envAllowed: (name) => environment.allows(name) });
    const registry = this.registry;
    this.bcrypt = new BcryptWorkerPool(opts.bcryptWorkers);
    this.env = {
      engine,
      bcrypt: this.bcrypt,
      env: environment,
      lookup: (idOrLabel) => (registry.find(idOrLabel) ? registry.compiled(idOrLabel) : undefined),
      ...(opts.bounds ? { bounds: opts.bounds } : {}),
      ...(opts.ai ? { ai: opts.ai } : {}),
    };
  }

  /** Stops the bcrypt workers: a hash still running fails with Unavailable (503). */
  close(): Promise<void> {
    return this.bcrypt.close();
  }

  /** POST /api/functions/{idOrLabel}: `body` is the parameter values. */
  call(idOrLabel: string, body: unknown): Promise<CallResult> {
    return this.run(this.registry.compiled(idOrLabel), body);
  }

  /** ANY /api/route/{path}: path parameters, overridden by body members of the same name. */
  callRoute(method: string, path: string, body: unknown): Promise<CallResult> {
    const hit = findRoute(this.registry.routed(), method, path);
    if (!hit) throw new NotFound(`No function routed at ${method} /${path.replace(/^\/+/, '')}`);
    return this.run(hit.fn, mergeRouteParams(hit.params, body));
  }

  /** Calls `fn`, and tells the observer how long it took and whether it failed. */
  private run(fn: CompiledFunction, params: unknown): Promise<CallResult> {
    const observe = this.observe;
    if (!observe) return callStoredFunction(this.env, fn, params);
    const started = performance.now();
    const running = callStoredFunction(this.env, fn, params);
    const ended = (failed: boolean) => observe.called(fn.label, (performance.now() - started) / 1000, failed);
    running.then(
      () => ended(false),
      () => ended(true),
    );
    return running;
  }
}

export interface RouteHit {
  readonly fn: CompiledFunction;
  /** Path parameters, decoded. */
  readonly params: Readonly<Record<string, string>>;
}

export function findRoute(functions: readonly CompiledFunction[], method: string, path: string): RouteHit | undefined {
  const candidates: RouteCandidate<CompiledFunction>[] = [];
  for (const fn of functions)
    if (fn.route) candidates.push({ method: fn.route.method, pattern: fn.route.pattern, value: fn });
  const hit = matchRoute(candidates, method, path);
  return hit && { fn: hit.value, params: hit.params };
}
