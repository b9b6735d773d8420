/**
 * The save-time compiler: a definition (product.md "Stored function
 * definition", protocol.md 4.1) becomes a `CompiledFunction`, or an
 * InvalidInput naming the path of what is wrong
 * (`functions[2].then_functions[0]: unknown step type 'Qurey'`).
 *
 * Steps are looked up in the STEPS table and read their own members; the
 * compiler checks the definition's own members, the nesting and size
 * bounds, and that a transactional function holds only steps that can take
 * part in its transaction.
 */
import { InvalidInput } from '../../errors.js';
import { invalidAt } from '../definition-path.js';
import { isIsolationLevel, isPlainObject, type IsolationLevel } from '../../engine/index.js';
import { MAX_DEFINITION_STEPS, MAX_STEP_NESTING } from '../limits.js';
import { STEP_TABLE } from '../steps/index.js';
import type { CompiledStep } from '../steps/step.js';
import { isHostileName } from '../template.js';
import { compilePathPattern, parseHttpMethod, type HttpMethod, type PathPattern } from '../path-routes.js';
import { StepMembers, type PrecedingMember } from './member-reader.js';

export interface ParameterSpec {
  readonly required: boolean;
  /** The default as written (undefined when none). */
  readonly default?: unknown;
}

export interface CompiledFunction {
  readonly label: string;
  readonly parameters: ReadonlyMap<string, ParameterSpec>;
  /** Names a caller may send without declaring them: the `:name` segments of `http_path`. */
  readonly systemParameters: ReadonlySet<string>;
  readonly steps: readonly CompiledStep[];
  /** False when a step (nested ones included) cannot take part in a transaction: it may not run inside a caller's. */
  readonly transactionSafe: boolean;
  /** Present when the function runs as one transaction. */
  readonly transaction?: { readonly isolationLevel?: IsolationLevel };
  /** Present when the function is served under /api/route/... */
  readonly route?: { readonly method: HttpMethod; readonly path: string; readonly pattern: PathPattern };
}

const MAX_LABEL_LENGTH = 256;

export interface CompileOptions {
  /** The allow-list `{{env.NAME}}` is checked against at save; undefined leaves the check to run time. */
  readonly envAllowed?: (name: string) => boolean;
}

/** Validates and compiles a definition; throws InvalidInput naming the path. */
export function compileDefinition(raw: unknown, opts: CompileOptions = {}): CompiledFunction {
  if (!isPlainObject(raw)) throw new InvalidInput('Function definition must be a JSON object');
  for (const key of Object.keys(raw)) {
    if (isHostileName(key)) throw new InvalidInput(`forbidden member name '${key}'`);
  }
  const label = requireString(raw, 'label');
  if (label.length > MAX_LABEL_LENGTH) throw new InvalidInput(`label: longer than ${MAX_LABEL_LENGTH} characters`);
  requireString(raw, 'name');
  optionalString(raw, 'description');
  optionalString(raw, 'version');
  if (
    raw.tags !== undefined &&
    raw.tags !== null &&
    (!Array.isArray(raw.tags) || !raw.tags.every((t) => typeof t === 'string'))
  ) {
    throw new InvalidInput('tags: must be an array of strings');
  }
  const parameters = compileParameters(raw.parameters);
  const route = compileRoute(raw);
  const systemParameters = new Set(route ? routeParameterNames(route) : []);
  const transaction = compileTransactionConfig(raw.transaction_config);
  if (!Array.isArray(raw.functions))
    throw new InvalidInput("functions: missing required member 'functions' (an array of steps)");
  const known = new Set([...parameters.keys(), ...systemParameters]);
  const { steps, transactionSafe } = compileStepList(raw.functions, 'functions', {
    parameters: known,
    transactional: transaction !== undefined,
    ...(opts.envAllowed ? { envAllowed: opts.envAllowed } : {}),
  });
  return {
    label,
    parameters,
    systemParameters,
    steps,
    transactionSafe,
    ...(transaction ? { transaction } : {}),
    ...(route ? { route } : {}),
  };
}

interface CompileContext {
  readonly parameters: ReadonlySet<string>;
  readonly transactional: boolean;
  readonly envAllowed?: (name: string) => boolean;
}

