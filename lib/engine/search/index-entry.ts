/**
 * One search index of a collection (the text index, or the vector index of
 * one field) and where it stands, plus the steps that bring records into it.
 *
 * Nothing is indexed inside a commit: the change feed only records each
 * change in `pending` (latest wins, with its seq), and background-builds.ts
 * applies pending changes and walks (builds, catch-ups after loading) a
 * slice at a time. A walk skips the ids the change feed `touched` since it
 * started (their pending change is newer than what the walk would read), so
 * none is lost or overwritten with an older view. The text index and a
 * `flat` vector index live on this thread; an HNSW graph lives in the HNSW
 * worker (`remote`): applying a change only copies its vector into `batch`,
 * which background-builds.ts posts to the worker, so the inserts run beside
 * the request thread. `uncovered` lists what a search must score exactly
 * beside the graph (graph-search.ts); a search on a ready flat index scores
 * its pending changes exactly beside it (ready-search.ts).
 */
import {
  BruteForceIndex,
  HNSW_DEFAULTS,
  HnswBatch,
  TextIndex,
  type HnswThread,
  type Metric,
  type RemoteHnsw,
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
  /** The text index, or a flat vector index. */
  index: VectorIndex | TextIndex | undefined;
  /** An HNSW graph, in the HNSW worker. */
  remote: RemoteHnsw | undefined;
  /** Changes copied for the graph and not posted yet (background-builds.ts posts them at the end of a slice). */
  batch: HnswBatch | undefined;
  /** The worker that keeps HNSW graphs (set when the entry is registered). */
  graphs: HnswThread | undefined;
  /** Ids in a graph loaded from disk: those gone from the collection are removed at the end of the catch-up. */
  loadedIds: readonly string[] = [];
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

  /** True for an HNSW vector index (kept in the worker). */
  get isGraph(): boolean {
    return this.kind === 'vector' && this.config?.algorithm !== 'flat';
  }

  /** The dimensions of the vector index, once it has any. */
  get dimensions(): number | undefined {
    return this.remote?.dimensions ?? (this.index as VectorIndex | undefined)?.dimensions;
  }

  /** The flat vector index, made on first need with `dimensions`. REQUIRES: not a graph. */
  vectorIndex(dimensions: number): VectorIndex {
    this.index ??= new BruteForceIndex({ dimensions, metric: this.config!.metric });
    return this.index as VectorIndex;
  }

  /** Makes the HNSW graph (in the worker) with `dimensions` unless it exists. REQUIRES: a graph, registered. */
  makeGraph(dimensions: number): RemoteHnsw {
    if (!this.remote) {
      const cfg = this.config!;
      this.remote = this.graphs!.create({
        dimensions,
        metric: cfg.metric,
        ...(cfg.m ? { m: cfg.m } : {}),
        ...(cfg.efConstruction ? { efConstruction: cfg.efConstruction } : {}),
        // Growing a graph copies it all: allocate the walk's size up front.
        initialCapacity: Math.max(HNSW_DEFAULTS.initialCapacity, Math.ceil(this.capacityHint * 1.1)),
      });
    }
    this.batch ??= new HnswBatch(this.remote.dimensions);
    return this.remote;
  }

  /** Takes over a graph loaded from disk, holding `ids`. */
  adoptGraph(remote: RemoteHnsw, ids: readonly string[]): void {
    this.remote = remote;
    this.batch = new HnswBatch(remote.dimensions);
    this.loadedIds = ids;
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
    if (!this.walkNeeds(id, entry)) return;
    // A fresh build never holds a record it has not walked yet: one without a vector needs no removal.
    if (this.walk!.sinceSeq < 0 && this.isGraph && !(entry && vectorOf(entry.fields[this.field]))) return;
    this.apply(id, entry?.fields);
  }

  /** Whether the walk must bring `id` in: not changed since the walk started, and not already current. */
  private walkNeeds(id: string, entry: RecordEntry | undefined): boolean {
    const walk = this.walk!;
    if (walk.touched.has(id)) return false;
    // Unchanged since the loaded index was saved.
    return !(entry && entry.version <= walk.sinceSeq && !walk.redo.has(id));
  }

  /**
   * Ids whose current record a search must score exactly beside the graph:
   * pending changes and what the walk has not reached. A snapshot, taken in one tick.
   */
  uncovered(records: ReadonlyMap<string, RecordEntry> | undefined): string[] {
    const out = [...this.pending.keys()];
    const walk = this.walk;
    if (!walk) return out;
    for (let i = walk.pos; i < walk.ids.length; i++) {
      const id = walk.ids[i]!;
      if (this.walkNeeds(id, records?.get(id))) out.push(id);
    }
    return out;
  }

  /** Changes not in the index yet: pending, still to walk, or posted to the worker and not applied. */
  backlog(): number {
    const walk = this.walk;
    return this.pending.size + (walk ? walk.ids.length - walk.pos : 0) + (this.remote?.inFlight ?? 0);
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
    if (this.isGraph) {
      const remote = this.remote;
      if (vec && (!remote || vec.length === remote.dimensions)) {
        this.makeGraph(vec.length);
        this.batch!.add(id, vec);
      } else if (remote) this.batch!.remove(id);
      return;
    }
    const index = this.index as VectorIndex | undefined;
    if (vec && (!index || vec.length === index.dimensions)) this.vectorIndex(vec.length).add(id, vec);
    else if (index?.has(id)) index.remove(id);
  }

  /** True when background work remains: pending changes or a walk. */
  hasWork(): boolean {
    return this.pending.size > 0 || this.walk !== undefined;
  }

  /** Live entries in the index (a graph: as of the worker's last answer). */
  indexed(): number {
    return this.remote?.size ?? this.index?.size() ?? 0;
  }

  /** Frees what the index holds (a graph in the worker); the entry is no longer used. */
  dispose(): void {
    this.remote?.drop();
    this.remote = undefined;
    this.batch = undefined;
  }

  /** True when searches may use the index as it is. */
  usable(): boolean {
    return this.state === 'ready';
  }
}
