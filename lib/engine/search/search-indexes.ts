/**
 * Search indexes of each collection: one text index over the records'
 * top-level string fields, and one vector index per vector field (HNSW by
 * default, or `flat` brute force; metric and parameters from the schema's
 * `index` config, else cosine).
 *
 * No search and no commit waits for a vector index. Commits only record
 * their changes as pending; after recovery the schema-declared indexes (and
 * those persisted with the last snapshot, index-files.ts) are built or
 * caught up; both happen in the background (background-builds.ts), HNSW
 * graphs in the HNSW worker thread (one per database, `HnswThread`). A
 * search on a graph asks the worker for the graph's neighbours and scores
 * exactly what the graph does not cover yet (graph-search.ts), so it works
 * from the first batch on; a search on a field without an index starts its
 * build. A text search waits for the text index's build instead (a correct
 * BM25 score needs the whole corpus's statistics, so a scan would cost as
 * much), and for a backlog of more than TEXT_PENDING_NOW changes; the work
 * still runs in slices, so other requests are answered meanwhile.
 */
import { InvalidInput, Unavailable } from '../../errors.js';
import {
  HnswThread,
  type BruteForceIndex,
  type Metric,
  type RemoteHnsw,
  type TextIndex,
  type VectorIndex,
} from '../../vector/index.js';
import type { EngineCore } from '../core.js';
import type { CommitInfo } from '../write/change-feed.js';
import type { LoggedBatch } from '../write/effects.js';
import type { Fields } from '../values/index.js';
import { BackgroundBuilds } from './background-builds.js';
import { IndexEntry, type IndexKind, type IndexState, type VectorConfig } from './index-entry.js';

export { textFieldsOf, vectorOf } from './search-fields.js';
export type { IndexKind, IndexState, VectorConfig } from './index-entry.js';

/** One index as GET /api/health shows it. */
export interface IndexStatus {
  collection: string;
  kind: IndexKind;
  /** The vector field; '*' for the text index. */
  field: string;
  state: IndexState;
  /** Records (text) or vectors (vector) in the index. */
  indexed: number;
  /** Records in the collection. */
  total: number;
  /** Share of the build or catch-up done, 0 to 1 (1 when ready): indexed / (indexed + changes not in it yet). */
  progress: number;
  /** An HNSW graph's query-time ef for k = 10, once calibrated on its data (from 1,000 vectors). */
  ef_search?: number;
  /**
   * How an HNSW index answers searches, once calibrated: by its graph, or by a scan of quantized forms of its
   * vectors (sign bits, then 4-bit codes) with an exact re-rank, where that is faster at the recall (data without
   * neighbourhoods).
   */
  vector_search?: 'graph' | 'quantized_scan';
  note?: string;
}

export interface SearchIndexOptions {
  /** Work per background slice (default 10 ms). */
  sliceMs?: number;
}

const TEXT_FIELD = '*';

/**
 * A ready index with more changes than this not applied yet shows as `building` in health (catching up): below
 * PACED_PENDING, so that a graph during a paced bulk load shows as building until it has caught up.
 */
export const CATCH_UP_SHOWN = 256;

/**
 * Committed changes a text search applies to the index itself before answering (a few milliseconds of work); with
 * more waiting (a bulk load), it waits for the background slices instead, and health shows the index catching up.
 */
export const TEXT_PENDING_NOW = 256;

/**
 * Committed changes an HNSW graph may have waiting before a write into its collection is answered only once it has
 * taken them in (SearchIndexes.pacer): what a search scores exactly beside the graph stays this small, a few ms.
 * Two batches of 500 still keep the worker busy while the request thread makes the next one: on one core, a load of
 * 50,000 x 384 built in 19.5-19.9 s against 20.5-20.6 s at 2,048, and searches during it took p90 12.1-12.6 ms
 * against 14.8-16.5 ms.
 */
export const PACED_PENDING = 1024;

/** A ready vector index and the committed changes it has not applied yet. */
export interface ReadyVectorIndex {
  index: VectorIndex;
  pending: ReadonlyMap<string, { fields: Fields | undefined }>;
}

