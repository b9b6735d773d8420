/**
 * A search on a ready vector index that has not applied every committed
 * change yet (background-builds.ts applies them a slice at a time): the
 * graph answers for the ids without a pending change, and the pending
 * changes are scored exactly beside it, so no search misses a write.
 */
import { NearestScan, type Metric, type VectorHit } from '../../vector/index.js';
import type { ReadyVectorIndex } from './search-indexes.js';
import { rawVector } from './exact-scan.js';

export function searchReady(
  ready: ReadyVectorIndex,
  field: string,
  metric: Metric,
  query: readonly number[],
  neighbours: number,
  allowed?: (id: string) => boolean,
): VectorHit[] {
  const { index, pending } = ready;
  if (pending.size === 0) return index.search(query, neighbours, allowed);
  const scan = new NearestScan(metric, query, neighbours);
  for (const hit of index.search(query, neighbours, (id) => !pending.has(id) && (!allowed || allowed(id))))
    scan.offerHit(hit);
  for (const [id, { fields }] of pending) {
    const raw = fields && rawVector(fields[field]);
    if (raw && (!allowed || allowed(id))) scan.offer(id, raw);
  }
  return scan.results();
}
