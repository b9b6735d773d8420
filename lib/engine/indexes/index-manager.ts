/**
 * Query indexes of every collection: built from the definitions (admin
 * routes and schema `index: {type: btree|hash}`), rebuilt from records at
 * startup, and kept current from the change feed, so a reader always sees
 * indexes that match the committed state. Definitions are durable (they
 * live in the collection's meta); contents are never logged.
 */
import type { EngineCore } from '../core.js';
import type { LoggedBatch } from '../write/effects.js';
import type { CommitInfo } from '../write/change-feed.js';
import type { CollectionMeta, QueryIndexDef } from '../write/state.js';
import type { Filter } from '../query/index.js';
import { fieldFromWire, sortCompare, type Value } from '../values/index.js';
import { QueryIndex, type RangeBound } from './query-index.js';

export interface IndexPlan {
  readonly index: { field: string; type: 'btree' | 'hash' };
  readonly operator: string;
  readonly ids: ReadonlySet<string>;
}

export function indexDefs(meta: CollectionMeta): Array<QueryIndexDef & { source: 'admin' | 'schema' }> {
  const out: Array<QueryIndexDef & { source: 'admin' | 'schema' }> = (meta.indexes ?? []).map((d) => ({
    ...d,
    source: 'admin' as const,
  }));
  for (const [field, def] of Object.entries(meta.schema?.fields ?? {})) {
    const type = def.index?.type;
    if ((type === 'btree' || type === 'hash') && !out.some((d) => d.field === field))
      out.push({ field, type: type, source: 'schema' });
  }
  return out;
}

export class IndexManager {
  private readonly byCollection = new Map<string, Map<string, QueryIndex>>();

  constructor(private readonly db: EngineCore) {
    for (const name of db.state.collections.keys()) this.sync(name);
    db.onCommit((b, info) => this.follow(b, info));
  }

  indexes(collection: string): ReadonlyMap<string, QueryIndex> {
    return this.byCollection.get(collection) ?? new Map();
  }

  /** Makes the live indexes of `collection` match its definitions, building new ones from the records. */
  sync(collection: string): void {
    const coll = this.db.state.collections.get(collection);
    if (!coll) {
      this.byCollection.delete(collection);
      return;
    }
    const defs = indexDefs(coll.meta);
    const current = this.byCollection.get(collection) ?? new Map<string, QueryIndex>();
    const next = new Map<string, QueryIndex>();
    for (const def of defs) {
      const existing = current.get(def.field);
      if (existing && existing.type === def.type) {
        next.set(def.field, existing);
        continue;
      }
      const idx = new QueryIndex(def.field, def.type);
      for (const [id, entry] of coll.records) idx.set(id, entry.fields[def.field]);
      next.set(def.field, idx);
    }
    if (next.size === 0) this.byCollection.delete(collection);
    else this.byCollection.set(collection, next);
  }

  private follow(batch: LoggedBatch, info: CommitInfo): void {
    const resync = new Set<string>();
    for (const effect of batch.effects) {
      if (effect.kind === 'createCollection' || effect.kind === 'setCollectionMeta') resync.add(effect.meta.name);
      else if (effect.kind === 'dropCollection') resync.add(effect.name);
    }
    // Without an index there is nothing to follow: the batch's changes are not even made (change-feed.ts).
    const changes = this.byCollection.size > 0 ? info.changes : [];
    for (const ch of changes) {
      if (resync.has(ch.collection)) continue;
      const idxs = this.byCollection.get(ch.collection);
      if (!idxs) continue;
      try {
        for (const idx of idxs.values()) {
          if (ch.event === 'delete') idx.remove(ch.id);
          else idx.set(ch.id, ch.fields?.[idx.field]);
        }
      } catch {
        // An index that missed a change would answer wrongly: rebuild it from the records instead.
        this.byCollection.delete(ch.collection);
        resync.add(ch.collection);
      }
    }
    for (const collection of resync) this.sync(collection);
  }

