/**
 * `POST /api/search/{c}` (protocol.md 2.9): text search (BM25, stemming,
 * fuzzy, field weights, case sensitivity, exact boost, min_score), vector
 * search (k nearest with a threshold), or hybrid (weighted fusion when both
 * a query and a vector are given). Metadata `filters` restrict the
 * candidates before ranking. Results carry the record, score and matched
 * fields; projection applies to the record. Over 400 lines: the body's
 * parser and the three kinds of search share the request and its hits.
 */
import { InvalidInput } from '../../errors.js';
import { checkLimit, MAX_FIELD_NAMES } from '../input/limits.js';
import { rejectUnknownMembers } from '../input/members.js';
import {
  fuseScores,
  isMetric,
  isVectorComponent,
  NearestScan,
  TextIndex,
  type Metric,
  type VectorHit,
} from '../../vector/index.js';
import type { EngineCore } from '../core.js';
import {
  applyProjection,
  compileProjection,
  matchFilter,
  parseFieldList,
  parseFilter,
  type Filter,
} from '../query/index.js';
import { isExpired } from '../time/ttl.js';
import { isPlainObject, type Fields } from '../values/index.js';
import {
  textFieldsOf,
  vectorOf,
  type GraphVectorIndex,
  type ReadyVectorIndex,
  type SearchIndexes,
} from './search-indexes.js';
import { exactVectorScanInSlices, rescoreExactly } from './exact-scan.js';
import { searchGraph } from './graph-search.js';
import { searchReady } from './ready-search.js';

export interface SearchRequest {
  query: string;
  language?: string;
  caseSensitive?: boolean;
  fuzzy?: boolean;
  stemming?: boolean;
  boostExact?: boolean;
  minScore?: number;
  maxEditDistance?: number;
  fields?: string[];
  weights?: Record<string, number>;
  limit?: number;
  vector?: number[];
  vectorField: string;
  vectorMetric?: Metric;
  vectorK?: number;
  vectorThreshold?: number;
  textWeight?: number;
  vectorWeight?: number;
  selectFields?: string[];
  excludeFields?: string[];
  filter?: Filter;
}

export interface SearchHit {
  record: Fields;
  score: number;
  matched_fields: string[];
}

