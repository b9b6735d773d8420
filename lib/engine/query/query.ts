/**
 * The find query (protocol.md 2.4): parsing the POST /api/find body (also
 * the WS Query and the function Query step) and running filter, sort, skip
 * and limit over a collection's records.
 *
 * Rust sends absent members as null, so null means absent everywhere here.
 * Projection and joins are parsed but applied by the engine, which can see
 * other collections; `runQuery` does neither.
 */
import { InvalidInput } from '../../errors.js';
import { checkLimit, MAX_JOIN_COLLECTIONS } from '../input/limits.js';
import { exactNumber, isPlainObject, type Fields } from '../values/index.js';
import { kindOf, shown } from './describe-input.js';
import { parseFieldPath } from './field-path.js';
import { parseFilter, type Filter } from './filter.js';
import { matcherOf } from './match.js';
import { parseFieldList } from './project.js';
import { parseSort, sortRecords, SortedRows, type SortKey } from './sort.js';
import { SCAN_CHECK_EVERY, type RecordSource } from './collection-scan.js';
import { Slicer } from '../time/slices.js';

export interface Join {
  /** One or more target collections, non-empty names. */
  readonly collections: readonly string[];
  /** Path read from the base record. */
  readonly localField: string;
  /** Path read from target records; `id` is the target's record id. */
  readonly foreignField: string;
  /** Field that receives the array of matching target records. */
  readonly asField: string;
}

export interface Query {
  readonly filter?: Filter;
  /** Empty when unsorted. */
  readonly sort: readonly SortKey[];
  readonly skip: number;
  readonly limit?: number;
  readonly selectFields?: readonly string[];
  readonly excludeFields?: readonly string[];
  readonly join?: Join;
  readonly bypassCache: boolean;
  readonly bypassRipple: boolean;
  readonly transactionId?: string;
}

export const QUERY_KEYS = [
  'filter',
  'sort',
  'limit',
  'skip',
  'offset',
  'select_fields',
  'exclude_fields',
  'join',
  'bypass_cache',
  'bypass_ripple',
  'transaction_id',
] as const;

const JOIN_KEYS = ['collections', 'local_field', 'foreign_field', 'as_field'] as const;

function assertKnownKeys(obj: Record<string, unknown>, allowed: readonly string[], where: string): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) {
      throw new InvalidInput(`Unknown key ${shown(key)} in ${where}; allowed keys are ${allowed.join(', ')}`);
    }
  }
}

function present(value: unknown): boolean {
  return value !== null && value !== undefined;
}

function parseCount(raw: unknown, name: string): number | undefined {
  if (!present(raw)) return undefined;
  const number = exactNumber(raw);
  if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 0) {
    const got = typeof number === 'number' || typeof number === 'bigint' ? String(number).slice(0, 40) : kindOf(raw);
    throw new InvalidInput(`Invalid ${name}: expected a non-negative integer, got ${got}`);
  }
  return number;
}

function parseBool(raw: unknown, name: string): boolean {
  if (!present(raw)) return false;
  if (typeof raw !== 'boolean') throw new InvalidInput(`Invalid ${name}: expected true or false, got ${kindOf(raw)}`);
  return raw;
}

function parseSkip(body: Record<string, unknown>): number {
  const skip = parseCount(body.skip, 'skip');
  const offset = parseCount(body.offset, 'offset');
  if (skip !== undefined && offset !== undefined && skip !== offset) {
    throw new InvalidInput(`Conflicting skip (${skip}) and offset (${offset}); send only one`);
  }
  return skip ?? offset ?? 0;
}

function parseCollections(raw: unknown): string[] {
  const list = typeof raw === 'string' ? [raw] : raw;
  if (!Array.isArray(list) || list.length === 0) {
    throw new InvalidInput(
      `Invalid join.collections: expected a collection name or a non-empty array of names, got ${kindOf(raw)}`,
    );
  }
  checkLimit(list.length, MAX_JOIN_COLLECTIONS, 'join.collections', 'collections');
  return list.map((name, index) => {
    if (typeof name !== 'string' || name.length === 0) {
      throw new InvalidInput(
        `Invalid join.collections[${index}]: expected a non-empty collection name, got ${shown(name)}`,
      );
    }
    return name;
  });
}

/**
 * Parses a join clause `{collections, local_field, foreign_field, as_field}`.
 * `collections` may be one name or an array of at most MAX_JOIN_COLLECTIONS.
 * Throws InvalidInput for unknown keys, missing or empty names, too many
 * collections, or `as_field` equal to `id`.
 */
