/**
 * The control steps: If, ForEach, Parallel, TryCatch, Sleep, Return,
 * Validate and CallFunction steer the call; CreateSavepoint,
 * RollbackToSavepoint and ReleaseSavepoint steer its transaction. A call
 * bound passed (steps, time, records, depth) is never caught or swallowed
 * by them.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import {
  isPlainObject,
  isSavepointName,
  isTransactionSession,
  requirePattern,
  Tagged,
  type TransactionSession,
} from '../../engine/index.js';
import { InvalidInput, StepFailed } from '../../errors.js';
import { compileCondition, evaluateCondition, type Condition } from '../conditions/index.js';
import { MAX_PARALLEL_BRANCHES } from '../limits.js';
import { compileTemplate, parsePlaceholderName, resolveTemplate, type Template } from '../template.js';
import { step, type CompiledStep, type MemberReader, type Row, type StepType } from './step.js';

interface IfConfig {
  readonly condition: Condition;
  readonly then: readonly CompiledStep[];
  readonly otherwise?: readonly CompiledStep[];
}

/** If: runs `then_functions` when the condition holds over the working records, else `else_functions` (or nothing). */
export const ifStep = step<IfConfig>({
  type: 'If',
  access: 'none',
  compile: (members) => {
    if (!members.has('condition')) members.fail("missing required member 'condition'");
    const otherwise = members.optionalSteps('else_functions');
    return {
      // Placeholder operands compile to templates at save and resolve per call.
      condition: compileCondition(members.raw('condition'), `${members.path}.condition`, {
        prepareValue: (raw, path) => compileTemplate(raw, path),
      }),
      then: members.steps('then_functions'),
      ...(otherwise ? { otherwise } : {}),
    };
  },
  run: (config, rows, run) => {
    const scope = run.scope(rows[0]);
    const holds = evaluateCondition(config.condition, rows, (template) => resolveTemplate(template as Template, scope));
    const branch = holds ? config.then : config.otherwise;
    return branch ? run.runSteps(branch, rows) : rows;
  },
});

/**
 * ForEach: runs `functions` once per working record, starting from that
 * record alone; its fields are `{{field}}` placeholders inside (they shadow
 * the parameters). The outputs, in order, become the working records.
 */
export const forEach = step<{ readonly body: readonly CompiledStep[] }>({
  type: 'ForEach',
  access: 'none',
  compile: (members) => ({ body: members.steps('functions') }),
  run: async (config, rows, run) => {
    const out: Row[] = [];
    for (const row of rows) {
      for (const produced of await run.runSteps(config.body, [row], row)) out.push(produced);
      run.checkRecords(out.length);
    }
    return out;
  },
});

/**
 * Parallel: each step of `functions` runs at the same time over the same
 * working records; their outputs are merged in step order. With
 * `wait_for_all` (default true) any failing branch fails the step; with
 * false the failed branches are left out and the rest are merged. A call
 * bound passed inside a branch always fails the step.
 */
export const parallel = step<{ readonly branches: readonly CompiledStep[]; readonly waitForAll: boolean }>({
  type: 'Parallel',
  access: 'none',
  compile: (members) => {
    const branches = members.steps('functions');
    if (branches.length > MAX_PARALLEL_BRANCHES) members.fail(`at most ${MAX_PARALLEL_BRANCHES} branches`, 'functions');
    return { branches, waitForAll: members.optionalBoolean('wait_for_all') ?? true };
  },
  run: async (config, rows, run) => {
    const settled = await Promise.allSettled(config.branches.map((branch) => run.runSteps([branch], rows)));
    const out: Row[] = [];
    for (const outcome of settled) {
      if (outcome.status === 'fulfilled') out.push(...outcome.value);
      else if (config.waitForAll || run.isCallAbort(outcome.reason)) throw outcome.reason;
    }
    if (out.length === 0 && settled.length > 0 && settled.every((outcome) => outcome.status === 'rejected')) {
      throw new InvalidInput('Every Parallel branch failed');
    }
    run.checkRecords(out.length);
    return out;
  },
});

interface TryCatchConfig {
  readonly attempt: readonly CompiledStep[];
  readonly recover: readonly CompiledStep[];
  readonly errorField: string;
}