const KEYS = new Set([
  'query',
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
  'vector',
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

const present = (v: unknown) => v !== undefined && v !== null;

function bool(body: Record<string, unknown>, key: string): boolean | undefined {
  if (!present(body[key])) return undefined;
  if (typeof body[key] !== 'boolean') throw new InvalidInput(`'${key}' must be a boolean`);
  return body[key] as boolean;
}

function num(
  body: Record<string, unknown>,
  key: string,
  min: number,
  max: number,
  integer = false,
): number | undefined {
  if (!present(body[key])) return undefined;
  const value = body[key];
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    value < min ||
    value > max ||
    (integer && !Number.isInteger(value))
  ) {
    throw new InvalidInput(`'${key}' must be ${integer ? 'an integer' : 'a number'} between ${min} and ${max}`);
  }
  return value;
}

function parseWeights(raw: unknown): Record<string, number> | undefined {
  if (!present(raw)) return undefined;
  const entries: Array<[string, unknown]> =
    typeof raw === 'string'
      ? raw
          .split(',')
          .map((p) => p.trim())
          .filter(Boolean)
          .map((p) => {
            const i = p.lastIndexOf(':');
            return [p.slice(0, i), Number(p.slice(i + 1))];
          })
      : isPlainObject(raw)
        ? Object.entries(raw)
        : (() => {
            throw new InvalidInput('\'weights\' must be "field:weight,..." or an object');
          })();
  checkLimit(entries.length, MAX_FIELD_NAMES, 'weights', 'fields');
  const out: Record<string, number> = Object.create(null);
  for (const [field, weight] of entries) {
    if (!field || typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0)
      throw new InvalidInput(`Invalid weight for field '${field}'`);
    out[field] = weight;
  }
  return out;
}

/**
 * Parses a search body. A `query` alone is a text search, a `vector` alone a
 * nearest-neighbour search (`query` absent, null or ""), both a hybrid one.
 * Throws InvalidInput for a body with neither, an unknown member, or a
 * member of the wrong type or out of range.
 */
export function parseSearch(body: unknown): SearchRequest {
  if (!isPlainObject(body)) throw new InvalidInput('Search body must be a JSON object');
  rejectUnknownMembers(body, KEYS, 'search body', null);
  if (present(body.query) && typeof body.query !== 'string') throw new InvalidInput("'query' must be a string");
  const query = (body.query as string | undefined) ?? '';
  let vector: number[] | undefined;
  if (present(body.vector)) {
    if (
      !Array.isArray(body.vector) ||
      body.vector.length === 0 ||
      !body.vector.every((x) => typeof x === 'number' && Number.isFinite(x))
    ) {
      throw new InvalidInput("'vector' must be a non-empty array of numbers");
    }
    const beyond = body.vector.findIndex((x) => !isVectorComponent(x));
    if (beyond >= 0)
      throw new InvalidInput(`'vector' component ${beyond} is beyond a 32-bit float's range (about ±3.4e38)`);
    vector = body.vector as number[];
  }
  if (query === '' && !vector) {
    throw new InvalidInput(
      "Give a 'query' (text search), a 'vector' (nearest-neighbour search), or both (hybrid search)",
    );
  }
  if (present(body.vector_metric) && !isMetric(body.vector_metric))
    throw new InvalidInput("'vector_metric' must be cosine, euclidean or dotproduct");
  if (present(body.vector_field) && typeof body.vector_field !== 'string')
    throw new InvalidInput("'vector_field' must be a string");
  if (present(body.language) && typeof body.language !== 'string')
    throw new InvalidInput("'language' must be a string");
  return {
    query,
    vector,
    language: body.language as string | undefined,
    caseSensitive: bool(body, 'case_sensitive'),
    fuzzy: bool(body, 'fuzzy'),
    stemming: bool(body, 'enable_stemming'),
    boostExact: bool(body, 'boost_exact'),
    minScore: num(body, 'min_score', -1e9, 1e9),
    maxEditDistance: num(body, 'max_edit_distance', 0, 5, true),
    fields: parseFieldList(body.fields, 'fields'),
    weights: parseWeights(body.weights),
    limit: num(body, 'limit', 1, 100_000, true),
    vectorField: (body.vector_field as string | undefined) ?? 'embedding',
    vectorMetric: body.vector_metric as Metric | undefined,
    vectorK: num(body, 'vector_k', 1, 100_000, true),
    vectorThreshold: num(body, 'vector_threshold', -1e9, 1e9),
    textWeight: num(body, 'text_weight', 0, 1e6),
    vectorWeight: num(body, 'vector_weight', 0, 1e6),
    selectFields: parseFieldList(body.select_fields, 'select_fields'),
    excludeFields: parseFieldList(body.exclude_fields, 'exclude_fields'),
    filter: present(body.filters) ? parseFilter(body.filters, 'filters') : undefined,
  };
}

/** What a search reads: committed records, the clock and the collections' search indexes. */
export type SearchSource = Pick<EngineCore, 'state' | 'now'> & { readonly search: SearchIndexes };

/**
 * Runs a search over committed records, or over `view` (a transaction's own
 * records, searched exactly) when given.
 */
export async function runSearch(
  db: SearchSource,
  collection: string,
  req: SearchRequest,
  view?: Map<string, Fields>,
): Promise<{ results: SearchHit[]; total: number }> {
  // A text search needs the collection's text index whole (a BM25 score reads the corpus's statistics): it waits
  // while the index is built in background slices, instead of building it here and holding the event loop for
  // seconds.
  const text = req.query.trim() !== '' && !view ? await db.search.textReady(collection) : undefined;
  // A vector search is answered by an HNSW graph of its metric (graph-search.ts) or a ready flat index, else by an
  // exact scan in slices. The rest runs in one tick, so the indexes and the records they read agree.
  let vector: VectorAnswer | undefined;
  if (req.vector && !view) {
    const index = vectorIndexFor(db, collection, req);
    vector =
      !index || 'remote' in index ? { scanned: await searchInSlices(db, collection, req, index) } : { ready: index };
  }
  return searchNow(db, collection, req, view, text, vector);
}

/** How runSearch answers a vector search over committed records: a ready flat index, or the hits of a scan or graph. */
type VectorAnswer = { readonly ready: ReadyVectorIndex } | { readonly scanned: VectorHit[] };

function searchNow(
  db: SearchSource,
  collection: string,
  req: SearchRequest,
  view: Map<string, Fields> | undefined,
  text: TextIndex | undefined,
  vector: VectorAnswer | undefined,
): { results: SearchHit[]; total: number } {
  const get = view ? (id: string) => view.get(id) : committedReader(db, collection);
  const allowed = passing(get, req.filter);
  // Without metadata filters the indexes search unfiltered (a filter costs a call per record); hits are checked after.
  const filter = req.filter || view ? allowed : undefined;
  const limit = req.limit ?? req.vectorK ?? 10;
  const hybrid = req.query.trim() !== '' && req.vector !== undefined;
  const textHits =
    req.query.trim() === ''
      ? undefined
      : textSearch(text, req, filter, view, hybrid ? undefined : limit * 2 + 10)?.filter(
          (h) => filter || get(h.id) !== undefined,
        );
  const vectorHits = !req.vector
    ? undefined
    : vector && 'scanned' in vector
      ? vector.scanned.filter((h) => allowed(h.id))
      : overThreshold(req, vectorSearch(db, collection, req, filter, view, vector?.ready)).filter(
          (h) => filter || get(h.id) !== undefined,
        );
  const fused =
    textHits && vectorHits
      ? fuseScores(textHits, vectorHits, { textWeight: req.textWeight ?? 0.5, vectorWeight: req.vectorWeight ?? 0.5 })
      : (textHits ?? (vectorHits ?? []).map((h) => ({ id: h.id, score: h.score, matchedFields: [] as string[] })));
  const projection = compileProjection(req.selectFields, req.excludeFields);
  const results = fused.slice(0, limit).map((hit) => ({
    record: applyProjection(get(hit.id)!, projection),
    score: hit.score,
    matched_fields: [...hit.matchedFields],
  }));
  return { results, total: results.length };
}

/** Whether a record is there (per `get`) and matches `filter` when one is given. */
function passing(get: (id: string) => Fields | undefined, filter: Filter | undefined): (id: string) => boolean {
  return (id) => {
    const r = get(id);
    return r !== undefined && (!filter || matchFilter(filter, r));
  };
}

/** The metric a vector search scores by: its own, else the index's. */
function metricOf(db: SearchSource, collection: string, req: SearchRequest): Metric {
  return req.vectorMetric ?? db.search.configOf(collection, req.vectorField).metric;
}

/** A committed record by id, unless expired; never copies the collection. */
function committedReader(db: SearchSource, collection: string): (id: string) => Fields | undefined {
  const now = db.now();
  const committed = db.state.collections.get(collection)?.records;
  return (id) => {
    const entry = committed?.get(id);
    return entry && !isExpired(entry, now) ? entry.fields : undefined;
  };
}

/**
 * Neighbours asked of an index or a scan: unfiltered searches ask for a few extra, as expired records are dropped
 * after.
 */
function neighboursWanted(req: SearchRequest, filtered: boolean): number {
  return (req.vectorK ?? req.limit ?? 10) + (filtered ? 0 : 8);
}

function overThreshold(req: SearchRequest, hits: VectorHit[]): VectorHit[] {
  return req.vectorThreshold === undefined ? hits : hits.filter((h) => h.score >= req.vectorThreshold!);
}

/**
 * The vector index that answers the search, if its metric is the search's (starts the index's build when there is
 * none).
 */
function vectorIndexFor(
  db: SearchSource,
  collection: string,
  req: SearchRequest,
): ReadyVectorIndex | GraphVectorIndex | undefined {
  if (metricOf(db, collection, req) !== db.search.configOf(collection, req.vectorField).metric) return undefined;
  return db.search.vectorFor(collection, req.vectorField, req.vector!.length);
}

/**
 * The hits of an HNSW graph (graph-search.ts), or without one of the exact scan of the committed records, both in
 * slices that yield the event loop (a large scan would hold it); those over the threshold.
 */
async function searchInSlices(
  db: SearchSource,
  collection: string,
  req: SearchRequest,
  graph?: GraphVectorIndex,
): Promise<VectorHit[]> {
  const allowed = req.filter ? passing(committedReader(db, collection), req.filter) : undefined;
  const records = db.state.collections.get(collection)?.records;
  const q = {
    field: req.vectorField,
    metric: metricOf(db, collection, req),
    query: req.vector!,
    neighbours: neighboursWanted(req, !!allowed),
    allowed,
  };
  const hits = graph ? await searchGraph(records, graph, q) : await exactVectorScanInSlices(records, q);
  return overThreshold(req, hits);
}

/**
 * `committed`: the collection's text index, ready (runSearch waited for it); a transaction's `view` is indexed here
 * instead.
 */
function textSearch(
  committed: TextIndex | undefined,
  req: SearchRequest,
  allowed: ((id: string) => boolean) | undefined,
  view: Map<string, Fields> | undefined,
  limit: number | undefined,
) {
  let index: TextIndex;
  if (view) {
    index = new TextIndex();
    for (const [id, record] of view) index.add(id, textFieldsOf(record));
  } else index = committed!;
  return index.search(req.query, {
    ...(req.fields ? { fields: req.fields } : {}),
    ...(req.weights ? { weights: req.weights } : {}),
    fuzzy: req.fuzzy ?? false,
    ...(req.maxEditDistance !== undefined ? { maxEditDistance: req.maxEditDistance } : {}),
    caseSensitive: req.caseSensitive ?? false,
    ...(req.language ? { language: req.language } : {}),
    stemming: req.stemming ?? true,
    ...(req.minScore !== undefined ? { minScore: req.minScore } : {}),
    boostExact: req.boostExact ?? true,
    ...(allowed ? { filter: allowed } : {}),
    ...(limit !== undefined ? { limit } : {}),
  });
}

/**
 * A vector search answered by a transaction's own `view` (exactly) or by the collection's `ready` index (runSearch
 * found it).
 */
function vectorSearch(
  db: SearchSource,
  collection: string,
  req: SearchRequest,
  allowed: ((id: string) => boolean) | undefined,
  view: Map<string, Fields> | undefined,
  ready: ReadyVectorIndex | undefined,
): VectorHit[] {
  const neighbours = neighboursWanted(req, !!allowed);
  const metric = metricOf(db, collection, req);
  if (view) {
    // Exact search over a transaction's own view: the scan the committed path falls back to, without copying vectors.
    const scan = new NearestScan(metric, req.vector!, neighbours);
    for (const [id, record] of view) {
      const vector = vectorOf(record[req.vectorField]);
      if (vector && (!allowed || allowed(id))) scan.offer(id, vector);
    }
    return scan.results();
  }
  return rescoreExactly(
    db.state.collections.get(collection)?.records,
    req.vectorField,
    metric,
    req.vector!,
    searchReady(ready!, req.vectorField, metric, req.vector!, neighbours, allowed),
  );
}