export function parseJoin(raw: unknown): Join {
  if (!isPlainObject(raw)) throw new InvalidInput(`Invalid join: expected an object, got ${kindOf(raw)}`);
  assertKnownKeys(raw, JOIN_KEYS, 'join');
  const asField = parseFieldPath(raw.as_field, 'join.as_field');
  if (asField === 'id') throw new InvalidInput(`Invalid join.as_field 'id': the record id cannot be replaced`);
  return Object.freeze({
    collections: Object.freeze(parseCollections(raw.collections)),
    localField: parseFieldPath(raw.local_field, 'join.local_field'),
    foreignField: parseFieldPath(raw.foreign_field, 'join.foreign_field'),
    asField,
  });
}

function parseTransactionId(raw: unknown): string | undefined {
  if (!present(raw)) return undefined;
  if (typeof raw !== 'string' || raw.length === 0) {
    throw new InvalidInput(`Invalid transaction_id: expected a non-empty string, got ${kindOf(raw)}`);
  }
  return raw;
}

/**
 * Parses a find body. `{}` is the match-all query. Null members are absent.
 * Throws InvalidInput for a non-object body, unknown top-level keys (the
 * message lists the allowed ones), a negative or non-integer limit/skip, or
 * any invalid filter, sort, field list or join.
 */
export function parseQuery(body: unknown): Query {
  if (!isPlainObject(body)) throw new InvalidInput(`Invalid query body: expected a JSON object, got ${kindOf(body)}`);
  assertKnownKeys(body, QUERY_KEYS, 'query body');
  const query: {
    -readonly [K in keyof Query]: Query[K];
  } = {
    sort: Object.freeze(parseSort(body.sort)),
    skip: parseSkip(body),
    bypassCache: parseBool(body.bypass_cache, 'bypass_cache'),
    bypassRipple: parseBool(body.bypass_ripple, 'bypass_ripple'),
  };
  if (present(body.filter)) query.filter = parseFilter(body.filter);
  const limit = parseCount(body.limit, 'limit');
  if (limit !== undefined) query.limit = limit;
  const select = parseFieldList(body.select_fields, 'select_fields');
  if (select) query.selectFields = Object.freeze(select);
  const exclude = parseFieldList(body.exclude_fields, 'exclude_fields');
  if (exclude) query.excludeFields = Object.freeze(exclude);
  if (present(body.join)) query.join = parseJoin(body.join);
  const tx = parseTransactionId(body.transaction_id);
  if (tx !== undefined) query.transactionId = tx;
  return Object.freeze(query);
}

type QueryPart = Partial<Pick<Query, 'filter' | 'sort' | 'skip' | 'limit'>>;

/**
 * runQuery() over a source walked in slices of the event loop (a collection
 * scan): a query over a million records never holds it. With sort keys and
 * a limit, only the best skip + limit rows are held (SortedRows).
 */
export async function runQueryInSlices(
  source: RecordSource,
  query: QueryPart = {},
  slicer = new Slicer(SCAN_CHECK_EVERY),
): Promise<Fields[]> {
  const { limit } = query;
  const matches = query.filter && matcherOf(query.filter);
  const skip = query.skip ?? 0;
  if (query.sort && query.sort.length > 0) {
    const rows = new SortedRows(query.sort, limit === undefined ? undefined : skip + limit);
    await source.each((r) => {
      if (!matches || matches(r)) rows.add(r);
    }, slicer);
    const sorted = await rows.sorted(slicer);
    return limit === undefined ? sorted.slice(skip) : sorted.slice(skip, skip + limit);
  }
  const out: Fields[] = [];
  if (limit === 0) return out;
  let skipped = 0;
  await source.each((record) => {
    if (matches && !matches(record)) return true;
    if (skipped < skip) {
      skipped++;
      return true;
    }
    out.push(record);
    return limit === undefined || out.length < limit;
  }, slicer);
  return out;
}

/**
 * Filters, sorts, skips and limits `records`, in that order; every member of
 * `query` is optional. In one piece: for records a caller already holds (a
 * transaction's view); a query over a collection runs in slices
 * (runQueryInSlices). Without sort keys the result keeps iteration order and
 * iteration stops as soon as skip+limit matches were seen. Returns the stored
 * field objects themselves (not copies); projection and joins are the
 * caller's job.
 */
export function runQuery(records: Iterable<Fields>, query: QueryPart = {}): Fields[] {
  const { limit } = query;
  const matches = query.filter && matcherOf(query.filter);
  const skip = query.skip ?? 0;
  if (query.sort && query.sort.length > 0) {
    const matched: Fields[] = [];
    for (const record of records) if (!matches || matches(record)) matched.push(record);
    const sorted = sortRecords(matched, query.sort);
    return limit === undefined ? sorted.slice(skip) : sorted.slice(skip, skip + limit);
  }
  const out: Fields[] = [];
  if (limit === 0) return out;
  let skipped = 0;
  for (const record of records) {
    if (matches && !matches(record)) continue;
    if (skipped < skip) {
      skipped++;
      continue;
    }
    out.push(record);
    if (limit !== undefined && out.length >= limit) break;
  }
  return out;
}
