/**
 * Approximate k-nearest-neighbour search on hnswlib's HierarchicalNSW graph (hnswlib-node, C++ through N-API), behind
 * the `VectorIndex` contract.
 *
 * Parameters keep the paper's names (after hnswlib's ALGO_PARAMS.md):
 * - `m` (default 16; useful range 2-100, usually 12-48): links per node and layer (2·m on layer 0). Higher m gives
 *   better recall on high-dimensional data and high-recall targets, at ~8·m bytes more memory per vector and a slower
 *   build; low m (2-12) suits low-dimensional data.
 * - `efConstruction` (default 100, as in Lucene and Qdrant; useful 64-500, at least m): candidate list size while
 *   building. Higher means a better graph and a slower build; past the point where recall@ef is ~0.9+ it buys little.
 *   Measured with hnswlib-node on 50,000 x 384 on one core: 100 builds in 11.4 s against 20.7 s at 200, reaches
 *   recall@10 0.95 at about the same ef on clustered data (32-48), and 0.97 against 0.98 at ef 3,072 on uniform noise;
 *   the calibration below chooses the ef.
 * - `efSearch` (at least k, up to ~1000): candidate list size per query, the main recall/latency knob. When not fixed,
 *   it is max(2·k, 128) until `calibrate` measures what the data needs (hnsw-calibration.ts: the smallest ef reaching
 *   recall@10 0.99 on a sample, scaled by the neighbours asked). Measured with hnswlib-node on 50,000 x 384: clustered
 *   vectors (100 centroids + N(0,1) noise) reach recall@10 0.99 at ef 64 and 1.0 at 128 (0.2-0.3 ms per query); uniform
 *   noise in [-1, 1] reaches only 0.24 at 128, 0.67 at 600 and 0.82 at 1,024: such data has no neighbourhoods for a
 *   graph to follow, and its calibrated ef runs into the thousands (nearly the cost of an exact scan).
 * - `randomSeed` (default 100): seeds hnswlib's level generator, so the same inserts in the same order build the same
 *   graph, when they are made one at a time (`buildThreads` 1, the default; the HNSW worker applies held inserts from
 *   one thread a core, native/insert-run.ts).
 *
 * String ids map to integer labels (uint32, never reused). Removal marks the node deleted (it still routes searches but
 * is never returned). Inserts take fresh slots, doubling the capacity when full (resizeIndex), until freed slots reach
 * 25% of the used ones; from then on inserts take over freed slots (allowReplaceDeleted), which is slower but bounds
 * memory under churn. Selective filters fall back to an exact scan of the allowed set, where graph search would visit
 * most of the graph. Where calibration finds that a scan of quantized forms of every vector (sign bits, then 4-bit
 * codes) with an exact re-rank (quantized/scan.ts) reaches the graph's recall in less time, as on uniform noise, that
 * scan answers searches (a filter's among the rows it lets through), its rows kept with every change. `save` writes
 * hnswlib's graph to a file (on the libuv thread pool) and returns the rest of the state (id of each label, slot
 * accounting); `load` reads both back. While a save runs, changes are held; after it they are applied a chunk at a
 * time (`drainHeld`), searches scoring the rest exactly. A thread that answers searches between its inserts holds
 * every change (`hold`) and applies them the same way. Near the 600-line cap: the graph's slot accounting, filtered
 * search, save/load and calibration all reach into the same native index and label maps.
 */
import assert from 'node:assert';
import { InvalidInput } from '../errors.js';
import { addPointsParallel, hnswlib } from './native/hnswlib-build.js';
import { InsertRun } from './native/insert-run.js';
import { dotProduct, euclideanDistance, euclideanToSimilarity, similarity, type Metric } from './distance.js';
import { TopK } from './top-k.js';
import { CALIBRATION_ASK, calibrateEf, scanServes, type Calibrated, type ScanTarget } from './hnsw-calibration.js';
import { QuantizedScan } from './quantized/scan.js';
import {
  checkDimensions,
  checkK,
  checkMetric,
  checkVector,
  compareHits,
  type VectorHit,
  type VectorIndex,
} from './vector-index.js';

/** Options of an HNSW index; see the header for ranges and trade-offs. */
export interface HnswOptions {
  dimensions: number;
  metric: Metric;
  m?: number;
  efConstruction?: number;
  /** Fixed query-time ef; when absent each search uses max(2·k, DEFAULT_EF_SEARCH). */
  efSearch?: number;
  randomSeed?: number;
  /** Slots allocated up front (default 1024); the index doubles when full. */
  initialCapacity?: number;
}