/** An HNSW graph a search can use, and the ids whose current records it must score exactly beside it. */
export interface GraphVectorIndex {
  remote: RemoteHnsw;
  uncovered: string[];
}

export class SearchIndexes {
  /** collection -> `${kind}:${field}` -> entry */
  private readonly byCollection = new Map<string, Map<string, IndexEntry>>();
  private readonly builds: BackgroundBuilds;
  /** The worker thread keeping the HNSW graphs (started with the first graph). */
  readonly graphs = new HnswThread();

  constructor(
    private readonly db: EngineCore,
    options: SearchIndexOptions = {},
  ) {
    this.builds = new BackgroundBuilds(
      (c) => db.state.collections.get(c)?.records,
      (e) => this.entry(e.collection, e.kind, e.field) === e,
      options.sliceMs,
    );
    db.onCommit((b, info) => this.follow(b, info));
    this.graphs.onFailure = (err) => {
      for (const entry of this.entries()) if (entry.remote) this.builds.failed(entry, err);
    };
  }

  /** After recovery: builds the indexes every collection's schema declares, in the background. */
  start(): void {
    for (const collection of this.db.state.collections.keys()) this.ensureDeclared(collection);
  }

  /** Stops background work (on close); the graphs stay until `close`, for a last snapshot. */
  stop(): void {
    this.builds.stop();
  }

  /** Frees the graphs: ends the HNSW worker. */
  close(): Promise<void> {
    return this.graphs.close();
  }

  /**
   * The text index of `collection`, complete. While it is built (first search, or
   * after a restart) or has more than TEXT_PENDING_NOW committed changes to
   * apply (a bulk load), the work runs in background slices, first in line,
   * and this waits for it; the few changes left are applied at once.
   * Unavailable when the build failed or the server is closing.
   */
  async textReady(collection: string): Promise<TextIndex> {
    for (;;) {
      const entry =
        this.entry(collection, 'text', TEXT_FIELD) ?? this.startBuild(new IndexEntry(collection, 'text', TEXT_FIELD));
      if (entry.state === 'failed') {
        throw new Unavailable(
          `the text index of '${collection}' could not be built (${entry.note ?? 'unknown error'})`,
        );
      }
      if (!entry.walk && !entry.loading && entry.pending.size <= TEXT_PENDING_NOW) {
        this.builds.finish(entry);
        return entry.index as TextIndex;
      }
      // A drop or a config change may replace the entry meanwhile: look again.
      await this.builds.caughtUp(entry, TEXT_PENDING_NOW);
    }
  }

  /**
   * Resolves once the vector index of `collection.field` holds every committed
   * change (starting its build when there is none; moved first in line), with
   * its size and a way to list its ids (specs, benchmarks).
   */
  async settledVector(collection: string, field: string): Promise<{ size: number; ids: () => Promise<string[]> }> {
    for (;;) {
      const entry = this.vectorEntry(collection, field);
      this.builds.enqueue(entry);
      await this.builds.caughtUp(entry, 0);
      if (this.entry(collection, 'vector', field) !== entry) continue;
      if (entry.state === 'failed')
        throw new Unavailable(`the vector index on '${field}' failed (${entry.note ?? ''})`);
      if (entry.hasWork() || (entry.remote?.inFlight ?? 0) > 0) continue;
      const { remote } = entry;
      const flat = entry.index as BruteForceIndex | undefined;
      return { size: entry.indexed(), ids: async () => (remote ? remote.ids() : [...(flat?.ids() ?? [])]) };
    }
  }

  /**
   * For a write into `collection`: when the collection has an HNSW graph, a
   * wait to run once the write has committed, which resolves when no graph
   * of the collection has more than PACED_PENDING changes waiting (at once
   * when none has; never rejects); undefined otherwise. So writes are
   * answered at the pace the graphs take their vectors in, as when an
   * insert updates its index before it is answered, and a search during a
   * load scores a bounded backlog exactly, not the whole load. A build of
   * the records already there is not waited for, nor is a graph loading
   * from its file.
   */
  pacer(collection: string): (() => Promise<void>) | undefined {
    const entries = this.byCollection.get(collection);
    if (!entries) return undefined;
    let graphs: IndexEntry[] | undefined;
    for (const entry of entries.values()) if (entry.isGraph) (graphs ??= []).push(entry);
    if (!graphs) return undefined;
    return async () => {
      for (const entry of graphs) await this.builds.paced(entry, PACED_PENDING);
    };
  }

