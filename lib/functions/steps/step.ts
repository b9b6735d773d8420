/**
 * The step interface: what every stored-function step type is, as data.
 *
 * How to write a step
 * -------------------
 * 1. A step type is a row of its family's module under
 *    `lib/functions/steps/` (read.ts, write.ts, update.ts, records.ts,
 *    shaping.ts, control.ts, kv.ts, concurrency.ts; external/ for HTTP,
 *    e-mail and language models; crypto/ for crypto and encoding), one
 *    exported `StepType` each:
 *
 *      export const findAll = step<{ collection: Template }>({
 *        type: 'FindAll',
 *        access: 'read',                  // 'none' | 'read' | 'write' | 'outside'
 *        compile: (members) => ({ collection: members.template('collection') }),
 *        run: (config, rows, run) => run.session.find(run.text(config.collection, rows[0], 'collection'), ALL),
 *      });
 *
 *    (FindAll in read.ts and Insert in write.ts are the two worked examples.)
 *
 * 2. Add it to the `STEPS` table in `steps/index.ts`. Nothing else: the
 *    compiler finds it by `type`, the interpreter runs it.
 * 3. `compile` runs at SAVE time and reads the step's members through the
 *    `MemberReader`: every error it throws names the member's path
 *    (`functions[2].then_functions[0].collection: ...`). Parse everything you
 *    can here (templates, filters, schemas, nested step lists with
 *    `members.steps(...)`), so a bad definition is a 400 at save, never a 500
 *    at call time. Other clients' spellings of a member are aliases:
 *    `members.template(['record_ids', 'ids'])` reads the first one present.
 *    Unknown members are tolerated (clients send extras). Field names a step
 *    writes or reads (`output_field`, `field`...) go through
 *    `members.fieldPath(...)`, which refuses `__proto__`, `constructor` and
 *    `prototype`: a step must never build an object key from user input
 *    unchecked. Members several families share are read by members.ts.
 * 4. `run` gets the compiled config, the current working records (bare
 *    engine `Fields`, never mutate them: build new objects) and the
 *    `Execution` of the running call. It returns the next working records.
 *    Resolve templates with `run.resolve(template, row)` (any JSON value; a
 *    string that is exactly one placeholder keeps its JSON type, Parameter
 *    refs keep typed wrappers) or `run.text(template, row)` (must be a
 *    string). `row` is the record whose fields `{{field}}` may name (usually
 *    `rows[0]`, or each row for per-record steps). Read and write records
 *    only through `run.session` (auto-commit or the function's transaction,
 *    the step never asks which); the few services a step needs beyond it
 *    (`kv`, `settings()`, `outbound()`, `ai`, `bcrypt`, `callFunction`) are
 *    named on the Execution. Throw `DbError`s (`InvalidInput`,
 *    `NotFound`...): the interpreter wraps them into `StepFailed` with the
 *    step's index and type. Conditions and other evaluators get the same
 *    names through `run.scope(row)`. working-records.ts reads inputs and
 *    writes `output_field` the way every family does.
 * 5. `access` says what the step touches. `'outside'` (HTTP, e-mail, key-value,
 *    anything a rollback cannot undo) and steps flagged `transactional: false`
 *    make a transactional function fail at save time.
 * 6. Nested lists run through `run.runSteps(steps, rows, frame?)`; `frame` is
 *    a record whose fields shadow the parameters for those steps (ForEach).
 * 7. Test it in `spec/functions/steps/<family>.spec.ts` through
 *    `callStoredFunction` over a real engine (spec/helpers/function-harness.ts),
 *    and the HTTP form once in spec/http/functions*.spec.ts.
 */
import type { Fields, Session, Settings } from '../../engine/index.js';
import type { OutboundPolicy } from '../../outbound/index.js';
import type { BcryptRunner, FunctionAi, KeyValueStore } from '../services.js';
import type { Template, TemplateScope } from '../template.js';

/** A working record: bare engine fields, flowing from step to step. */
export type Row = Fields;

/** What a step touches; decides whether a transactional function may hold it. */
export type StepAccess = 'none' | 'read' | 'write' | 'outside';

/** A compiled step: its type entry, its parsed config and where it sits in the definition. */
export interface CompiledStep {
  readonly spec: StepType<unknown>;
  readonly config: unknown;
  /** `functions[2].then_functions[0]`: for errors. */
  readonly path: string;
  /** Index inside its own list (operation_index of a failure). */
  readonly index: number;
}