/** What `save` returns beside hnswlib's file: enough to rebuild the id maps and slot accounting. */
export interface HnswSavedState {
  dimensions: number;
  metric: Metric;
  m: number;
  efConstruction: number;
  nextLabel: number;
  usedSlots: number;
  freedSlots: number;
  capacity: number;
  /** [id, label] of every live node. */
  labels: Array<[string, number]>;
}

export const HNSW_DEFAULTS = { m: 16, efConstruction: 100, randomSeed: 100, initialCapacity: 1024 } as const;

/** Floor of the default query-time ef (see the header for the measurements). */
export const DEFAULT_EF_SEARCH = 128;

/** Freed slots are taken over only while they are at least this share of the used slots. */
const REUSE_FREED_SHARE = 0.25;
/** Filters letting through fewer than this share of the vectors are served exactly. */
const EXACT_FILTER_SHARE = 0.02;
/** ...as are filters letting through fewer than this many vectors per requested neighbour. */
const EXACT_FILTER_PER_K = 10;

/** Labels restored per turn of the event loop when a saved index is loaded (about 5 ms of work). */
const LABELS_PER_TURN = 8192;
/**
 * Held changes to ids in the graph up to which a search asks the graph for that many more neighbours and drops
 * the changed ones, instead of filtering them out (a filter is called for every stored id).
 */
const OVERFETCH_MAX = 256;

type Space = 'cosine' | 'l2' | 'ip';
const SPACE_OF: Record<Metric, Space> = { cosine: 'cosine', euclidean: 'l2', dotproduct: 'ip' };

export class HnswIndex implements VectorIndex {
  readonly dimensions: number;
  readonly metric: Metric;
  readonly m: number;
  readonly efConstruction: number;
  readonly efSearch: number | undefined;
  private readonly native: InstanceType<typeof hnswlib.HierarchicalNSW>;
  private readonly labelOf = new Map<string, number>();
  private readonly idOf = new Map<number, string>();
  private nextLabel = 0;
  /** Slots holding a node, live or deleted. */
  private usedSlots = 0;
  /** Slots of deleted nodes, which a later insert may take over. */
  private freedSlots = 0;
  private allocated: number;
  /**
   * Changes not in the graph yet (id -> vector, or null for a removal): made while a save ran or after `hold`, or
   * while some are still held, and applied in order by drainHeld.
   */
  private held: Map<string, readonly number[] | Float32Array | null> | undefined;
  /** Changes that entered `held` so far, and those drainHeld applied: see heldMark. */
  private heldSoFar = 0;
  private appliedSoFar = 0;
  /** True while hnswlib writes the graph, which must not change meanwhile. */
  private saving = false;
  /**
   * Threads that apply held inserts (drainHeld), in runs inserted together (native/insert-run.ts), where the
   * build has a parallel insert; 1 applies them one at a time.
   */
  buildThreads = 1;
  /** The ef a search asking CALIBRATION_ASK neighbours needs, once `calibrate` has measured it. */
  private calibratedEf: number | undefined;
  /**
   * The quantized scan (sign bits and 4-bit codes of every vector in the graph), kept while `calibrate` found that it
   * answers searches faster than the graph at the recall it reaches; `scanCandidates` are re-ranked for
   * CALIBRATION_ASK.
   */
  private scan: QuantizedScan | undefined;
  private scanCandidates = 0;
  /** Vectors added or removed so far: a calibration that saw the graph change is void. */
  private changes = 0;

  /** Throws InvalidInput on bad dimensions, metric or parameters. */
  constructor(options: HnswOptions, loaded?: InstanceType<typeof hnswlib.HierarchicalNSW>) {
    checkDimensions(options.dimensions);
    checkMetric(options.metric);
    this.dimensions = options.dimensions;
    this.metric = options.metric;
    this.m = checkInt('m', options.m ?? HNSW_DEFAULTS.m, 2, 100);
    this.efConstruction = checkInt('efConstruction', options.efConstruction ?? HNSW_DEFAULTS.efConstruction, 1, 10_000);
    this.efSearch = options.efSearch === undefined ? undefined : checkInt('efSearch', options.efSearch, 1, 10_000);
    const seed = checkInt('randomSeed', options.randomSeed ?? HNSW_DEFAULTS.randomSeed, 0, 2 ** 31 - 1);
    this.allocated = checkInt(
      'initialCapacity',
      options.initialCapacity ?? HNSW_DEFAULTS.initialCapacity,
      1,
      2 ** 31 - 1,
    );
    if (loaded) {
      this.native = loaded;
      return;
    }
    this.native = new hnswlib.HierarchicalNSW(SPACE_OF[this.metric], this.dimensions);
    this.native.initIndex({
      maxElements: this.allocated,
      m: this.m,
      efConstruction: this.efConstruction,
      randomSeed: seed,
      allowReplaceDeleted: true,
    });
  }