  /**
   * For a search: the vector index of `collection.field` that answers it,
   * starting its build when there is none. An HNSW graph (even while it is
   * built) with the ids to score exactly beside it; a ready flat index with
   * its changes not applied yet (ready-search.ts); or undefined (a flat
   * index building, a graph loading or failed) when the caller scans
   * exactly. Throws InvalidInput when the index holds vectors of other
   * dimensions.
   */
  vectorFor(collection: string, field: string, dimensions: number): ReadyVectorIndex | GraphVectorIndex | undefined {
    const entry = this.vectorEntry(collection, field);
    const has = entry.dimensions;
    if (has !== undefined && has !== dimensions) {
      throw new InvalidInput(`vector has ${dimensions} dimensions; the index on '${field}' has ${has}`);
    }
    if (entry.isGraph) {
      if (!entry.remote || entry.loading || entry.state === 'failed') return undefined;
      return { remote: entry.remote, uncovered: entry.uncovered(this.db.state.collections.get(collection)?.records) };
    }
    return entry.usable() ? { index: entry.vectorIndex(dimensions), pending: entry.pending } : undefined;
  }

  configOf(collection: string, field: string): VectorConfig {
    const ix = this.db.state.collections.get(collection)?.meta.schema?.fields[field]?.index;
    if (ix?.type === 'vector') {
      return {
        algorithm: ix.algorithm === 'flat' ? 'flat' : 'hnsw',
        metric: (ix.metric ?? 'cosine') as Metric,
        m: ix.m,
        efConstruction: ix.ef_construction,
        dimensions: ix.dimensions,
      };
    }
    return { algorithm: 'hnsw', metric: 'cosine' };
  }

  /** Every index and its state, for GET /api/health. */
  status(): IndexStatus[] {
    const out: IndexStatus[] = [];
    for (const [collection, entries] of this.byCollection) {
      const total = this.db.state.collections.get(collection)?.records.size ?? 0;
      for (const entry of entries.values()) {
        const indexed = entry.indexed();
        const backlog = entry.backlog();
        // A ready index far behind its commits is catching up: shown as building, with its progress. A text index
        // with more changes waiting than a search applies itself is not ready either: searches wait for it.
        const catchingUp =
          entry.state === 'ready' &&
          (backlog > CATCH_UP_SHOWN || (entry.kind === 'text' && entry.pending.size > TEXT_PENDING_NOW));
        const state = catchingUp ? 'building' : entry.state;
        const progress = state === 'ready' ? 1 : indexed + backlog > 0 ? indexed / (indexed + backlog) : 0;
        out.push({
          collection,
          kind: entry.kind,
          field: entry.field,
          state,
          indexed,
          total,
          progress,
          ...(entry.remote?.efSearch !== undefined
            ? { ef_search: entry.remote.efSearch, vector_search: entry.remote.scanning ? 'quantized_scan' : 'graph' }
            : {}),
          ...(entry.note ? { note: entry.note } : {}),
        });
      }
    }
    return out;
  }

  /** Every registered index (persistence reads them; index-files.ts). */
  entries(): IndexEntry[] {
    return [...this.byCollection.values()].flatMap((m) => [...m.values()]);
  }

  /** True when `collection` exists. */
  collectionExists(collection: string): boolean {
    return this.db.state.collections.has(collection);
  }

  /** Builds an index from scratch in the background, with `note` (why) shown in health. */
  rebuild(collection: string, kind: IndexKind, field: string, note?: string): void {
    const entry = new IndexEntry(
      collection,
      kind,
      field,
      kind === 'vector' ? this.configOf(collection, field) : undefined,
    );
    entry.note = note;
    this.startBuild(entry);
  }