/** Compiles a step list with a shared budget of steps and nesting. */
export function compileStepList(
  raw: unknown,
  path: string,
  context: CompileContext,
): { steps: readonly CompiledStep[]; transactionSafe: boolean } {
  // `collection`: the member of the step written last before the one being compiled (precedingCollection).
  const budget: { steps: number; transactionSafe: boolean; collection?: PrecedingMember } = {
    steps: 0,
    transactionSafe: true,
  };
  const compileList = (list: unknown, listPath: string, depth: number): readonly CompiledStep[] => {
    if (!Array.isArray(list)) throw invalidAt(listPath, `must be an array of steps`);
    if (depth > MAX_STEP_NESTING) throw invalidAt(listPath, `steps nested deeper than ${MAX_STEP_NESTING} levels`);
    return Object.freeze(
      list.map((body, index) => {
        const stepPath = `${listPath}[${index}]`;
        if (++budget.steps > MAX_DEFINITION_STEPS)
          throw invalidAt(stepPath, `a definition holds at most ${MAX_DEFINITION_STEPS} steps`);
        if (!isPlainObject(body)) throw invalidAt(stepPath, `a step must be an object with a 'type'`);
        for (const key of Object.keys(body)) {
          if (isHostileName(key)) throw invalidAt(stepPath, `forbidden member name '${key}'`);
        }
        if (typeof body.type !== 'string') throw invalidAt(stepPath, `missing required member 'type'`);
        const spec = STEP_TABLE.get(body.type);
        if (!spec) throw invalidAt(stepPath, `unknown step type '${body.type}'`);
        const safe = spec.access !== 'outside' && spec.transactional !== false;
        if (!safe) budget.transactionSafe = false;
        if (context.transactional && !safe) {
          throw invalidAt(stepPath, `step type '${spec.type}' cannot take part in a transactional function`);
        }
        const preceding = budget.collection;
        if (body.collection !== undefined && body.collection !== null)
          budget.collection = { value: body.collection, path: `${stepPath}.collection` };
        const compileNested = (nested: unknown, nestedPath: string) => compileList(nested, nestedPath, depth + 1);
        const members = new StepMembers(body, stepPath, context, compileNested, preceding);
        return Object.freeze({ spec, config: spec.compile(members), path: stepPath, index });
      }),
    );
  };
  const steps = compileList(raw, path, 1);
  return { steps, transactionSafe: budget.transactionSafe };
}

function compileParameters(raw: unknown): Map<string, ParameterSpec> {
  const out = new Map<string, ParameterSpec>();
  if (raw === undefined || raw === null) return out;
  if (!isPlainObject(raw)) throw new InvalidInput('parameters: must be an object of parameter definitions');
  for (const [name, def] of Object.entries(raw)) {
    if (isHostileName(name) || name === '') throw new InvalidInput(`parameters: forbidden parameter name '${name}'`);
    if (!isPlainObject(def)) throw new InvalidInput(`parameters.${name}: must be an object`);
    if (def.required !== undefined && def.required !== null && typeof def.required !== 'boolean') {
      throw new InvalidInput(`parameters.${name}.required: must be a boolean`);
    }
    if (def.description !== undefined && def.description !== null && typeof def.description !== 'string') {
      throw new InvalidInput(`parameters.${name}.description: must be a string`);
    }
    out.set(name, { required: def.required === true, ...(def.default !== undefined ? { default: def.default } : {}) });
  }
  return out;
}

function compileTransactionConfig(raw: unknown): CompiledFunction['transaction'] {
  if (raw === undefined || raw === null) return undefined;
  if (!isPlainObject(raw)) throw new InvalidInput('transaction_config: must be an object');
  if (typeof raw.enabled !== 'boolean')
    throw new InvalidInput("transaction_config.enabled: missing required boolean 'enabled'");
  if (typeof raw.auto_rollback !== 'boolean') {
    throw new InvalidInput("transaction_config.auto_rollback: missing required boolean 'auto_rollback'");
  }
  const level = raw.isolation_level;
  if (level !== undefined && level !== null && !isIsolationLevel(level)) {
    throw new InvalidInput('transaction_config.isolation_level: Invalid isolation level');
  }
  if (!raw.enabled) return undefined;
  return typeof level === 'string' ? { isolationLevel: level as IsolationLevel } : {};
}

function compileRoute(raw: Record<string, unknown>): CompiledFunction['route'] {
  const method = raw.http_method;
  const path = raw.http_path;
  if ((method === undefined || method === null) && (path === undefined || path === null)) return undefined;
  const pattern = compilePathPattern(path, 'http_path');
  return { method: parseHttpMethod(method, 'http_method'), path: pattern.source, pattern };
}

function routeParameterNames(route: NonNullable<CompiledFunction['route']>): string[] {
  return route.pattern.segments.flatMap((s) => ('param' in s ? [s.param] : []));
}

function requireString(raw: Record<string, unknown>, key: string): string {
  const value = raw[key];
  if (typeof value !== 'string' || value === '') {
    throw invalidAt(key, `missing required member '${key}' (a non-empty string)`);
  }
  return value;
}

function optionalString(raw: Record<string, unknown>, key: string): void {
  const value = raw[key];
  if (value !== undefined && value !== null && typeof value !== 'string') {
    throw invalidAt(key, `must be a string`);
  }
}