  /** Slots currently allocated in the native index (grows by doubling). */
  get capacity(): number {
    return this.allocated;
  }

  /** Slot accounting, for diagnostics: used = live + freed, used <= capacity. */
  stats(): { size: number; usedSlots: number; freedSlots: number; capacity: number } {
    return {
      size: this.labelOf.size,
      usedSlots: this.usedSlots,
      freedSlots: this.freedSlots,
      capacity: this.allocated,
    };
  }

  /**
   * See VectorIndex.add. A fresh insert costs O(log n · m · efConstruction)
   * distance computations (~0.1 ms at 64-d, 5k vectors); taking over a freed
   * slot costs ~15x more, as hnswlib repairs the links of the slot's
   * neighbours. Replacing an id removes it and inserts anew. A Float32Array
   * row (the worker's batches arrive as one) is held as it is, and made an
   * array only when applied: an array held would be copies that live until
   * then, work for the collector. REQUIRES: a row held is not changed.
   */
  add(id: string, vector: readonly number[] | Float32Array): void {
    checkVector(vector, this.dimensions);
    if (this.held) {
      this.holdChange(id, vector instanceof Float32Array ? vector : [...vector]);
      return;
    }
    this.remove(id);
    const { label, reuse } = this.newSlot();
    this.insertOne(id, vector, label, reuse);
  }

  /** Inserts `vector` under `label` (in a freed slot when `reuse`) and files it. */
  private insertOne(id: string, vector: readonly number[] | Float32Array, label: number, reuse: boolean): void {
    this.native.addPoint(vector instanceof Float32Array ? Array.from(vector) : (vector as number[]), label, reuse);
    this.inserted(id, label);
  }

  /**
   * The slot and label of one more node: a freed slot once they are a large share (reuse is slow, fresh slots cost
   * memory), else a fresh one, the graph grown when full.
   */
  private newSlot(): { label: number; reuse: boolean } {
    const reuse = this.freedSlots > 0 && this.freedSlots >= this.usedSlots * REUSE_FREED_SHARE;
    if (reuse) {
      this.freedSlots--;
    } else {
      if (this.usedSlots >= this.allocated) this.grow();
      this.usedSlots++;
    }
    const label = this.nextLabel++;
    assert(label <= 0xffff_ffff, 'hnswlib labels are uint32');
    return { label, reuse };
  }

  /** Files `id` under `label`, now in the graph (and its quantized rows, while a scan serves searches). */
  private readonly inserted = (id: string, label: number): void => {
    this.labelOf.set(id, label);
    this.idOf.set(label, id);
    this.scan?.set(label);
    this.changes++;
  };

  /** See VectorIndex.remove. Marks the node deleted; O(1). */
  remove(id: string): void {
    if (this.held) {
      if (this.has(id)) this.holdChange(id, null);
      return;
    }
    const label = this.labelOf.get(id);
    if (label === undefined) return;
    this.native.markDelete(label);
    this.labelOf.delete(id);
    this.idOf.delete(label);
    this.scan?.delete(label);
    this.freedSlots++;
    this.changes++;
  }

  has(id: string): boolean {
    const held = this.held?.get(id);
    return held === undefined ? this.labelOf.has(id) : held !== null;
  }

  /** Live vectors in the graph (held changes are counted once applied). */
  size(): number {
    return this.labelOf.size;
  }

  /** Ids of the live vectors in the graph. */
  ids(): IterableIterator<string> {
    return this.labelOf.keys();
  }