/**
 * TryCatch: runs `try_functions`; when one of them fails, runs
 * `catch_functions` over the working records as they were, each carrying
 * the error message in `output_error_field` (default `error`; one record
 * holding only it when there were none). The error goes into one top-level
 * field (a dotted name is taken as the field's name, as records allow).
 */
export const tryCatch = step<TryCatchConfig>({
  type: 'TryCatch',
  access: 'none',
  compile: (members) => ({
    attempt: members.steps('try_functions'),
    recover: members.optionalSteps('catch_functions') ?? [],
    errorField: members.optionalFieldPath('output_error_field')?.join('.') ?? 'error',
  }),
  run: async (config, rows, run) => {
    try {
      return await run.runSteps(config.attempt, rows);
    } catch (err) {
      if (run.isCallAbort(err)) throw err;
      const message = err instanceof StepFailed || err instanceof Error ? err.message : String(err);
      const field = config.errorField;
      const marked: Row[] =
        rows.length === 0 ? [{ [field]: message }] : rows.map((row) => ({ ...row, [field]: message }));
      return config.recover.length === 0 ? marked : run.runSteps(config.recover, marked);
    }
  },
});

/** Sleep: waits `duration_ms` (a number or a placeholder), never past the call's time limit. */
export const sleep = step<{ readonly duration: Template }>({
  type: 'Sleep',
  access: 'none',
  compile: (members) => ({ duration: members.template('duration_ms') }),
  run: async (config, rows, run) => {
    const given = run.resolve(config.duration, rows[0]);
    const ms = typeof given === 'string' && given.trim() !== '' ? Number(given) : given;
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
      throw new InvalidInput("Sleep 'duration_ms' must be a non-negative number of milliseconds");
    }
    await run.sleep(ms);
    return rows;
  },
});

/**
 * Return: ends the call. `fields` (placeholders resolved against the first
 * working record and the parameters) becomes the response body and
 * `status_code` (default 200) its HTTP status; the status is not in the body.
 */
export const returnStep = step<{ readonly fields: Template | undefined; readonly status: Template | undefined }>({
  type: 'Return',
  access: 'none',
  compile: (members) => ({
    fields: members.optionalTemplate('fields'),
    status: members.optionalTemplate('status_code'),
  }),
  run: (config, rows, run) => {
    const fields = config.fields ? run.resolve(config.fields, rows[0]) : {};
    const raw = config.status ? run.resolve(config.status, rows[0]) : 200;
    const statusCode = typeof raw === 'string' ? Number(raw) : raw;
    if (typeof statusCode !== 'number' || !Number.isInteger(statusCode) || statusCode < 200 || statusCode > 599) {
      throw new InvalidInput("Return 'status_code' must be an HTTP status between 200 and 599");
    }
    run.finish({ fields, statusCode });
    return rows;
  },
});

/** ajv's regular expressions for `pattern` and `patternProperties`, on the linear-time engine. */
const linearRegExp = Object.assign(
  (source: string) => {
    const pattern = requirePattern(source, 'JSON Schema pattern');
    return {
      test(text: string): boolean {
        if (text.length > pattern.maxTextLength)
          throw new InvalidInput(`Text too long for JSON Schema pattern (${text.length} characters)`);
        return pattern.test(text);
      },
    };
  },
  { code: 'linearRegExp' },
);

const ajv = new Ajv({ strict: false, allErrors: false, addUsedSchema: false, code: { regExp: linearRegExp as never } });

interface ValidateConfig {
  readonly check: ValidateFunction;
  readonly field?: readonly string[];
  readonly onError?: readonly CompiledStep[];
}

/**
 * Validate: checks a value against a JSON Schema (ajv, compiled at save).
 * The value is `data_field` looked up like a placeholder (the first working
 * record, then the parameters; the whole first record when `data_field` is
 * absent). On failure, `on_error` steps run over the working records when
 * given (their output becomes the working records), else the step fails
 * with the schema errors as details.
 *
 * JSON Schema `pattern`s run on the engine's linear-time matcher, remote
 * `$ref`s are never fetched, and schemas are not kept by ajv between saves.
 */
