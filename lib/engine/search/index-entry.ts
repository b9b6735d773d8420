/**
 * One search index of a collection (the text index, or the vector index of
 * one field) and where it stands, plus the steps that bring records into it.
 *
 * Nothing is indexed inside a commit: the change feed only records each
 * change in `pending` (latest wins, with its seq), and background-builds.ts
 * applies pending changes and walks (builds, catch-ups after loading) a
 * slice at a time, so a large batch of vectors never holds the event loop
 * for its HNSW inserts. A walk skips the ids the change feed `touched`
 * since it started (their pending change is newer than what the walk would
 * read), so none is lost or overwritten with an older view. Searches on a
 * ready index score its pending changes exactly beside it (ready-search.ts).
 */
import {
  BruteForceIndex,
  HNSW_DEFAULTS,
  HnswIndex,
  TextIndex,
  type Metric,
  type VectorIndex,
} from '../../vector/index.js';
import type { RecordEntry } from '../write/state.js';
import type { Fields } from '../values/index.js';
import { textFieldsOf, vectorOf } from './search-fields.js';

export type IndexKind = 'vector' | 'text';

/**
 * - building: filled from the records; searches scan exactly meanwhile.
 * - stale: loaded from disk (or being loaded) and catching up on the records
 *   changed after its snapshot; searches scan exactly meanwhile.
 * - ready: current; searches use it.
 * - failed: could not be built; searches scan exactly; `note` says why.
 */
export type IndexState = 'ready' | 'building' | 'stale' | 'failed';

export interface VectorConfig {
  algorithm: 'hnsw' | 'flat';
  metric: Metric;
  m?: number;
  efConstruction?: number;
  dimensions?: number;
}

/** A walk over ids that brings each into the index (a build, or a catch-up after loading). */
export interface Walk {
  readonly ids: string[];
  pos: number;
  /** Records at or below this version are already in the index (-1: none are)... */
  readonly sinceSeq: number;
  /** ...except these, whose change was still pending when the index was saved. */
  readonly redo: ReadonlySet<string>;
  /** Ids the change feed changed since the walk started: their pending change is newer than the walk's view. */
  readonly touched: Set<string>;
}

export class IndexEntry {
  state: IndexState = 'building';
  index: VectorIndex | TextIndex | undefined;
  walk: Walk | undefined;
  /** Why a persisted index was not used, or why the build failed (health). */
  note: string | undefined;
  /** While a persisted index is read from disk: changes wait for the catch-up walk (their version is newer). */
  loading = false;
  /** Changes the change feed has recorded: tells whether a graph written earlier is still this index's. */
  changes = 0;
  /** Committed changes not applied yet: id -> the record's fields (undefined: deleted) and the seq that wrote them. */
  readonly pending = new Map<string, { fields: Fields | undefined; seq: number }>();
  /** Slots to allocate up front: growing an HNSW graph copies it all at once, a stall a build must not cause. */
  private capacityHint = 0;

  constructor(
    readonly collection: string,
    readonly kind: IndexKind,
    /** The vector field; '*' for the text index (it covers every string field). */
    readonly field: string,
    readonly config?: VectorConfig,
  ) {}

  /** The vector index, made on first need with `dimensions`. */
  vectorIndex(dimensions: number): VectorIndex {
    if (!this.index) {
      const cfg = this.config!;
      this.index =
        cfg.algorithm === 'flat'
          ? new BruteForceIndex({ dimensions, metric: cfg.metric })
          : new HnswIndex({
              dimensions,
              metric: cfg.metric,
              ...(cfg.m ? { m: cfg.m } : {}),
              ...(cfg.efConstruction ? { efConstruction: cfg.efConstruction } : {}),
              initialCapacity: Math.max(HNSW_DEFAULTS.initialCapacity, Math.ceil(this.capacityHint * 1.1)),
            });
    }
    return this.index as VectorIndex;
  }

  /** Starts a walk over `ids`; the text index starts empty when nothing is loaded. */
  startWalk(ids: string[], sinceSeq: number, redo: ReadonlySet<string> = new Set()): void {
    if (this.kind === 'text' && !this.index) this.index = new TextIndex();
    this.capacityHint = ids.length;
    this.walk = { ids, pos: 0, sinceSeq, redo, touched: new Set() };
    this.state = sinceSeq < 0 ? 'building' : 'stale';
  }

  /** Brings `id` (current `entry`, undefined when gone) into the index, unless already current. */
  walkStep(id: string, entry: RecordEntry | undefined): void {
    const walk = this.walk!;
    if (walk.touched.has(id)) return;
    // Unchanged since the loaded index was saved.
    if (entry && entry.version <= walk.sinceSeq && !walk.redo.has(id)) return;
    this.apply(id, entry?.fields);
  }

  /** Records a committed change of `id` (`fields` undefined: deleted) at `seq`, to apply later. */
  follow(id: string, fields: Fields | undefined, seq: number): void {
    if (this.loading || this.state === 'failed') return;
    this.walk?.touched.add(id);
    this.changes++;
    this.pending.delete(id); // re-inserted last, so the oldest pending change stays first
    this.pending.set(id, { fields, seq });
  }

  /** Applies the oldest pending change; false when there is none. */
  applyOnePending(): boolean {
    const next = this.pending.entries().next();
    if (next.done) return false;
    const [id, change] = next.value;
    this.pending.delete(id);
    this.apply(id, change.fields);
    return true;
  }

  /** Makes the index hold what a record's `fields` offer (nothing when it is gone). */
  private apply(id: string, fields: Fields | undefined): void {
    if (this.kind === 'text') {
      const text = this.index as TextIndex | undefined;
      if (!text) return;
      if (fields) text.add(id, textFieldsOf(fields));
      else text.remove(id);
      return;
    }
    const vec = fields ? vectorOf(fields[this.field]) : undefined;
    const index = this.index as VectorIndex | undefined;
    if (vec && (!index || vec.length === index.dimensions)) this.vectorIndex(vec.length).add(id, vec);
    else if (index?.has(id)) index.remove(id);
  }

  /** True when background work remains: pending changes or a walk. */
  hasWork(): boolean {
    return this.pending.size > 0 || this.walk !== undefined;
  }

  /** Live entries in the index. */
  indexed(): number {
    return this.index?.size() ?? 0;
  }

  /** True when searches may use the index as it is. */
  usable(): boolean {
    return this.state === 'ready';
  }
}