  /**
   * Writes the graph to `file` and returns the rest of the state. Changes
   * made meanwhile are held (hnswlib may not change a graph it is writing)
   * and left for drainHeld to apply after it; searches meanwhile score the
   * held vectors exactly beside the graph. Changes already held are not in
   * the file: they stay held with those, and a caller that wants them in
   * applies them first. REQUIRES: no other save in progress.
   */
  async save(file: string): Promise<HnswSavedState> {
    assert(!this.saving, 'one save at a time');
    const state: HnswSavedState = {
      dimensions: this.dimensions,
      metric: this.metric,
      m: this.m,
      efConstruction: this.efConstruction,
      nextLabel: this.nextLabel,
      usedSlots: this.usedSlots,
      freedSlots: this.freedSlots,
      capacity: this.allocated,
      labels: [...this.labelOf],
    };
    this.held ??= new Map();
    this.saving = true;
    try {
      await this.native.writeIndex(file);
    } finally {
      this.saving = false;
      if (this.held.size === 0) this.held = undefined;
    }
    return state;
  }

  /** Changes held for drainHeld. */
  get heldCount(): number {
    return this.held?.size ?? 0;
  }

  /** True while a save writes the graph (drainHeld then waits for it). */
  get saveInProgress(): boolean {
    return this.saving;
  }

  /** Holds the changes made from now on, for drainHeld to apply (see the header). */
  hold(): void {
    this.held ??= new Map();
  }

  /**
   * A mark of the changes held so far: `applied(mark)` once drainHeld has applied every one of them. A change to an
   * id already held takes the place of the one held, which keeps its turn.
   */
  get heldMark(): number {
    return this.heldSoFar;
  }

  applied(mark: number): boolean {
    return this.appliedSoFar >= mark;
  }

  private holdChange(id: string, vector: readonly number[] | Float32Array | null): void {
    if (!this.held!.has(id)) this.heldSoFar++;
    this.held!.set(id, vector);
  }

  /**
   * Applies held changes, oldest first, until `max` are applied or
   * performance.now() reaches `stopAt`, and returns how many are still
   * held. A thread that answers searches calls it a chunk at a time:
   * applying the thousands of vectors held during a long save at once would
   * keep every search waiting for all of them. Nothing is applied while a
   * save runs.
   */
  drainHeld(max: number, stopAt = Infinity): number {
    const held = this.held;
    if (!held || this.saving) return this.heldCount;
    // Unset while applying, so that add and remove reach the graph.
    this.held = undefined;
    const run =
      this.buildThreads > 1 && addPointsParallel
        ? new InsertRun(addPointsParallel, this.dimensions, this.buildThreads)
        : undefined;
    let applied = 0;
    for (const [id, vector] of held) {
      if (applied++ >= max || (applied > 1 && performance.now() >= stopAt)) break;
      held.delete(id);
      this.appliedSoFar++;
      if (!vector) this.remove(id);
      else if (run) this.addToRun(run, id, vector);
      else this.add(id, vector);
    }
    if (run) this.insertRun(run);
    if (held.size > 0) this.held = held;
    return held.size;
  }

  /** add() of a vector checked when it was held, by `run` when it takes a fresh slot. */
  private addToRun(run: InsertRun, id: string, vector: readonly number[] | Float32Array): void {
    this.remove(id);
    const { label, reuse } = this.newSlot();
    // hnswlib picks a freed slot as it inserts: one at a time.
    if (reuse) return this.insertOne(id, vector, label, true);
    run.push(id, label, vector);
    if (run.full) this.insertRun(run);
  }

  /** Inserts `run` into the graph; throws as addPoint does when an insert fails. */
  private insertRun(run: InsertRun): void {
    const error = run.flush(this.native, this.inserted);
    if (error !== null) throw new Error(error);
  }

  /**
   * Reads an index written by `save` (hnswlib reads on the thread pool).
   * Throws when the file does not match `state`; the caller checks the
   * file's integrity first (hnswlib trusts what it reads).
   */
  static async load(
    file: string,
    state: HnswSavedState,
    options: Pick<HnswOptions, 'efSearch'> = {},
  ): Promise<HnswIndex> {
    const native = new hnswlib.HierarchicalNSW(SPACE_OF[state.metric], state.dimensions);
    await native.readIndex(file, true);
    if (native.getMaxElements() !== state.capacity || native.getCurrentCount() !== state.usedSlots) {
      throw new Error(
        `index file holds ${native.getCurrentCount()}/${native.getMaxElements()} slots, expected ` +
          `${state.usedSlots}/${state.capacity}`,
      );
    }
    const index = new HnswIndex({ ...state, ...options, initialCapacity: state.capacity }, native);
    index.nextLabel = state.nextLabel;
    index.usedSlots = state.usedSlots;
    index.freedSlots = state.freedSlots;
    // In slices with turns of the event loop between them: 50,000 labels took 30 ms in one piece (nobody sees the index
    // yet).
    const labels = state.labels;
    for (let i = 0; i < labels.length; i++) {
      const [id, label] = labels[i]!;
      index.labelOf.set(id, label);
      index.idOf.set(label, id);
      if (i % LABELS_PER_TURN === LABELS_PER_TURN - 1) await new Promise((resolve) => setImmediate(resolve));
    }
    return index;
  }

