/**
 * Exact nearest-neighbour scan over a collection's committed records: how a
 * vector search is answered while its HNSW index is built or catching up.
 * Reads vectors in place (no copy per query); O(n·d) per query, with the
 * same scores and tie order as BruteForceIndex.
 */
import { NearestScan, type Metric, type VectorHit } from '../../vector/index.js';
import type { RecordEntry } from '../write/state.js';
import { Slicer } from '../time/slices.js';
import { Tagged, type Value } from '../values/index.js';

/** What a nearest-neighbour search looks for: the `neighbours` records nearest `query` by their `field` vector. */
export interface NearestQuery {
  readonly field: string;
  readonly metric: Metric;
  readonly query: readonly number[];
  readonly neighbours: number;
  /** Only ids it lets through are candidates. */
  readonly allowed?: (id: string) => boolean;
}

/**
 * The records of `records` nearest the query by their field's vector (a Vector value or a bare array); others are
 * skipped.
 */
export function exactVectorScan(records: ReadonlyMap<string, RecordEntry> | undefined, q: NearestQuery): VectorHit[] {
  const scan = new NearestScan(q.metric, q.query, q.neighbours);
  for (const [id, entry] of records ?? []) offerRecord(scan, id, entry, q);
  return scan.results();
}

/** exactVectorScan in slices that yield the event loop; writes made meanwhile are seen as the walk reaches them. */
export function exactVectorScanInSlices(
  records: ReadonlyMap<string, RecordEntry> | undefined,
  q: NearestQuery,
): Promise<VectorHit[]> {
  return scanInSlices(records ?? [], q);
}

/**
 * exactVectorScanInSlices over the records of `ids` alone (those gone are skipped): what a graph does not cover yet,
 * or what a selective filter lets through.
 */
export function exactScanOfIds(
  records: ReadonlyMap<string, RecordEntry> | undefined,
  ids: Iterable<string>,
  q: NearestQuery,
): Promise<VectorHit[]> {
  const entries = (function* () {
    for (const id of ids) yield [id, records?.get(id)] as const;
  })();
  return scanInSlices(entries, q);
}

async function scanInSlices(
  entries: Iterable<readonly [string, RecordEntry | undefined]>,
  q: NearestQuery,
): Promise<VectorHit[]> {
  const scan = new NearestScan(q.metric, q.query, q.neighbours);
  // Scoring one vector is cheap beside reading the clock: the clock is read every 512 of them.
  const slicer = new Slicer(512);
  for (const [id, entry] of entries) {
    if (entry) offerRecord(scan, id, entry, q);
    if (slicer.counted()) await slicer.pause();
  }
  return scan.results();
}

/** Offers `entry`'s vector to `scan` when it has the query's dimensions and `allowed` lets it through. */
function offerRecord(scan: NearestScan, id: string, entry: RecordEntry, q: NearestQuery): void {
  const raw = rawVector(entry.fields[q.field]);
  if (raw && raw.length === q.query.length && (!q.allowed || q.allowed(id))) scan.offer(id, raw);
}

/** The array a field holds (a Vector value or a bare array), unchecked: NearestScan skips what is not a vector. */
export function rawVector(value: Value | undefined): readonly unknown[] | undefined {
  const raw = value instanceof Tagged && value.type === 'Vector' ? value.value : value;
  return Array.isArray(raw) ? raw : undefined;
}

/**
 * The graph's hits scored again from the records' own vectors: hnswlib keeps
 * float32 copies, so its scores differ from an exact scan's in the eighth
 * digit. The graph chooses the candidates; every answer's scores (and order
 * among them) are those of the exact scan, whichever path answered.
 */
export function rescoreExactly(
  records: ReadonlyMap<string, RecordEntry> | undefined,
  field: string,
  metric: Metric,
  query: readonly number[],
  hits: readonly VectorHit[],
): VectorHit[] {
  const scan = new NearestScan(metric, query, hits.length);
  for (const hit of hits) {
    const raw = rawVector(records?.get(hit.id)?.fields[field]);
    if (raw && raw.length === query.length) scan.offer(hit.id, raw);
    else scan.offerHit(hit);
  }
  return scan.results();
}
