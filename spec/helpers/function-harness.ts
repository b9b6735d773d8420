/**
 * Stored functions in process: a real Database in a temp dir, definitions
 * compiled by the real compiler, calls through the real interpreter. For
 * step specs (spec/functions/steps/*); the HTTP form is tested through
 * test-server.ts.
 */
import { Database, type Clock, type Fields, type Query } from '../../lib/engine/index.js';
import {
  callStoredFunction,
  compileDefinition,
  type BcryptRunner,
  type CallBounds,
  type CallResult,
  type CompiledFunction,
  type FunctionAi,
  type FunctionEnv,
} from '../../lib/functions/index.js';
import { removeDir, tempDir } from './temp-dir.js';

export const ALL: Query = Object.freeze({ sort: [], skip: 0, bypassCache: false, bypassRipple: false });

export class FunctionHarness {
  private readonly functions = new Map<string, CompiledFunction>();
  bounds: CallBounds | undefined;
  /** What `{{env.NAME}}` reads (checked at define and at each read); none by default. */
  env: FunctionEnv | undefined;
  /**
   * What the Chat and Embed steps call (lib/chat's functionAi over real providers); default none, offline embeddings.
   */
  ai: FunctionAi | undefined;
  /** Where BcryptHash and BcryptVerify run (a BcryptWorkerPool the spec closes); default sliced on the event loop. */
  bcrypt: BcryptRunner | undefined;

  private constructor(
    readonly db: Database,
    readonly dir: string,
  ) {}

  /** `clock`: the engine's time source (a ManualClock for TTLs and windows). */
  static async open(opts: { clock?: Clock } = {}): Promise<FunctionHarness> {
    const dir = tempDir('eddydb-fn-');
    return new FunctionHarness(await Database.open({ dataDir: dir, settings: { durability: 'none' }, ...opts }), dir);
  }

  async close(): Promise<void> {
    await this.db.close();
    removeDir(this.dir);
  }

  /** Compiles and registers a definition (`name` and `parameters` default). */
  define(def: Record<string, unknown>): CompiledFunction {
    const env = this.env;
    const fn = compileDefinition(
      { name: String(def.label), parameters: {}, ...def },
      env ? { envAllowed: (n) => env.allows(n) } : {},
    );
    this.functions.set(fn.label, fn);
    return fn;
  }

  call(label: string, params: unknown = {}): Promise<CallResult> {
    const fn = this.functions.get(label);
    if (!fn) throw new Error(`no function '${label}' defined`);
    return callStoredFunction(
      {
        engine: this.db,
        lookup: (l) => this.functions.get(l),
        ...(this.bounds ? { bounds: this.bounds } : {}),
        ...(this.env ? { env: this.env } : {}),
        ...(this.ai ? { ai: this.ai } : {}),
        ...(this.bcrypt ? { bcrypt: this.bcrypt } : {}),
      },
      fn,
      params,
    );
  }

  /** Defines a one-off function of `steps` and calls it. */
  async run(
    steps: unknown[],
    params: Record<string, unknown> = {},
    extra: Record<string, unknown> = {},
  ): Promise<CallResult> {
    const label = `run_${this.functions.size}`;
    const parameters = Object.fromEntries(Object.keys(params).map((k) => [k, { required: false }]));
    this.define({ label, parameters, functions: steps, ...extra });
    return this.call(label, params);
  }

  /** The committed records of a collection (empty when it does not exist). */
  records(collection: string): Fields[] {
    return [...this.db.records.scan(collection)];
  }
}

export { rejection } from './rejection.js';