/** Reads one step's members at save time. Every error names `<path>.<member>`. */
export interface MemberReader {
  /** Path of the step being read (`functions[1]`). */
  readonly path: string;
  /** True when any of the names is present (not undefined). */
  has(names: MemberNames): boolean;
  /** The raw member value (first alias present), undefined when absent. */
  raw(names: MemberNames): unknown;
  /** A required member compiled as a template (placeholders, Parameter refs). */
  template(names: MemberNames): Template;
  optionalTemplate(names: MemberNames): Template | undefined;
  /** A literal string (no placeholders), e.g. a field name or a savepoint name. */
  string(names: MemberNames): string;
  optionalString(names: MemberNames): string | undefined;
  optionalBoolean(names: MemberNames): boolean | undefined;
  /** A literal non-negative integer. */
  optionalInteger(names: MemberNames, min: number, max: number): number | undefined;
  /** A literal field name or dotted path (`a.b`), split; prototype keys and empty segments refused. */
  fieldPath(names: MemberNames): readonly string[];
  optionalFieldPath(names: MemberNames): readonly string[] | undefined;
  /** A literal array of strings. */
  optionalStringList(names: MemberNames): string[] | undefined;
  /** A nested step list, compiled (required, may be empty). */
  steps(names: MemberNames): readonly CompiledStep[];
  optionalSteps(names: MemberNames): readonly CompiledStep[] | undefined;
  /**
   * The `collection` member of the step written last before this one (in
   * the definition's text, nested lists included), compiled; undefined when
   * there is none. For steps a client sends without a collection (the Rust
   * client's BatchDelete).
   */
  precedingCollection(): Template | undefined;
  /** An InvalidInput naming `<path>.<member>` (or the step when no member). */
  fail(message: string, member?: string): never;
  /** True when the function runs as one transaction (save-time checks of savepoint steps). */
  readonly transactional: boolean;
}

/** A member's name, or its spellings in order of preference (canonical first). */
export type MemberNames = string | readonly string[];

/** Why the call stopped early: a Return step's body and HTTP status. */
export interface Returned {
  readonly fields: unknown;
  readonly statusCode: number;
}

/** The settings a step reads: batch bounds, the bcrypt cost limit, the e-mail providers. */
export type StepSettings = Pick<
  Settings,
  | 'max_batch_size'
  | 'function_bcrypt_max_cost'
  | 'sendgrid_api_url'
  | 'smtp_host'
  | 'smtp_port'
  | 'smtp_secure'
  | 'smtp_user'
  | 'smtp_password'
>;

/** The running call, as a step sees it. */
export interface Execution {
  /** Statements: auto-commit, or the function's transaction when it is transactional. */
  readonly session: Session;
  /** Call parameters after defaults (wire JSON values, typed wrappers kept). */
  readonly params: Readonly<Record<string, unknown>>;
  /** The engine's key-value store: durable at once, never rolled back with a transaction. */
  readonly kv: KeyValueStore;
  /** The settings steps read, read at each use (a PUT /api/config applies to the next step). */
  settings(): StepSettings;
  /** Where outbound requests may go (the host settings and the proxy variables), read at each use. */
  outbound(): OutboundPolicy;
  /** Milliseconds since the epoch, from the engine's injectable clock. */
  now(): number;
  /**
   * An allow-listed server environment variable (what `{{env.NAME}}` reads); InvalidInput naming it when refused or
   * unset.
   */
  env(name: string): string;
  /** A template's value for `row` (wire JSON: Tagged field values become typed wrappers). */
  resolve(template: Template, row?: Row): unknown;
  /** The names a template sees for `row` (ForEach frames, parameters, the row): for conditions and other evaluators. */
  scope(row?: Row): TemplateScope;
  /** A template's value that must be a string (else a 400 naming `what`). */
  text(template: Template, row: Row | undefined, what: string): string;
  /** Runs a nested step list over `rows`; `frame` fields shadow the parameters inside it. */
  runSteps(steps: readonly CompiledStep[], rows: readonly Row[], frame?: Row): Promise<Row[]>;
  /** Calls another stored function (depth-checked); `params` undefined inherits this call's. */
  callFunction(label: string, params: Record<string, unknown> | undefined): Promise<Row[]>;
  /** Ends the call after the current step with this body and status (Return). */
  finish(returned: Returned): void;
  /** Milliseconds left of the call's wall time (steps that wait on the outside bound their timeouts by it). */
  remainingMs(): number;
  /** Waits `ms` on the clock's time, bounded by the call's remaining wall time. */
  sleep(ms: number): Promise<void>;
  /** Throws the call's record-limit error when `count` working records would be too many (loops that gather). */
  checkRecords(count: number): void;
  /** True when `err` ends the whole call (a bound was passed): TryCatch and Parallel must not swallow it. */
  isCallAbort(err: unknown): boolean;
  /** True when writes are staged in one transaction. */
  readonly transactional: boolean;
  /**
   * Language models and embeddings (Chat, Embed), bounded by the call's remaining wall time; failures are classified
   * `ProviderFailed`.
   */
  readonly ai: FunctionAi;
  /** Where bcrypt's rounds run (the server's worker threads), bounded by the call's remaining wall time. */
  readonly bcrypt: BcryptRunner;
}

/** One step type: its name, what it touches, and its save-time and run-time halves. */
export interface StepType<C> {
  readonly type: string;
  readonly access: StepAccess;
  /** False for steps that cannot take part in a transaction even though they only read or write. Default true. */
  readonly transactional?: boolean;
  /**
   * Members that may hold key material (a JWT secret, an AES key, an API key,
   * request headers): shown as `[redacted]` to callers who are not admins
   * when a definition is read back (definitions/redact.ts).
   */
  readonly secretMembers?: readonly string[];
  compile(members: MemberReader): C;
  run(config: C, rows: readonly Row[], run: Execution): Promise<readonly Row[]> | readonly Row[];
}

/** Widens a concrete step type for the table. */
export function step<C>(type: StepType<C>): StepType<unknown> {
  return type as StepType<unknown>;
}