  /**
   * See VectorIndex.search. Approximate (recall is measured in
   * spec/vector/hnsw.spec.ts). With a filter, `filter` is called once per
   * stored id; if fewer than max(2% of the vectors, 10·k) pass, the allowed
   * vectors are scanned exactly, otherwise the graph search skips the rest.
   */
  search(query: readonly number[], k: number, filter?: (id: string) => boolean): VectorHit[] {
    checkVector(query, this.dimensions);
    checkK(k);
    const held = this.held;
    if (!held || held.size === 0 || k === 0) return this.searchStored(query, k, filter);
    // Changes held: the graph's answer without the ids changed since, plus their new vectors scored exactly. Held
    // inserts of new ids (a bulk load) leave the graph's answer as it is; a few changed ids are asked for beyond k.
    let changedInGraph = 0;
    for (const id of held.keys()) if (this.labelOf.has(id)) changedInGraph++;
    const fromGraph =
      changedInGraph === 0
        ? this.searchStored(query, k, filter)
        : !filter && changedInGraph <= OVERFETCH_MAX
          ? this.searchStored(query, k + changedInGraph)
          : this.searchStored(query, k, (id) => !held.has(id) && (!filter || filter(id)));
    const top = new TopK<VectorHit>(k);
    for (const hit of fromGraph) if (!held.has(hit.id)) top.push(hit);
    for (const [id, vector] of held)
      if (vector && (!filter || filter(id))) top.push({ id, score: similarity(this.metric, query, vector) });
    return top.sorted();
  }

  private searchStored(query: readonly number[], k: number, filter?: (id: string) => boolean): VectorHit[] {
    const total = this.labelOf.size;
    if (k === 0 || total === 0) return [];
    if (!filter) return this.unfilteredSearch(query, k, total);
    const allowed: number[] = [];
    for (const [id, label] of this.labelOf) if (filter(id)) allowed.push(label);
    if (allowed.length === total) return this.unfilteredSearch(query, k, total);
    if (allowed.length < Math.max(total * EXACT_FILTER_SHARE, k * EXACT_FILTER_PER_K)) {
      return this.exactSearch(query, k, allowed);
    }
    if (this.scan) return this.scanSearch(this.scan, query, k, allowed);
    const allowedSet = new Set(allowed);
    const hits = this.graphSearch(query, k, total, (label) => allowedSet.has(label));
    // The graph can strand a search when the filter cuts it apart; never return short.
    return hits.length < Math.min(k, allowed.length) ? this.exactSearch(query, k, allowed) : hits;
  }

  /** The quantized scan where it serves (see `calibrate`), else the graph. */
  private unfilteredSearch(query: readonly number[], k: number, total: number): VectorHit[] {
    return this.scan ? this.scanSearch(this.scan, query, k) : this.graphSearch(query, k, total);
  }

  /**
   * Measures the query-time ef this graph's data needs (hnsw-calibration.ts) and uses it from then on, unless
   * `efSearch` is fixed. `pause` is awaited between chunks of the work. Undefined, and nothing changed, when the
   * graph changed meanwhile: the exact neighbours were found among the vectors there at the start, so later ones
   * would count as misses at every ef and push the estimate to the ladder's top.
   */
  async calibrate(pause: () => Promise<void>): Promise<Calibrated | undefined> {
    const native = this.native;
    const changes = this.changes;
    const scan = this.scan ?? QuantizedScan.of(native, this.dimensions, this.metric);
    const calibrated = await calibrateEf(
      {
        labels: () => [...this.idOf.keys()],
        point: (label) => (this.idOf.has(label) ? native.getPoint(label) : undefined),
        nearest: (query, k, ef) => {
          if (query.length !== this.dimensions) return [];
          native.setEf(Math.max(ef, k));
          return native.searchKnn(query, Math.min(k, this.labelOf.size)).neighbors;
        },
        // Stored cosine vectors are normalized: their dot product orders them as cosine does.
        similarity: this.metric === 'euclidean' ? (a, b) => -euclideanDistance(a, b) : dotProduct,
        normalized: this.metric === 'cosine',
        ...(scan && { scan: this.scanTarget(scan) }),
      },
      pause,
    );
    if (this.changes !== changes) return undefined;
    this.calibratedEf = calibrated.ef;
    const serves = scanServes(calibrated);
    this.scan = serves ? scan : undefined;
    this.scanCandidates = serves ? calibrated.scan!.candidates : 0;
    return calibrated;
  }

