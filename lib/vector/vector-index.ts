/**
 * The `VectorIndex` contract shared by the exact (`BruteForceIndex`) and the
 * approximate (`HnswIndex`) implementations, plus the input checks both run
 * at their boundary (dimensions, finite numbers, k).
 *
 * Ids are opaque strings: the index knows nothing about records or
 * collections. Scores are "higher is better" similarities (see distance.ts).
 */
import { InvalidInput } from '../errors.js';
import { isMetric, type Metric } from './distance.js';

/** One search result: the id and its similarity to the query. */
export interface VectorHit {
  id: string;
  score: number;
}

/** An index of fixed-dimension vectors under one metric. */
export interface VectorIndex {
  readonly dimensions: number;
  readonly metric: Metric;
  /**
   * Stores `vector` under `id`, replacing the vector already stored under it.
   * The vector is copied; the caller may reuse the array.
   * Throws InvalidInput on a dimension mismatch or a non-finite component.
   */
  add(id: string, vector: readonly number[]): void;
  /** Removes `id`; removing an absent id is a no-op. */
  remove(id: string): void;
  /** True when `id` is stored. */
  has(id: string): boolean;
  /**
   * The up to `k` stored vectors most similar to `query`, best first (ties by
   * id). When `filter` is given, only ids for which it returns true are
   * candidates; it is called synchronously and must not modify the index.
   * Throws InvalidInput on a dimension mismatch or a bad `k`.
   */
  search(query: readonly number[], k: number, filter?: (id: string) => boolean): VectorHit[];
  /** Number of stored (not removed) vectors. */
  size(): number;
}

/** Throws InvalidInput unless `dimensions` is a positive integer (at most 65,536). */
export function checkDimensions(dimensions: number): void {
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 65_536) {
    throw new InvalidInput(`vector dimensions must be an integer from 1 to 65536; got ${String(dimensions)}`);
  }
}

/** Throws InvalidInput unless `metric` is cosine, euclidean or dotproduct. */
export function checkMetric(metric: unknown): asserts metric is Metric {
  if (!isMetric(metric)) {
    throw new InvalidInput(`unknown vector metric '${String(metric)}'; use cosine, euclidean or dotproduct`);
  }
}

/**
 * Whether `x` can be a vector's component: a number that stays finite as a
 * 32-bit float, the precision indexes store vectors in (1e39 is finite in
 * JavaScript, Infinity once stored).
 */
export function isVectorComponent(x: unknown): x is number {
  return typeof x === 'number' && Number.isFinite(Math.fround(x));
}

/**
 * Throws InvalidInput unless `vector` is an array (or a Float32Array) of
 * `dimensions` numbers that fit a 32-bit float. The dimension message is the
 * one the engine surfaces verbatim.
 */
export function checkVector(vector: readonly number[] | Float32Array, dimensions: number): void {
  if (!Array.isArray(vector) && !(vector instanceof Float32Array))
    throw new InvalidInput('vector must be an array of numbers');
  if (vector.length !== dimensions) {
    throw new InvalidInput(`vector has ${vector.length} dimensions; the index has ${dimensions}`);
  }
  for (let i = 0; i < vector.length; i++) {
    const x = vector[i];
    if (typeof x !== 'number' || !Number.isFinite(x)) {
      throw new InvalidInput(`vector component ${i} is not a finite number`);
    }
    if (!isVectorComponent(x)) {
      throw new InvalidInput(`vector component ${i} (${x}) is beyond a 32-bit float's range (about ±3.4e38)`);
    }
  }
}

/** Throws InvalidInput unless `k` is a non-negative integer. */
export function checkK(k: number): void {
  if (!Number.isInteger(k) || k < 0) throw new InvalidInput(`k must be a non-negative integer; got ${String(k)}`);
}

/** Orders hits best first, ties broken by id so results are deterministic. */
export function compareHits(a: VectorHit, b: VectorHit): number {
  if (a.score !== b.score) return b.score - a.score;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
