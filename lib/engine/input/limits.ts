/**
 * Bounds on every list a request may carry, so that the work one request can
 * make the server do stays bounded: a list is checked where it is parsed,
 * before any per-record work, and one over its limit is a 400 naming the
 * member. The "Limits" table of docs/http-api.md lists these values; keep both in step.
 *
 * Batch sizes (records per batch request, keys per KV batch) are not here:
 * they are the run-time setting `max_batch_size`. Sizes of single values
 * (KV key length, nesting of record values, body bytes) live with their
 * parsers.
 */
import { InvalidInput } from '../../errors.js';

/** Names in `select_fields`, `exclude_fields`, search `fields` and `weights`, and a key's `writable_fields`. */
export const MAX_FIELD_NAMES = 1_000;
/** Characters in one field path (filter fields, sort keys, projections, joins, distinct). */
export const MAX_FIELD_PATH_LENGTH = 1_024;
/** Values in one `In` / `NotIn` list. */
export const MAX_IN_VALUES = 10_000;
/** `In` / `NotIn` values in one filter, all lists together. */
export const MAX_FILTER_VALUES = 100_000;
/** Expressions (conditions and logical nodes) in one filter. */
export const MAX_FILTER_EXPRESSIONS = 1_000;
/** Nesting of one filter, counting the root as 1. */
export const MAX_FILTER_DEPTH = 32;
/** Keys in one `sort`. */
export const MAX_SORT_KEYS = 32;
/** Target collections of one `join`. */
export const MAX_JOIN_COLLECTIONS = 16;
/** Steps in one update action sequence. */
export const MAX_ACTION_STEPS = 1_000;
/** Texts in one `POST /api/embed` (the OpenAI embeddings API takes as many). */
export const MAX_EMBED_TEXTS = 2_048;
/** Key prefixes in one key's `kv_permissions.prefixes`. */
export const MAX_KV_PREFIXES = 100;
/** Query indexes on one collection (each one is kept up to date on every write). */
export const MAX_QUERY_INDEXES = 64;

/**
 * Throws InvalidInput naming `member` when `count` exceeds `limit`.
 * Call it before iterating the list, so an oversized list costs nothing.
 */
export function checkLimit(count: number, limit: number, member: string, what = 'entries'): void {
  if (count > limit) throw new InvalidInput(`'${member}' has ${count} ${what}; at most ${limit} are allowed`);
}
