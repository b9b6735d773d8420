/**
 * A vector search on an HNSW graph kept in the HNSW worker, during its build
 * as well as after: the worker answers for what the graph covers, and the
 * ids it does not cover yet (pending changes, records the build has not
 * reached) are scored exactly here, in slices that yield the event loop. So
 * a search during a build costs at most one exact scan of what is left, and
 * once built it is one graph search in the worker.
 *
 * The graph search is posted first and runs in the worker while the exact
 * part runs here: the ids to score exactly were listed before it was
 * posted, so a change the worker has not seen is in that list, even when
 * a batch takes it to the worker meanwhile. The graph's candidates
 * are scored again from the records' own vectors in the tick that answers
 * (rescoreExactly): hnswlib keeps float32 copies, and a candidate changed
 * meanwhile is scored by its current vector. A filter that lets few records
 * through is served by an exact scan of those alone, without the worker.
 * Should the worker fail meanwhile, the search is an exact scan of every
 * record, as on a failed index.
 */
import type { VectorHit } from '../../vector/index.js';
import type { RecordEntry } from '../write/state.js';
import { Slicer } from '../time/slices.js';
import { exactScanOfIds, rescoreExactly, type NearestQuery } from './exact-scan.js';
import type { GraphVectorIndex } from './search-indexes.js';

/** Filters letting through fewer than this share of the records are served exactly... */
const EXACT_FILTER_SHARE = 0.02;
/** ...as are filters letting through fewer than this many records per requested neighbour. */
const EXACT_FILTER_PER_K = 10;

/** The records nearest the query by their field's vector, best first, among those it allows; scores are exact. */
export async function searchGraph(
  records: ReadonlyMap<string, RecordEntry> | undefined,
  graph: GraphVectorIndex,
  q: NearestQuery,
): Promise<VectorHit[]> {
  let allowedIds: string[] | undefined;
  if (q.allowed) {
    allowedIds = await idsPassing(records, q.allowed);
    const total = records?.size ?? 0;
    if (allowedIds.length < Math.max(total * EXACT_FILTER_SHARE, q.neighbours * EXACT_FILTER_PER_K))
      return exactScanOfIds(records, allowedIds, q);
  }
  const { remote } = graph;
  const graphHits =
    remote.size > 0 || remote.inFlight > 0
      ? remote.search(q.query, q.neighbours, allowedIds).catch(() => undefined)
      : Promise.resolve([]);
  const exact = await exactScanOfIds(records, graph.uncovered, q);
  const fromGraph = await graphHits;
  if (!fromGraph) return exactScanOfIds(records, records?.keys() ?? [], q);
  const candidates = new Map(exact.map((hit) => [hit.id, hit]));
  for (const hit of fromGraph) if (!candidates.has(hit.id)) candidates.set(hit.id, hit);
  return rescoreExactly(records, q.field, q.metric, q.query, [...candidates.values()]).slice(0, q.neighbours);
}

/** Ids of the records `allowed` lets through, in slices. */
async function idsPassing(
  records: ReadonlyMap<string, RecordEntry> | undefined,
  allowed: (id: string) => boolean,
): Promise<string[]> {
  const out: string[] = [];
  const slicer = new Slicer(256);
  for (const id of records?.keys() ?? []) {
    if (allowed(id)) out.push(id);
    if (slicer.counted()) await slicer.pause();
  }
  return out;
}