  /** True while a quantized scan answers searches instead of the graph (see `calibrate`). */
  get scanning(): boolean {
    return this.scan !== undefined;
  }

  /** What calibration measures of `scan`: its rows made of every vector in the graph, then its searches. */
  private scanTarget(scan: QuantizedScan): ScanTarget {
    return {
      bytes: scan.bytesFor(this.labelOf.size),
      prepare: (pause) => scan.fill([...this.idOf.keys()], (label) => this.idOf.has(label), pause),
      nearest: (query, k, candidates) =>
        Array.from(scan.nearest(query, Math.min(k, this.labelOf.size), candidates).labels),
    };
  }

  /**
   * A search by the quantized scan, among the labels `among` when given (a filter), re-ranking the candidates
   * calibrated for the neighbours asked; an exact scan if it finds fewer than it should.
   */
  private scanSearch(scan: QuantizedScan, query: readonly number[], k: number, among?: number[]): VectorHit[] {
    const wanted = Math.min(k, among ? among.length : this.labelOf.size);
    const candidates = Math.ceil((this.scanCandidates * wanted) / CALIBRATION_ASK);
    const { labels, distances } = scan.nearest(query, wanted, candidates, among);
    const hits: VectorHit[] = [];
    for (let i = 0; i < labels.length; i++) {
      const id = this.idOf.get(labels[i]!);
      if (id !== undefined) hits.push({ id, score: this.toScore(distances[i]!) });
    }
    if (hits.length < wanted) return this.exactSearch(query, k, among ?? [...this.idOf.keys()]);
    return hits.sort(compareHits);
  }

  /** The query-time ef for a search asking `wanted` neighbours. */
  efFor(wanted: number): number {
    if (this.efSearch !== undefined) return Math.max(this.efSearch, wanted);
    const calibrated = this.calibratedEf;
    if (calibrated === undefined) return Math.max(2 * wanted, DEFAULT_EF_SEARCH);
    return Math.max(wanted, Math.ceil((calibrated * wanted) / CALIBRATION_ASK));
  }

  private graphSearch(
    query: readonly number[],
    k: number,
    total: number,
    filter?: (label: number) => boolean,
  ): VectorHit[] {
    const wanted = Math.min(k, total);
    this.native.setEf(this.efFor(wanted));
    const { distances, neighbors } = this.native.searchKnn(query as number[], wanted, filter);
    const hits: VectorHit[] = [];
    for (let i = 0; i < neighbors.length; i++) {
      const id = this.idOf.get(neighbors[i]!);
      if (id !== undefined) hits.push({ id, score: this.toScore(distances[i]!) });
    }
    if (!filter && hits.length < wanted) return this.exactSearch(query, k, [...this.idOf.keys()]);
    return hits.sort(compareHits);
  }

  /** Exact scan over the given labels, reading vectors back from the native index. */
  private exactSearch(query: readonly number[], k: number, labels: readonly number[]): VectorHit[] {
    const top = new TopK<VectorHit>(k);
    for (const label of labels) {
      top.push({ id: this.idOf.get(label)!, score: similarity(this.metric, query, this.native.getPoint(label)) });
    }
    return top.sorted();
  }

  /** hnswlib distance -> similarity of distance.ts. */
  private toScore(distance: number): number {
    switch (this.metric) {
      case 'cosine': {
        // hnswlib's cosine space is inner product over normalized vectors: d = 1 - cos.
        const cos = 1 - distance;
        return Number.isNaN(cos) ? 0 : Math.min(1, Math.max(-1, cos));
      }
      case 'dotproduct':
        return 1 - distance; // 'ip' space: d = 1 - dot
      case 'euclidean':
        return euclideanToSimilarity(Math.sqrt(Math.max(0, distance))); // 'l2' space: squared distance
      default:
        throw new Error(`unknown metric ${String(this.metric satisfies never)}`);
    }
  }

  private grow(): void {
    this.allocated *= 2;
    this.native.resizeIndex(this.allocated);
  }
}

function checkInt(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new InvalidInput(`HNSW ${name} must be an integer from ${min} to ${max}; got ${String(value)}`);
  }
  return value;
}
