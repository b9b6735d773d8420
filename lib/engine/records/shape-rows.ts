/**
 * A query's projection and join, applied to the rows it matched: the
 * projection compiled once as sets, the join as one pass over each target
 * collection (target records filed by the hash key of their foreign field),
 * so the cost is rows plus targets, never rows times targets.
 */
import { applyProjection, CollectionScan, compileProjection, getPath, type Join, type Query } from '../query/index.js';
import type { Slicer } from '../time/slices.js';
import { hashKey, JoinedRecords, type Fields, type Value } from '../values/index.js';
import type { CollectionState } from '../write/state.js';

/** Rows a caller holds (a transaction's read), shaped in one piece; `targets` reads a join's target collection. */
export function shapeRows(rows: Fields[], query: Query, targets: (collection: string) => Iterable<Fields>): Fields[] {
  let joined: Map<string, Fields[]> | undefined;
  if (query.join && rows.length > 0) {
    joined = new Map();
    for (const target of query.join.collections)
      for (const record of targets(target)) addJoinTarget(joined, query.join, record);
  }
  return rows.map(shaper(query, joined));
}

/**
 * shapeRows() in slices of the event loop, the join's targets read as they
 * all were when it began (their scans open together). Rows of a query with
 * neither projection nor join are returned as they are.
 */
export async function shapeInSlices(
  rows: Fields[],
  query: Query,
  collections: ReadonlyMap<string, CollectionState>,
  now: number,
  slicer: Slicer,
): Promise<Fields[]> {
  if (!query.selectFields && !query.excludeFields && !query.join) return rows;
  let joined: Map<string, Fields[]> | undefined;
  if (query.join && rows.length > 0) {
    const join = query.join;
    const scans = join.collections.flatMap((target) => {
      const coll = collections.get(target);
      return coll ? [new CollectionScan(coll, now)] : [];
    });
    const index = new Map<string, Fields[]>();
    try {
      for (const scan of scans) await scan.each((target) => addJoinTarget(index, join, target), slicer);
    } finally {
      for (const scan of scans) scan.close();
    }
    joined = index;
  }
  const shape = shaper(query, joined);
  const out = new Array<Fields>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    out[i] = shape(rows[i]!);
    if (slicer.counted()) await slicer.pause();
  }
  return out;
}

/** The function shaping each answered row (projection, then the join's matches), prepared once per query. */
function shaper(query: Query, joined: Map<string, Fields[]> | undefined): (record: Fields) => Fields {
  const projection = compileProjection(query.selectFields, query.excludeFields);
  const join = query.join;
  return (record) => {
    const out = applyProjection(record, projection);
    if (!join || !joined) return out;
    const local = getPath(record, join.localField);
    const matches = local === undefined || local === null ? [] : (joined.get(hashKey(local)) ?? []);
    return { ...out, [join.asField]: new JoinedRecords(matches) as unknown as Value };
  };
}

/** Files `target` of a join under the hash key of its foreign field (targets in order, each in scan order). */
function addJoinTarget(index: Map<string, Fields[]>, join: Join, target: Fields): void {
  const foreign = join.foreignField === 'id' ? target.id : getPath(target, join.foreignField);
  if (foreign === undefined) return;
  const key = hashKey(foreign as Value);
  const list = index.get(key);
  if (list) list.push(target);
  else index.set(key, [target]);
}
