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
import { Ajv, type ValidateFunction } from 'ajv';
import { InvalidInput } from '../../../errors.js';
import { isPlainObject, requirePattern, Tagged } from '../../../engine/index.js';
import { parsePlaceholderName } from '../../templates/index.js';
import { step, type CompiledStep } from '../step.js';

/** ajv's regular expressions for `pattern` and `patternProperties`, on the linear-time engine. */
const linearRegExp = Object.assign((source: string) => {
  const pattern = requirePattern(source, 'JSON Schema pattern');
  return {
    test(text: string): boolean {
      if (text.length > pattern.maxTextLength) throw new InvalidInput(`Text too long for JSON Schema pattern (${text.length} characters)`);
      return pattern.test(text);
    },
  };
}, { code: 'linearRegExp' });

const ajv = new Ajv({ strict: false, allErrors: false, addUsedSchema: false, code: { regExp: linearRegExp as never } });

interface ValidateConfig {
  readonly check: ValidateFunction;
  readonly field?: readonly string[];
  readonly onError?: readonly CompiledStep[];
}

export const validate = step<ValidateConfig>({
  type: 'Validate',
  access: 'none',
  compile: (m) => {
    const schema = m.raw('schema');
    if (!isPlainObject(schema) && typeof schema !== 'boolean') m.fail("missing required member 'schema' (a JSON Schema object)");
    const check = compileSchema(schema as object, (message) => m.fail(message, 'schema'));
    const field = m.optionalString('data_field');
    const onError = m.optionalSteps('on_error');
    return {
      check,
      ...(field ? { field: parsePlaceholderName(field, `${m.path}.data_field`) } : {}),
      ...(onError ? { onError } : {}),
    };
  },
  run: (cfg, rows, x) => {
    let value: unknown = rows[0] ?? {};
    if (cfg.field) {
      const hit = x.scope(rows[0]).lookup(cfg.field);
      value = hit.found ? hit.value : undefined;
    }
    if (cfg.check(toPlainJson(value))) return rows;
    if (cfg.onError) return x.runSteps(cfg.onError, rows);
    throw new InvalidInput('Validation failed', {
      details: (cfg.check.errors ?? []).map((e) => ({ path: e.instancePath, keyword: e.keyword, message: e.message ?? '' })),
    });
  },
});

function compileSchema(schema: object, fail: (message: string) => never): ValidateFunction {
  try {
    return ajv.compile(schema);
  } catch (err) {
    return fail(`invalid JSON Schema: ${(err as Error).message}`);
  } finally {
    // ajv caches every schema object it compiled; definitions are recompiled on reload, so forget it (the function stays usable).
    ajv.removeSchema(schema);
  }
}

/** Typed wrappers read as their value, bigints as numbers: the JSON a schema describes. */
function toPlainJson(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof Tagged) return toPlainJson(v.value);
  if (Array.isArray(v)) return v.map(toPlainJson);
  if (isPlainObject(v)) {
    if (typeof v.type === 'string' && 'value' in v && Object.keys(v).length === 2) return toPlainJson(v.value);
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = toPlainJson(x);
    return out;
  }
  if (v !== null && typeof v === 'object') return String(v);
  return v;
}
