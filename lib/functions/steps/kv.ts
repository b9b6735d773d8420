/**
 * The key-value steps: KvGet, KvSet, KvDelete, KvExists and KvQuery over the
 * engine's key-value store (`run.kv`), durable at once and never part of a
 * transaction: the writes reach outside a rollback's reach, and a read is
 * not part of a transaction's isolation, so a transactional function
 * refuses all of them at save. Also the members the key-value and
 * concurrency steps share: the key, and the seconds and counts they resolve
 * at run time.
 */
import { compilePattern, requirePattern, validateKvKey, type Pattern } from '../../engine/index.js';
import { InvalidInput } from '../../errors.js';
import { isConstant, type Template } from '../template.js';
import { step, type Execution, type MemberReader, type Row } from './step.js';
import { withField, writeOutput } from './working-records.js';

/** Longest TTL or window a step accepts: ten years, in seconds. */
export const MAX_SECONDS = 10 * 365 * 86_400;

/** The `key` member: a literal is checked at save (length, no control characters), a placeholder by resolveKey. */
export function keyMember(members: MemberReader): Template {
  const template = members.template('key');
  if (isConstant(template)) {
    if (typeof template.value !== 'string' || template.value === '') members.fail('must be a non-empty string', 'key');
    try {
      validateKvKey(template.value);
    } catch (err) {
      members.fail((err as Error).message, 'key');
    }
  }
  return template;
}

/** The step's `key` for `row`: a non-empty string that is a valid KV key. */
export function resolveKey(run: Execution, key: Template, row: Row | undefined): string {
  const text = run.text(key, row, 'key');
  try {
    return validateKvKey(text);
  } catch (err) {
    throw new InvalidInput(`'key': ${(err as Error).message}`);
  }
}

/**
 * A whole number in [min, max], given as a number or a string of digits ("{{limit}}" from a query string); undefined
 * otherwise.
 */
function wholeNumber(raw: unknown, min: number, max: number): number | undefined {
  const number = typeof raw === 'string' && /^\s*\d{1,16}\s*$/.test(raw) ? Number(raw) : raw;
  return typeof number === 'number' && Number.isInteger(number) && number >= min && number <= max ? number : undefined;
}

const wholeNumberRule = (min: number, max: number) => `must be a whole number from ${min} to ${max}`;

/**
 * A required whole-number member (`ttl_secs`, `limit`, `window_secs`): a
 * literal is checked at save (the error names the member), a placeholder at
 * run time by resolveWholeNumber.
 */
export function wholeNumberMember(members: MemberReader, name: string, min: number, max: number): Template {
  const template = members.template(name);
  if (isConstant(template) && wholeNumber(template.value, min, max) === undefined)
    members.fail(wholeNumberRule(min, max), name);
  return template;
}

export function resolveWholeNumber(
  run: Execution,
  template: Template,
  row: Row | undefined,
  what: string,
  min: number,
  max: number,
): number {
  const number = wholeNumber(run.resolve(template, row), min, max);
  if (number === undefined) throw new InvalidInput(`'${what}' ${wholeNumberRule(min, max)}`);
  return number;
}

/**
 * KvGet: the working records become one record `{value}`: the value stored
 * under `key` (its type kept), or `{value: null}` when the key is absent or
 * expired. `key` resolves against the first working record.
 */
export const kvGet = step<{ readonly key: Template }>({
  type: 'KvGet',
  access: 'read',
  transactional: false,
  compile: (members) => ({ key: keyMember(members) }),
  run: (config, rows, run) => [{ value: run.kv.entry(resolveKey(run, config.key, rows[0]))?.value ?? null }],
});

/**
 * KvSet: stores `value` under `key`, durably, with an optional `ttl`
 * (seconds, a duration such as "15m", or an RFC 3339 instant). Both resolve
 * against the first working record; `value` keeps its JSON type (an exact
 * placeholder such as "{{http_response}}" stores the object, typed wrappers
 * their type). The working records pass through unchanged.
 */
export const kvSet = step<{ readonly key: Template; readonly value: Template; readonly ttl?: Template }>({
  type: 'KvSet',
  access: 'outside',
  compile: (members) => {
    const ttl = members.optionalTemplate('ttl');
    return { key: keyMember(members), value: members.template('value'), ...(ttl ? { ttl } : {}) };
  },
  run: async (config, rows, run) => {
    const row = rows[0];
    const key = resolveKey(run, config.key, row);
    const ttl = config.ttl ? run.resolve(config.ttl, row) : undefined;
    await run.kv.set(key, run.resolve(config.value, row), ttl ?? undefined);
    return rows;
  },
});

