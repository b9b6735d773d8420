/**
 * Exact k-nearest-neighbour search by scanning every stored vector.
 *
 * It is the reference that HNSW recall is measured against, and the `flat`
 * algorithm for small collections: O(n·d) per query, no build cost, no
 * approximation. Vectors are kept as Float64Array copies so scores are exact
 * in double precision. It does not shard, quantize or parallelize.
 */
import {
  cosineFromParts,
  dotAndSquares,
  dotProduct,
  norm,
  similarity,
  type Metric,
  type ScoreParts,
} from './distance.js';
import { TopK } from './top-k.js';
import { checkDimensions, checkK, checkMetric, checkVector, type VectorHit, type VectorIndex } from './vector-index.js';

/** Options of a brute-force index. */
export interface BruteForceOptions {
  dimensions: number;
  metric: Metric;
}

export class BruteForceIndex implements VectorIndex {
  readonly dimensions: number;
  readonly metric: Metric;
  private readonly vectors = new Map<string, Float64Array>();
  /** Norms of the stored vectors, kept for cosine only. */
  private readonly norms = new Map<string, number>();

  /** Throws InvalidInput on bad dimensions or an unknown metric. */
  constructor(options: BruteForceOptions) {
    checkDimensions(options.dimensions);
    checkMetric(options.metric);
    this.dimensions = options.dimensions;
    this.metric = options.metric;
  }

  /** See VectorIndex.add. O(d). */
  add(id: string, vector: readonly number[]): void {
    checkVector(vector, this.dimensions);
    const copy = Float64Array.from(vector);
    this.vectors.set(id, copy);
    if (this.metric === 'cosine') this.norms.set(id, norm(copy));
  }

  /** See VectorIndex.remove. O(1). */
  remove(id: string): void {
    this.vectors.delete(id);
    this.norms.delete(id);
  }

  has(id: string): boolean {
    return this.vectors.has(id);
  }

  size(): number {
    return this.vectors.size;
  }

  /** Ids of the stored vectors. */
  ids(): IterableIterator<string> {
    return this.vectors.keys();
  }

  /** See VectorIndex.search. Exact; O(n·d + n log k); `filter` is called once per stored id. */
  search(query: readonly number[], k: number, filter?: (id: string) => boolean): VectorHit[] {
    checkVector(query, this.dimensions);
    checkK(k);
    if (k === 0) return [];
    const top = new TopK<VectorHit>(k);
    const queryNorm = norm(query);
    for (const [id, vector] of this.vectors) {
      if (filter && !filter(id)) continue;
      const score =
        this.metric === 'cosine'
          ? cosineFromParts(dotProduct(query, vector), queryNorm, this.norms.get(id)!)
          : similarity(this.metric, query, vector);
      top.push({ id, score });
    }
    return top.sorted();
  }

  /** The stored vector of `id` (a copy), or undefined. */
  get(id: string): number[] | undefined {
    const vector = this.vectors.get(id);
    return vector ? Array.from(vector) : undefined;
  }
}

/**
 * An exact k-nearest-neighbour scan over vectors offered one at a time,
 * without copying them into an index: the fallback while an HNSW index is
 * being built. Offered vectors are raw arrays: one holding anything but
 * finite numbers, or of another length than the query, is skipped. Scores
 * and tie order are exactly BruteForceIndex.search's (the same operations in
 * the same order); for cosine the dot product and the norm share one pass.
 */
export class NearestScan {
  private readonly top: TopK<VectorHit>;
  private readonly queryNorm: number;
  /** Scratch for dotAndSquares, filled anew for each vector. */
  private readonly parts: ScoreParts = { dot: 0, squares: 0 };

  /** Throws InvalidInput on a bad k. */
  constructor(
    private readonly metric: Metric,
    private readonly query: readonly number[],
    k: number,
  ) {
    checkK(k);
    this.top = new TopK<VectorHit>(k);
    this.queryNorm = norm(query);
  }

  offer(id: string, vector: readonly unknown[]): void {
    const { query, parts } = this;
    if (vector.length !== query.length || !dotAndSquares(query, vector, parts)) return;
    if (!Number.isFinite(parts.squares) && !vector.every((x) => Number.isFinite(x))) return;
    // The pass above summed the dot product as dotProduct does (same terms, same order): only euclidean needs another.
    const score =
      this.metric === 'cosine'
        ? cosineFromParts(parts.dot, this.queryNorm, Math.sqrt(parts.squares))
        : this.metric === 'dotproduct'
          ? parts.dot
          : similarity(this.metric, query, vector as readonly number[]);
    if (this.top.admits(score)) this.top.push({ id, score });
  }

  /** Offers a hit scored elsewhere (e.g. by an HNSW index). */
  offerHit(hit: VectorHit): void {
    this.top.push(hit);
  }

  /** The best hits offered so far, best first. */
  results(): VectorHit[] {
    return this.top.sorted();
  }
}
