/**
 * Exact nearest-neighbour scan over a collection's committed records: how a
 * vector search is answered while its HNSW index is building, catching up or
 * being saved. Reads vectors in place (no copy per query); O(n·d) per query,
 * with the same scores and tie order as BruteForceIndex.
 */
import { scanNearest, type Metric, type VectorHit } from '../../vector/index.js';
import type { RecordEntry } from '../state.js';
import { vectorOf } from './search-fields.js';

/** The k records of `records` whose `field` vector is nearest `query`; records with other dimensions are skipped. */
export function exactVectorScan(
  records: ReadonlyMap<string, RecordEntry> | undefined, field: string, metric: Metric, query: readonly number[], k: number,
  allowed?: (id: string) => boolean,
): VectorHit[] {
  return scanNearest(metric, query, k, candidates(records, field, query.length, allowed));
}

function* candidates(records: ReadonlyMap<string, RecordEntry> | undefined, field: string, dims: number, allowed?: (id: string) => boolean):
  Generator<readonly [string, number[]]> {
  if (!records) return;
  for (const [id, e] of records) {
    const vector = vectorOf(e.fields[field]);
    if (vector && vector.length === dims && (!allowed || allowed(id))) yield [id, vector];
  }
}
