/**
 * The shaping steps: Project, Count, Filter, Sort, Limit, Skip, AddFields
 * and Group reshape the working records in memory; they read and write
 * nothing stored. Filter, Sort, Limit and Skip are the TypeScript client's;
 * AddFields is in the spec only (no client builds it).
 */
import {
  applyProjection,
  assertSafeKey,
  compileProjection,
  fieldFromWire,
  isPlainObject,
  matchFilter,
  parseFieldList,
  parseSort,
  sortRecords,
  type Projection,
  type SortKey,
  type Value,
} from '../../engine/index.js';
import { atPath } from '../definition-path.js';
import { compileGroup, groupRows, type GroupSpec } from '../group/index.js';
import { isConstant, type Template } from '../template.js';
import {
  optionalCount,
  requiredFilter,
  resolveCount,
  resolveFilter,
  type CountMember,
  type FilterMember,
} from './members.js';
import { step, type Row } from './step.js';

/**
 * Project: keeps only `fields` of each working record, or drops them when
 * `exclude` is true. Same rules as a query's `select_fields` and
 * `exclude_fields` (a dotted path keeps its top-level field or drops the
 * nested key; `id` is always kept), compiled once at save.
 */
export const project = step<Projection>({
  type: 'Project',
  access: 'none',
  compile: (members) => {
    if (!members.has('fields')) members.fail("missing required member 'fields'");
    const fields = atPath(`${members.path}.fields`, () => parseFieldList(members.raw('fields'), 'fields')) ?? [];
    const exclude = members.optionalBoolean('exclude') ?? false;
    // Keeping nothing keeps ids only; dropping nothing keeps everything.
    return exclude
      ? compileProjection(undefined, fields.length ? fields : undefined)
      : compileProjection(fields.length ? fields : ['id']);
  },
  run: (projection, rows) => rows.map((row) => applyProjection(row, projection)),
});

/** Count: the working records become one record `{<output_field>: n}` (default `count`). */
export const count = step<{ field: string }>({
  type: 'Count',
  access: 'none',
  compile: (members) => {
    const field = members.optionalString('output_field') || 'count';
    atPath(`${members.path}.output_field`, () => assertSafeKey(field, 'output_field'));
    return { field };
  },
  run: (config, rows) => [{ [config.field]: rows.length }],
});

/**
 * Filter: keeps the working records that match `filter`, a QueryExpression
 * evaluated by the engine's own matcher, so it means what the same filter
 * means in a Query. Placeholders resolve once per call, against the
 * parameters and the first working record.
 */
export const filter = step<FilterMember>({
  type: 'Filter',
  access: 'none',
  compile: (members) => requiredFilter(members, 'filter'),
  run: (config, rows, run) => {
    const resolved = resolveFilter(config, run, rows[0]);
    return rows.filter((row) => matchFilter(resolved, row));
  },
});

/**
 * Sort: orders the working records by `sort` ([{field, ascending}], first
 * key first), with the engine's order across value kinds; stable, missing
 * values first when ascending.
 */
export const sort = step<readonly SortKey[]>({
  type: 'Sort',
  access: 'none',
  compile: (members) => {
    if (!members.has('sort')) members.fail("missing required member 'sort'");
    return Object.freeze(atPath(`${members.path}.sort`, () => parseSort(members.raw('sort'), 'sort')));
  },
  run: (keys, rows) => sortRecords(rows, keys),
});

/** Limit: keeps the first `limit` working records (a number or a "{{param}}"). */
export const limit = step<CountMember>({
  type: 'Limit',
  access: 'none',
  compile: (members) => optionalCount(members, 'limit') ?? members.fail("missing required member 'limit'"),
  run: (config, rows, run) => rows.slice(0, resolveCount(config, run, rows[0])),
});

/** Skip: drops the first `skip` working records (a number or a "{{param}}"; Go's `offset` too). */
export const skip = step<CountMember>({
  type: 'Skip',
  access: 'none',
  compile: (members) => optionalCount(members, ['skip', 'offset']) ?? members.fail("missing required member 'skip'"),
  run: (config, rows, run) => rows.slice(resolveCount(config, run, rows[0])),
});

type AddFieldsConfig = { readonly constant: Readonly<Record<string, Value>> } | { readonly template: Template };

/**
 * AddFields: `fields` is an object of field name -> value, each value a
 * template resolved per working record, so `{"greeting": "hi {{name}}",
 * "owner": {"type": "Parameter", "name": "user"}, "total": "{{price}}"}`
 * sees each record's own fields. Names are looked up as for every step
 * (ForEach frames, then the parameters, then the record), so a parameter
 * shadows a record field of the same name. The values are stored as a
 * record's would be (typed wrappers become typed values); an existing field
 * is replaced. `id` may not be set: a working record keeps the identity of
 * the record it came from.
 */
export const addFields = step<AddFieldsConfig>({
  type: 'AddFields',
  access: 'none',
  compile: (members) => {
    const raw = members.raw('fields');
    if (!isPlainObject(raw) || Object.keys(raw).length === 0)
      members.fail('must be a non-empty object of field name -> value', 'fields');
    if (Object.hasOwn(raw as object, 'id'))
      members.fail("'id' cannot be set: a working record keeps its record's id", 'fields.id');
    const template = members.template('fields');
    if (!isConstant(template)) return { template };
    return { constant: atPath(`${members.path}.fields`, () => toValues(template.value)) };
  },
  run: (config, rows, run) => {
    if ('constant' in config) return rows.map((row) => ({ ...row, ...config.constant }));
    return rows.map((row) => ({ ...row, ...toValues(run.resolve(config.template, row)) }));
  },
});

function toValues(resolved: unknown): Row {
  const out: Record<string, Value> = {};
  for (const [name, value] of Object.entries(resolved as Record<string, unknown>)) {
    out[name] = value === undefined ? null : fieldFromWire(value, name);
  }
  return out;
}

/**
 * Group: one record per distinct combination of `by_fields`, holding those
 * fields and one output per entry of `functions` ({output_field, operation,
 * input_field?}); see lib/functions/group for the eleven operations and the
 * grouping rules. Field names are literal and checked at save. Without
 * `by_fields` every working record falls in one group.
 */
export const group = step<GroupSpec>({
  type: 'Group',
  access: 'none',
  compile: (members) => {
    // Only the Group's own members go to compileGroup: other members are tolerated, as for every step.
    const body: Record<string, unknown> = {
      by_fields: members.raw('by_fields') ?? [],
      functions: members.raw('functions'),
    };
    return compileGroup(body, members.path);
  },
  run: (spec, rows) => groupRows(rows, spec.by_fields, spec.functions),
});
