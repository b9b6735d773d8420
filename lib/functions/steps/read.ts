/**
 * The read steps: the working records become records of a collection, read
 * through `run.session` (so a transactional function reads its own staged
 * writes).
 *
 * - FindAll, Query (filter, sort, skip, limit, projection, join), FindById
 *   and FindOne.
 * - TextSearch, VectorSearch and HybridSearch: their members map onto a
 *   search body (protocol.md 2.9), parsed by the engine's `parseSearch` (at
 *   save when nothing holds a placeholder), and each hit becomes a working
 *   record: the record plus `_score` (the shape the TypeScript client gives
 *   hybrid hits). Rust sends `options` (an object) next to the query; its
 *   members are read as search-body members (`limit`, `fuzzy`, `fields`,
 *   `min_score`, `vector_field`, `filters`...), with `threshold` for
 *   `vector_threshold`, and `collection` when the step has none. Unknown
 *   option names are ignored, as unknown step members are. A step with no
 *   collection anywhere is refused at save: a search needs a collection.
 */
import {
  isPlainObject,
  isTypedWrapper,
  parseFieldList,
  parseFieldPath,
  parseFilter,
  parseJoin,
  parseSearch,
  parseSort,
  type Filter,
  type Join,
  type Query,
  type SearchRequest,
  type SortKey,
} from '../../engine/index.js';
import { InvalidInput, NotFound } from '../../errors.js';
import { atPath } from '../definition-path.js';
import { isConstant, isHostileName, type Template } from '../template.js';
import {
  checkCollection,
  collectionMember,
  optionalCount,
  optionalFilter,
  resolveCount,
  resolveFilter,
  type CountMember,
  type FilterMember,
} from './members.js';
import { step, type Execution, type MemberNames, type MemberReader, type Row } from './step.js';

const ALL: Query = Object.freeze({ sort: [], skip: 0, bypassCache: false, bypassRipple: false });

/** FindAll: the working records become every record of a collection. */
export const findAll = step<{ collection: Template }>({
  type: 'FindAll',
  access: 'read',
  compile: (members) => ({ collection: members.template('collection') }),
  run: (config, rows, run) => run.session.find(run.text(config.collection, rows[0], 'collection'), ALL),
});

interface QueryConfig {
  readonly collection: Template;
  readonly filter?: FilterMember;
  readonly limit?: CountMember;
  readonly skip?: CountMember;
  /** Everything but filter, limit and skip, parsed at save. */
  readonly fixed: Omit<Query, 'filter' | 'limit' | 'skip'>;
}

/**
 * Query: the working records become a collection's records matching
 * `filter`, ordered by `sort`, after `skip`, at most `limit` (protocol.md
 * 2.4 and 4.3). Go's `offset` is `skip`. `select_fields`, `exclude_fields`
 * and `join` work as in POST /api/find. Everything without placeholders is
 * parsed at save; `filter`, `limit` and `skip` may hold them.
 */
export const query = step<QueryConfig>({
  type: 'Query',
  access: 'read',
  compile: (members) => {
    const filter = optionalFilter(members, 'filter');
    const limit = optionalCount(members, 'limit');
    const skip = optionalCount(members, ['skip', 'offset']);
    return {
      collection: collectionMember(members),
      ...(filter ? { filter } : {}),
      ...(limit ? { limit } : {}),
      ...(skip ? { skip } : {}),
      fixed: fixedQueryParts(members),
    };
  },
  run: (config, rows, run) => {
    const row = rows[0];
    const request: { -readonly [K in keyof Query]: Query[K] } = {
      ...config.fixed,
      skip: config.skip ? resolveCount(config.skip, run, row) : 0,
    };
    if (config.filter) request.filter = resolveFilter(config.filter, run, row) satisfies Filter;
    if (config.limit) request.limit = resolveCount(config.limit, run, row);
    return run.session.find(run.text(config.collection, row, 'collection'), request);
  },
});

function fixedQueryParts(members: MemberReader): QueryConfig['fixed'] {
  const at = <T>(name: string, parse: (raw: unknown) => T): T =>
    atPath(`${members.path}.${name}`, () => parse(members.raw(name)));
  const sort: readonly SortKey[] = Object.freeze(at('sort', (raw) => parseSort(raw)));
  const select = at('select_fields', (raw) => parseFieldList(raw, 'select_fields'));
  const exclude = at('exclude_fields', (raw) => parseFieldList(raw, 'exclude_fields'));
  const join: Join | undefined = at('join', (raw) => (raw === undefined || raw === null ? undefined : parseJoin(raw)));
  return {
    sort,
    bypassCache: false,
    bypassRipple: false,
    ...(select ? { selectFields: Object.freeze(select) } : {}),
    ...(exclude ? { excludeFields: Object.freeze(exclude) } : {}),
    ...(join ? { join } : {}),
  };
}