/**
 * KvDelete: removes `key` (resolved against the first working record),
 * durably. The working records pass through; with `output_field` each one
 * gets whether the key had a value to delete (one record holding only it when
 * there were none).
 */
export const kvDelete = step<{ readonly key: Template; readonly output?: readonly string[] }>({
  type: 'KvDelete',
  access: 'outside',
  compile: (members) => {
    const output = members.optionalFieldPath('output_field');
    return { key: keyMember(members), ...(output ? { output } : {}) };
  },
  run: async (config, rows, run) => {
    const deleted = await run.kv.delete(resolveKey(run, config.key, rows[0]));
    return config.output ? writeOutput(rows, config.output, deleted) : rows;
  },
});

/**
 * KvExists: whether `key` holds a live (unexpired) value, as a boolean in
 * `output_field` (default `exists`). The key resolves against each working
 * record, so each record gets the answer for its own key; with no working
 * records the step yields one record holding only the answer.
 */
export const kvExists = step<{ readonly key: Template; readonly output: readonly string[] }>({
  type: 'KvExists',
  access: 'read',
  transactional: false,
  compile: (members) => ({ key: keyMember(members), output: members.optionalFieldPath('output_field') ?? ['exists'] }),
  run: (config, rows, run) => {
    const exists = (row: Row | undefined) => run.kv.entry(resolveKey(run, config.key, row)) !== undefined;
    if (rows.length === 0) return [withField({}, config.output, exists(undefined))];
    return rows.map((row) => withField(row, config.output, exists(row)));
  },
});

/** Every key, a pattern compiled at save (a literal), or a template compiled per call. */
type KeyPattern =
  | { readonly kind: 'all' }
  | { readonly kind: 'fixed'; readonly pattern: Pattern }
  | { readonly kind: 'template'; readonly template: Template };

const ALL_KEYS: KeyPattern = Object.freeze({ kind: 'all' });

const isNoPattern = (value: unknown) => value === undefined || value === null || value === '';

/**
 * KvQuery: the working records become the KV entries whose key matches
 * `pattern`, in key order, each `{key, value, expires_at?}` (expires_at an
 * RFC 3339 string, present when the entry has a TTL). `pattern` is an
 * unanchored regular expression on the linear-time engine (lib/engine/pattern):
 * `cache:product:.*`; absent, null or empty matches every key. A literal
 * pattern is compiled at save, so a bad one is a 400 then; one with
 * placeholders is compiled per call. `include_expired` (default false)
 * also lists entries whose TTL has passed but which the sweeper has not
 * removed yet.
 */
export const kvQuery = step<{ readonly pattern: KeyPattern; readonly includeExpired: boolean }>({
  type: 'KvQuery',
  access: 'read',
  transactional: false,
  compile: (members) => ({
    pattern: compileKeyPattern(members.optionalTemplate('pattern'), (message) => members.fail(message, 'pattern')),
    includeExpired: members.optionalBoolean('include_expired') ?? false,
  }),
  run: async (config, rows, run) => {
    const given = config.pattern;
    const pattern =
      given.kind === 'all'
        ? undefined
        : given.kind === 'fixed'
          ? given.pattern
          : runtimePattern(run.resolve(given.template, rows[0]));
    return (await run.kv.find(pattern, config.includeExpired)).map((entry) => ({ ...entry }));
  },
});

function compileKeyPattern(template: Template | undefined, fail: (message: string) => never): KeyPattern {
  if (template === undefined) return ALL_KEYS;
  if (!isConstant(template)) return { kind: 'template', template };
  if (isNoPattern(template.value)) return ALL_KEYS;
  if (typeof template.value !== 'string') fail('must be a string (a regular expression)');
  const compiled = compilePattern(template.value);
  if (!compiled.ok) fail(compiled.problem);
  return { kind: 'fixed', pattern: compiled.pattern };
}

function runtimePattern(value: unknown): Pattern | undefined {
  if (isNoPattern(value)) return undefined;
  if (typeof value !== 'string')
    throw new InvalidInput("KvQuery 'pattern' must resolve to a string (a regular expression)");
  return requirePattern(value, "KvQuery 'pattern'");
}