  /**
   * The most selective indexed condition among the filter's top-level
   * conjuncts, or undefined when none applies or a scan is as cheap.
   */
  plan(collection: string, filter: Filter | undefined): IndexPlan | undefined {
    const idxs = this.byCollection.get(collection);
    if (!idxs || !filter) return undefined;
    const conjuncts = filter.kind === 'condition' ? [filter] : filter.kind === 'and' ? filter.filters : [];
    let best: IndexPlan | undefined;
    const consider = (idx: QueryIndex, operator: string, ids: Set<string> | undefined) => {
      if (!ids) return;
      for (const id of idx.unindexable) ids.add(id);
      if (!best || ids.size < best.ids.size) best = { index: { field: idx.field, type: idx.type }, operator, ids };
    };
    const bounds = new Map<string, { lower?: RangeBound; upper?: RangeBound; ops: string[] }>();
    for (const cond of conjuncts) {
      if (cond.kind !== 'condition') continue;
      const idx = idxs.get(cond.field);
      if (!idx) continue;
      const value = cond.value as Value;
      if (idx.type === 'btree' && value !== null && RANGE_OPS.has(cond.op)) {
        // Range conditions on one field combine into one range (Gte a AND Lt b).
        const range = bounds.get(cond.field) ?? { ops: [] };
        const bound = { value, inclusive: cond.op === 'Gte' || cond.op === 'Lte' };
        if (cond.op === 'Gt' || cond.op === 'Gte') range.lower = tighter(range.lower, bound, 1);
        else range.upper = tighter(range.upper, bound, -1);
        range.ops.push(cond.op);
        bounds.set(cond.field, range);
        continue;
      }
      consider(idx, cond.op, candidates(idx, cond.op, value));
    }
    for (const [field, bound] of bounds)
      consider(idxs.get(field)!, bound.ops.join('+'), new Set(idxs.get(field)!.range(bound.lower, bound.upper)));
    const total = this.db.state.collections.get(collection)?.records.size ?? 0;
    // Past about a fifth of the records, fetching and ordering candidates costs more than a scan.
    const chosen = best as IndexPlan | undefined;
    return chosen && (chosen.ids.size <= total * 0.2 || total < 64) ? chosen : undefined;
  }
}

const RANGE_OPS: ReadonlySet<string> = new Set(['Gt', 'Gte', 'Lt', 'Lte']);

/** The stricter of two bounds on one side (`dir` 1 for lower bounds, -1 for upper). */
function tighter(current: RangeBound | undefined, candidate: RangeBound, dir: 1 | -1): RangeBound {
  if (!current) return candidate;
  const order = sortCompare(current.value, candidate.value) * dir;
  if (order !== 0) return order > 0 ? current : candidate;
  return current.inclusive ? candidate : current;
}

function candidates(idx: QueryIndex, op: string, value: Value): Set<string> | undefined {
  const range = (lower?: RangeBound, upper?: RangeBound) =>
    idx.type === 'btree' ? new Set(idx.range(lower, upper)) : undefined;
  switch (op) {
    case 'Eq':
      return value === null ? undefined : new Set(idx.equal(value));
    case 'In': {
      if (!Array.isArray(value) || value.some((v) => v === null)) return undefined;
      const out = new Set<string>();
      for (const item of value as Value[]) for (const id of idx.equal(normalize(item))) out.add(id);
      return out;
    }
    case 'Gt':
      return value === null ? undefined : range({ value, inclusive: false });
    case 'Gte':
      return value === null ? undefined : range({ value, inclusive: true });
    case 'Lt':
      return value === null ? undefined : range(undefined, { value, inclusive: false });
    case 'Lte':
      return value === null ? undefined : range(undefined, { value, inclusive: true });
    default:
      return undefined;
  }
}

/** In-list elements arrive raw; compare them the way conditions do. */
function normalize(value: Value): Value {
  return typeof value === 'string' ? fieldFromWire(value, 'in') : value;
}