/**
 * FindById: the working records become the one record with `record_id` (an
 * id or a primary-key alias value), or none when there is no such record,
 * so an `If` with `HasRecords` can branch on it.
 */
export const findById = step<{ collection: Template; recordId: Template }>({
  type: 'FindById',
  access: 'read',
  compile: (members) => ({ collection: collectionMember(members), recordId: members.template('record_id') }),
  run: (config, rows, run) => {
    const row = rows[0];
    const collection = run.text(config.collection, row, 'collection');
    const id = run.text(config.recordId, row, 'record_id');
    try {
      return [run.session.findById(collection, id)];
    } catch (err) {
      if (err instanceof NotFound) return [];
      throw err;
    }
  },
});

interface FindOneConfig {
  readonly collection: Template;
  readonly key: Template;
  readonly value: Template;
  /** Present when neither key nor value holds a placeholder. */
  readonly filter?: Filter;
}

/**
 * FindOne: the working records become the first record (in collection
 * order) whose field `key` equals `value`, or none. `key` is a field path
 * (dotted paths reach into objects); `value` compares by the engine's Eq,
 * typed wrappers included. Both may hold placeholders; without them the
 * filter is built once, at save.
 */
export const findOne = step<FindOneConfig>({
  type: 'FindOne',
  access: 'read',
  compile: (members) => {
    const key = members.template('key');
    if (isConstant(key)) atPath(`${members.path}.key`, () => parseFieldPath(key.value, 'key'));
    if (!members.has('value')) members.fail("missing required member 'value'");
    const value = members.template('value');
    const config = { collection: collectionMember(members), key, value };
    if (!isConstant(key) || !isConstant(value)) return config;
    return { ...config, filter: atPath(`${members.path}.value`, () => equalsFilter(key.value as string, value.value)) };
  },
  run: (config, rows, run) => {
    const row = rows[0];
    const filter =
      config.filter ??
      equalsFilter(parseFieldPath(run.text(config.key, row, 'key'), 'key'), run.resolve(config.value, row));
    const request: Query = { filter, sort: [], skip: 0, limit: 1, bypassCache: false, bypassRipple: false };
    return run.session.find(run.text(config.collection, row, 'collection'), request);
  },
});

function equalsFilter(field: string, value: unknown): Filter {
  return parseFilter({ field, operator: 'Eq', value: value ?? null }, 'value');
}

/* Searches */

/** Search-body members an `options` object may carry (step-level names map onto them). */
const OPTION_KEYS = new Set([
  'language',
  'case_sensitive',
  'fuzzy',
  'enable_stemming',
  'boost_exact',
  'min_score',
  'max_edit_distance',
  'fields',
  'weights',
  'limit',
  'vector_field',
  'vector_metric',
  'vector_k',
  'vector_threshold',
  'text_weight',
  'vector_weight',
  'select_fields',
  'exclude_fields',
  'filters',
]);
const OPTION_ALIASES: Readonly<Record<string, string>> = { threshold: 'vector_threshold' };

/** One search-body member and where it comes from in the step. */
interface SearchPart {
  /** The search-body member (`query`, `vector`, `limit`...). */
  readonly body: string;
  /** The step's spellings of it, canonical first. */
  readonly names: MemberNames;
  readonly required?: boolean;
}

interface SearchConfig {
  readonly collection: Template;
  /** Present when nothing held a placeholder: parsed once at save. */
  readonly parsed?: SearchRequest;
  readonly parts: readonly (readonly [string, Template])[];
  readonly options?: Template;
}

function compileSearch(members: MemberReader, parts: readonly SearchPart[]): SearchConfig {
  const compiled: (readonly [string, Template])[] = [];
  for (const part of parts) {
    const template = part.required ? members.template(part.names) : members.optionalTemplate(part.names);
    if (template !== undefined) compiled.push([part.body, template]);
  }
  const options = members.optionalTemplate('options');
  if (options && isConstant(options) && !isPlainObject(options.value))
    members.fail('must be an object of search options', 'options');
  const collection = members.optionalTemplate('collection') ?? optionCollection(members, options);
  checkCollection(
    collection,
    members.has('collection') ? `${members.path}.collection` : `${members.path}.options.collection`,
  );
  const config: SearchConfig = { collection, parts: compiled, ...(options ? { options } : {}) };
  const constantValue = (template: Template) => (template as { value: unknown }).value;
  const allConstant = compiled.every(([, template]) => isConstant(template)) && (!options || isConstant(options));
  if (allConstant)
    return { ...config, parsed: atPath(members.path, () => parseSearch(searchBody(config, constantValue))) };
  // Check what is known at save; placeholders wait for the call.
  const constantsOnly: SearchConfig = { ...config, parts: compiled.filter(([, template]) => isConstant(template)) };
  if (!options || isConstant(options)) {
    const known = searchBody(constantsOnly, constantValue);
    const query = typeof known.query === 'string' && known.query !== '' ? known.query : 'placeholder';
    atPath(members.path, () => parseSearch({ ...known, query }));
  }
  return config;
}

