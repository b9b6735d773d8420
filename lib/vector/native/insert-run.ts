/**
 * A run of inserts into fresh slots of an HNSW graph, gathered one by one
 * and then inserted together from several threads (`addPointsParallel`,
 * hnswlib-parallel.cc). hnswlib's graph takes concurrent inserts, so a
 * graph build runs on as many cores as it is given, where addPoint runs on
 * the calling thread alone. Runs are short (RUN_PER_THREAD inserts a
 * thread, about 2 ms at 384 dimensions) so that a search waits
 * for no more than one, as it waits for one insert when they run one at a
 * time. The graph one run builds depends on how the threads interleave;
 * one thread builds the same graph every time.
 */
import type { AddPointsParallel, Hnswlib } from './hnswlib-build.js';

/** Inserts per thread in one run. */
export const RUN_PER_THREAD = 8;

export class InsertRun {
  private readonly ids: string[] = [];
  private readonly labels: Uint32Array;
  private readonly vectors: Float32Array;
  private readonly failed: Uint8Array;
  private count = 0;

  constructor(
    private readonly insert: AddPointsParallel,
    private readonly dimensions: number,
    private readonly threads: number,
  ) {
    const capacity = threads * RUN_PER_THREAD;
    this.labels = new Uint32Array(capacity);
    this.vectors = new Float32Array(capacity * dimensions);
    this.failed = new Uint8Array(capacity);
  }

  get full(): boolean {
    return this.count === this.labels.length;
  }

  /** Adds the insert of `vector` under `label` (a fresh slot the graph has room for), to be made by `flush`. */
  push(id: string, label: number, vector: readonly number[] | Float32Array): void {
    this.ids[this.count] = id;
    this.labels[this.count] = label;
    this.vectors.set(vector, this.count * this.dimensions);
    this.count++;
  }

  /**
   * Inserts the run into `graph` and empties it: `inserted(id, label)` for
   * each insert made, in the order they were pushed. Answers null, or the
   * first failed insert's error (the others are made all the same).
   */
  flush(graph: InstanceType<Hnswlib['HierarchicalNSW']>, inserted: (id: string, label: number) => void): string | null {
    const count = this.count;
    if (count === 0) return null;
    this.count = 0;
    const error = this.insert(
      graph,
      this.vectors.subarray(0, count * this.dimensions),
      this.labels.subarray(0, count),
      this.threads,
      this.failed.subarray(0, count),
    );
    for (let i = 0; i < count; i++) if (this.failed[i] === 0) inserted(this.ids[i]!, this.labels[i]!);
    this.ids.length = 0;
    return error;
  }
}
