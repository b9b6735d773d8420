/**
 * Projection of returned records: `select_fields` and `exclude_fields`
 * (protocol.md 2.4 and 2.3 query parameters).
 *
 * Select keeps whole top-level fields (a dotted path keeps its top-level
 * field) and always `id`. Exclude removes top-level fields, or one nested key
 * of a plain object for a dotted path, and never `id`. Lists are bounded
 * (MAX_FIELD_NAMES) and compiled once per query into sets, so projecting a
 * record costs its own size plus the dotted paths, not a scan of the lists
 * per field. Projection builds new objects; stored records are never
 * modified.
 */
import { InvalidInput } from '../../errors.js';
import { checkLimit, MAX_FIELD_NAMES } from '../input/limits.js';
import { Tagged, type Fields, type Value } from '../values/index.js';
import { kindOf } from './describe-input.js';
import { parseFieldPath } from './field-path.js';

/**
 * Parses a field list given as an array of strings or a comma-separated
 * string (`"a,b"`, blanks trimmed). Null, undefined and an empty list mean
 * "no projection" and give undefined. Throws InvalidInput naming `name` for
 * any other shape, more than MAX_FIELD_NAMES names, or a bad field name.
 */
export function parseFieldList(raw: unknown, name: string): string[] | undefined {
  if (raw === null || raw === undefined) return undefined;
  let list: unknown[];
  if (typeof raw === 'string')
    list = raw
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0);
  else if (Array.isArray(raw)) list = raw;
  else throw new InvalidInput(`Invalid ${name}: expected an array of field names or "a,b", got ${kindOf(raw)}`);
  checkLimit(list.length, MAX_FIELD_NAMES, name, 'field names');
  const fields = list.map((f, i) => parseFieldPath(typeof f === 'string' ? f.trim() : f, `${name}[${i}]`));
  return fields.length === 0 ? undefined : fields;
}

/** Dotted paths by their first segment, each with its segments split once. */
type DottedPaths = ReadonlyMap<string, ReadonlyArray<{ readonly path: string; readonly rest: readonly string[] }>>;

/** A projection compiled once per query (see `compileProjection`). */
export interface Projection {
  /** Every selected path: a record key equal to one is kept. */
  readonly select?: { readonly names: ReadonlySet<string>; readonly dotted: DottedPaths };
  /** Excluded plain names, and dotted paths that remove a nested key unless the record has the whole path as a key. */
  readonly exclude?: { readonly names: ReadonlySet<string>; readonly dotted: DottedPaths };
}

function dottedPaths(paths: readonly string[]): DottedPaths {
  const out = new Map<string, Array<{ path: string; rest: string[] }>>();
  for (const path of paths) {
    const dot = path.indexOf('.');
    if (dot < 0) continue;
    const head = path.slice(0, dot);
    let list = out.get(head);
    if (!list) out.set(head, (list = []));
    list.push({ path, rest: path.slice(dot + 1).split('.') });
  }
  return out;
}

/**
 * Compiles `select` and `exclude` lists into sets.
 * REQUIRES: paths come from `parseFieldList` (or are otherwise validated).
 */
export function compileProjection(select?: readonly string[], exclude?: readonly string[]): Projection {
  return {
    ...(select ? { select: { names: new Set(select), dotted: dottedPaths(select) } } : {}),
    ...(exclude
      ? { exclude: { names: new Set(exclude.filter((p) => !p.includes('.'))), dotted: dottedPaths(exclude) } }
      : {}),
  };
}

function isPlainValueObject(value: Value | undefined): value is { readonly [key: string]: Value } {
  return (
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    !(value instanceof Tagged) &&
    !(value instanceof Uint8Array)
  );
}

/** A copy of `value` without the nested key at `segments`; `value` itself when there is nothing to remove. */
function without(value: Value | undefined, segments: readonly string[]): Value | undefined {
  if (!isPlainValueObject(value) || !Object.hasOwn(value, segments[0]!)) return value;
  const [head, ...rest] = segments as [string, ...string[]];
  const out: Record<string, Value> = { ...value };
  if (rest.length === 0) delete out[head];
  else {
    const inner = without(value[head], rest);
    if (inner === value[head]) return value;
    out[head] = inner!;
  }
  return Object.freeze(out);
}

/** Select keeps `key` when it is a selected path, or the head of a selected dotted path the record lacks as a key. */
function isSelected(fields: Fields, key: string, select: NonNullable<Projection['select']>): boolean {
  if (key === 'id' || select.names.has(key)) return true;
  const dotted = select.dotted.get(key);
  return dotted !== undefined && dotted.some((d) => !Object.hasOwn(fields, d.path));
}

/**
 * Returns a new fields object projected by select then exclude.
 * Top-level field order follows the record. `id` is always kept.
 */
export function applyProjection(fields: Fields, projection: Projection): Fields {
  const { select, exclude } = projection;
  let out: Record<string, Value>;
  if (select) {
    out = {};
    for (const key of Object.keys(fields)) if (isSelected(fields, key, select)) out[key] = fields[key]!;
  } else {
    out = { ...fields };
  }
  if (!exclude) return out;
  // Dotted paths first: whether one names a key of its own or a nested key depends on the keys still present.
  for (const [head, paths] of exclude.dotted) {
    for (const { path, rest } of paths) {
      if (Object.hasOwn(out, path)) delete out[path];
      else if (head !== 'id' && Object.hasOwn(out, head)) out[head] = without(out[head], rest)!;
    }
  }
  for (const key of Object.keys(out)) if (key !== 'id' && exclude.names.has(key)) delete out[key];
  return out;
}

/**
 * Returns a new fields object projected by `select` then `exclude`; for one
 * record. Queries compile once with `compileProjection` and call
 * `applyProjection` per record.
 * REQUIRES: paths come from `parseFieldList` (or are otherwise validated).
 */
export function projectFields(fields: Fields, select?: readonly string[], excludeList?: readonly string[]): Fields {
  return applyProjection(fields, compileProjection(select, excludeList));
}