export const validate = step<ValidateConfig>({
  type: 'Validate',
  access: 'none',
  compile: (members) => {
    const schema = members.raw('schema');
    if (!isPlainObject(schema) && typeof schema !== 'boolean')
      members.fail("missing required member 'schema' (a JSON Schema object)");
    const check = compileSchema(schema as object, (message) => members.fail(message, 'schema'));
    const field = members.optionalString('data_field');
    const onError = members.optionalSteps('on_error');
    return {
      check,
      ...(field ? { field: parsePlaceholderName(field, `${members.path}.data_field`) } : {}),
      ...(onError ? { onError } : {}),
    };
  },
  run: (config, rows, run) => {
    let value: unknown = rows[0] ?? {};
    if (config.field) {
      const hit = run.scope(rows[0]).lookup(config.field);
      value = hit.found ? hit.value : undefined;
    }
    if (config.check(toPlainJson(value))) return rows;
    if (config.onError) return run.runSteps(config.onError, rows);
    throw new InvalidInput('Validation failed', {
      details: (config.check.errors ?? []).map((error) => ({
        path: error.instancePath,
        keyword: error.keyword,
        message: error.message ?? '',
      })),
    });
  },
});

function compileSchema(schema: object, fail: (message: string) => never): ValidateFunction {
  try {
    return ajv.compile(schema);
  } catch (err) {
    return fail(`invalid JSON Schema: ${(err as Error).message}`);
  } finally {
    // ajv caches every schema object it compiled; definitions are recompiled on reload, so forget it (the function
    // stays usable).
    ajv.removeSchema(schema);
  }
}

/** Typed wrappers read as their value, bigints as numbers: the JSON a schema describes. */
function toPlainJson(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Tagged) return toPlainJson(value.value);
  if (Array.isArray(value)) return value.map(toPlainJson);
  if (isPlainObject(value)) {
    if (typeof value.type === 'string' && 'value' in value && Object.keys(value).length === 2)
      return toPlainJson(value.value);
    const out: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) out[key] = toPlainJson(member);
    return out;
  }
  if (value !== null && typeof value === 'object') return String(value);
  return value;
}

/**
 * CallFunction: calls another stored function by label (depth-limited by
 * `max_function_call_depth`, recursion included). Without `params` the
 * callee inherits this call's parameters (those it declares); with them it
 * gets exactly those. Its records (or its Return fields, as one record)
 * become the working records.
 */
export const callFunction = step<{ readonly label: Template; readonly params?: Template }>({
  type: 'CallFunction',
  access: 'none',
  compile: (members) => {
    const params = members.optionalTemplate('params');
    return { label: members.template('function_label'), ...(params ? { params } : {}) };
  },
  run: (config, rows, run) => {
    const label = run.text(config.label, rows[0], 'function_label');
    const params = config.params ? run.resolve(config.params, rows[0]) : undefined;
    if (params !== undefined && !isPlainObject(params))
      throw new InvalidInput("CallFunction 'params' must resolve to an object");
    return run.callFunction(label, params);
  },
});

/*
 * CreateSavepoint, RollbackToSavepoint, ReleaseSavepoint: the function's
 * transaction marks a point, rewinds its staged writes to it, or forgets it.
 * Only in a transactional function (a 400 at save otherwise); the working
 * records pass through unchanged.
 */

function compileSavepointName(members: MemberReader): { readonly name: string } {
  if (!members.transactional)
    members.fail('savepoint steps need a transactional function (transaction_config.enabled)');
  const name = members.string('name');
  if (!isSavepointName(name)) members.fail('must be 1-128 characters', 'name');
  return { name };
}

function savepointStep(
  type: string,
  act: (session: TransactionSession, name: string) => Promise<unknown>,
): StepType<unknown> {
  return step<{ readonly name: string }>({
    type,
    access: 'write',
    compile: compileSavepointName,
    run: async (config, rows, run) => {
      if (!isTransactionSession(run.session)) throw new InvalidInput(`${type} runs only inside a transaction`);
      await act(run.session, config.name);
      return rows;
    },
  });
}

export const createSavepoint = savepointStep('CreateSavepoint', (session, name) => session.savepoint(name));
export const rollbackToSavepoint = savepointStep('RollbackToSavepoint', (session, name) => session.rollbackTo(name));
export const releaseSavepoint = savepointStep('ReleaseSavepoint', (session, name) => session.release(name));