  /** Registers `entry` while its persisted index is read from disk (state stale; changes wait for the catch-up). */
  registerLoading(entry: IndexEntry): void {
    entry.loading = true;
    entry.state = 'stale';
    this.register(entry);
  }

  /**
   * Starts `entry`'s walk in the background, registering it (replacing any
   * entry of the same index). With `sinceSeq` its index was loaded from disk
   * and catches up on the records changed after that seq; otherwise it is
   * built from scratch.
   */
  adopt(entry: IndexEntry, sinceSeq = -1, redo?: ReadonlySet<string>): IndexEntry {
    entry.loading = false;
    return this.startBuild(entry, sinceSeq, redo);
  }

  /** The entry of an index, if registered. */
  entry(collection: string, kind: IndexKind, field: string): IndexEntry | undefined {
    return this.byCollection.get(collection)?.get(`${kind}:${field}`);
  }

  private vectorEntry(collection: string, field: string): IndexEntry {
    return (
      this.entry(collection, 'vector', field) ??
      this.startBuild(new IndexEntry(collection, 'vector', field, this.configOf(collection, field)))
    );
  }

  private register(entry: IndexEntry): void {
    let entries = this.byCollection.get(entry.collection);
    if (!entries) this.byCollection.set(entry.collection, (entries = new Map()));
    const key = `${entry.kind}:${entry.field}`;
    const replaced = entries.get(key);
    if (replaced && replaced !== entry) replaced.dispose();
    entry.graphs = this.graphs;
    entries.set(key, entry);
  }

  private startBuild(entry: IndexEntry, sinceSeq = -1, redo?: ReadonlySet<string>): IndexEntry {
    this.register(entry);
    const records = this.db.state.collections.get(entry.collection)?.records;
    entry.startWalk(records ? [...records.keys()] : [], sinceSeq, redo);
    const dimensions = entry.kind === 'vector' ? entry.config?.dimensions : undefined;
    if (dimensions && entry.isGraph) entry.makeGraph(dimensions);
    else if (dimensions && !entry.index) entry.vectorIndex(dimensions);
    this.builds.enqueue(entry);
    return entry;
  }

  /**
   * Builds the indexes `collection`'s schema declares that are not registered yet (vector fields; a text field means
   * the text index).
   */
  private ensureDeclared(collection: string): void {
    const fields = this.db.state.collections.get(collection)?.meta.schema?.fields ?? {};
    for (const [name, def] of Object.entries(fields)) {
      if (def.index?.type === 'vector') this.vectorEntry(collection, name);
      if (def.index?.type === 'text' && !this.entry(collection, 'text', TEXT_FIELD))
        this.startBuild(new IndexEntry(collection, 'text', TEXT_FIELD));
    }
  }

  private follow(batch: LoggedBatch, info: CommitInfo): void {
    for (const effect of batch.effects) {
      if (effect.kind === 'dropCollection') {
        for (const entry of this.byCollection.get(effect.name)?.values() ?? []) entry.dispose();
        this.byCollection.delete(effect.name);
      }
      if (effect.kind === 'setCollectionMeta' || effect.kind === 'createCollection') this.metaChanged(effect.meta.name);
    }
    // Without a search index there is nothing to follow: the batch's changes are not even made (change-feed.ts).
    if (this.byCollection.size === 0) return;
    for (const ch of info.changes) {
      const entries = this.byCollection.get(ch.collection);
      if (!entries) continue;
      const fields = ch.event === 'delete' ? undefined : ch.fields!;
      for (const entry of entries.values()) {
        entry.follow(ch.id, fields, info.seq);
        if (entry.pending.size > 0) this.builds.enqueue(entry);
      }
    }
  }

  /** A changed schema: vector indexes whose config changed are rebuilt, newly declared ones built. */
  private metaChanged(collection: string): void {
    for (const entry of this.byCollection.get(collection)?.values() ?? []) {
      if (entry.kind !== 'vector') continue;
      const cfg = this.configOf(collection, entry.field);
      if (JSON.stringify(cfg) !== JSON.stringify(entry.config))
        this.startBuild(new IndexEntry(collection, 'vector', entry.field, cfg));
    }
    this.ensureDeclared(collection);
  }
}