async function runSearch(config: SearchConfig, rows: readonly Row[], run: Execution): Promise<Row[]> {
  const row = rows[0];
  const request = config.parsed ?? parseSearch(searchBody(config, (template) => run.resolve(template, row)));
  const { results } = await run.session.search(run.text(config.collection, row, 'collection'), request);
  return results.map((hit) => ({ ...hit.record, _score: hit.score }));
}

function optionCollection(members: MemberReader, options: Template | undefined): Template {
  if (
    options &&
    isConstant(options) &&
    isPlainObject(options.value) &&
    typeof options.value.collection === 'string' &&
    options.value.collection !== ''
  ) {
    return { kind: 'const', value: options.value.collection };
  }
  if (options && options.kind === 'object') {
    const entry = options.entries.find(([key]) => key === 'collection');
    if (entry) return entry[1];
  }
  return members.fail(
    "missing required member 'collection' (a search needs a collection; Rust's form may give it as options.collection)",
  );
}

/** The search body: the step's members, then the options under their body names (the step's own members win). */
function searchBody(config: SearchConfig, valueOf: (template: Template) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  if (config.options) {
    const options = valueOf(config.options);
    if (options !== undefined && options !== null && !isPlainObject(options)) {
      throw new InvalidInput("'options' must resolve to an object of search options");
    }
    for (const [key, value] of Object.entries(options ?? {})) {
      const name = OPTION_ALIASES[key] ?? key;
      if (!isHostileName(key) && OPTION_KEYS.has(name) && value !== null && value !== undefined) out[name] = value;
    }
  }
  for (const [key, template] of config.parts) {
    const value = unwrapVector(valueOf(template));
    if (value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0 && key === 'vector'))
      out[key] = value;
  }
  return out;
}

/** A `{type: "Vector", value: [...]}` parameter searches like the bare array. */
function unwrapVector(value: unknown): unknown {
  return isTypedWrapper(value) && (value.type === 'Vector' || value.type === 'Array') ? value.value : value;
}

/** TextSearch: the working records become the best text matches of `query_text` (BM25), each with its `_score`. */
export const textSearch = step<SearchConfig>({
  type: 'TextSearch',
  access: 'read',
  compile: (members) =>
    compileSearch(members, [
      { body: 'query', names: ['query_text', 'query', 'text_query'], required: true },
      { body: 'fields', names: 'fields' },
      { body: 'limit', names: 'limit' },
      { body: 'fuzzy', names: 'fuzzy' },
      { body: 'min_score', names: 'min_score' },
      { body: 'filters', names: ['filters', 'filter'] },
    ]),
  run: runSearch,
});

/**
 * VectorSearch: the working records become the nearest neighbours of
 * `query_vector` (at most `limit`, similarity at least `threshold`), each
 * with its `_score`. Rust's `{query_vector, options}` form names the
 * collection inside `options`.
 */
export const vectorSearch = step<SearchConfig>({
  type: 'VectorSearch',
  access: 'read',
  compile: (members) =>
    compileSearch(members, [
      { body: 'vector', names: ['query_vector', 'vector', 'vector_query'], required: true },
      { body: 'limit', names: 'limit' },
      { body: 'vector_threshold', names: ['threshold', 'vector_threshold'] },
      { body: 'vector_field', names: 'vector_field' },
      { body: 'filters', names: ['filters', 'filter'] },
    ]),
  run: runSearch,
});

/**
 * HybridSearch: text and vector scores blended (the search route's fusion)
 * when `query_vector` is given, a text search when it is absent, null or
 * empty (Go always sends it). Rust spells the members `text_query` and
 * `vector_query` and may put the rest in `options`.
 */
export const hybridSearch = step<SearchConfig>({
  type: 'HybridSearch',
  access: 'read',
  compile: (members) =>
    compileSearch(members, [
      { body: 'query', names: ['query_text', 'text_query', 'query'], required: true },
      { body: 'vector', names: ['query_vector', 'vector_query', 'vector'] },
      { body: 'limit', names: 'limit' },
      { body: 'fields', names: 'fields' },
      { body: 'text_weight', names: 'text_weight' },
      { body: 'vector_weight', names: 'vector_weight' },
      { body: 'vector_field', names: 'vector_field' },
      { body: 'filters', names: ['filters', 'filter'] },
    ]),
  run: runSearch,
});
