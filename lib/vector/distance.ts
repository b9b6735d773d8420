/**
 * Vector distances and the one "higher is better" similarity every index reports.
 *
 * The three metrics of protocol.md §2.9 (`vector_metric`): cosine, euclidean,
 * dotproduct. `similarity` turns each into a score where larger means closer,
 * so indexes, thresholds and hybrid fusion can treat all metrics alike.
 * Pure functions over plain arrays; no validation beyond equal lengths (the
 * indexes validate their input once, at the boundary).
 */

/** The vector metrics of the protocol. */
export type Metric = 'cosine' | 'euclidean' | 'dotproduct';

/** Every metric, for validation and exhaustive tests. */
export const METRICS: readonly Metric[] = ['cosine', 'euclidean', 'dotproduct'];

/** A read-only numeric vector: a plain array or a typed array. */
export type VectorLike = ArrayLike<number>;

/** True when `value` names a supported metric. */
export function isMetric(value: unknown): value is Metric {
  return typeof value === 'string' && (METRICS as readonly string[]).includes(value);
}

/**
 * Dot product of two vectors of equal length.
 * REQUIRES: `a.length === b.length` (not checked, for speed).
 */
export function dotProduct(a: VectorLike, b: VectorLike): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

/** The two sums of one pass over a query and a stored vector (see dotAndSquares). */
export interface ScoreParts {
  dot: number;
  squares: number;
}

/**
 * Fills `out` with the dot product of `query` and `vector` and the sum of
 * `vector`'s squares; false (and `out` unchanged) when `vector` holds
 * anything but numbers. The whole per-vector loop of an exact scan, in a
 * function of its own: it is optimized within the first few vectors of a
 * process's first scan and stays so when its caller is deoptimized (a
 * fresh scan's empty heap changes maps the caller's optimized code saw, and
 * a loop inside the caller would run interpreted until it was recompiled).
 * REQUIRES: `vector.length >= query.length`.
 */
export function dotAndSquares(query: readonly number[], vector: readonly unknown[], out: ScoreParts): boolean {
  let dot = 0,
    squares = 0;
  for (let i = 0; i < query.length; i++) {
    const x = vector[i];
    if (typeof x !== 'number') return false;
    dot += query[i]! * x;
    squares += x * x;
  }
  out.dot = dot;
  out.squares = squares;
  return true;
}

/** Euclidean (L2) norm of a vector. */
export function norm(a: VectorLike): number {
  return Math.sqrt(dotProduct(a, a));
}

/**
 * Cosine similarity in [-1, 1].
 * A zero vector has no direction: its similarity to anything is 0, never NaN.
 * REQUIRES: `a.length === b.length`.
 */
export function cosineSimilarity(a: VectorLike, b: VectorLike): number {
  return cosineFromParts(dotProduct(a, b), norm(a), norm(b));
}

/**
 * Cosine similarity from a precomputed dot product and norms, clamped to
 * [-1, 1] against rounding; 0 when either norm is 0.
 */
export function cosineFromParts(dot: number, normA: number, normB: number): number {
  const denominator = normA * normB;
  if (denominator === 0) return 0;
  return clamp(dot / denominator, -1, 1);
}

/**
 * Euclidean (L2) distance, >= 0.
 * REQUIRES: `a.length === b.length`.
 */
export function euclideanDistance(a: VectorLike, b: VectorLike): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) {
    const d = a[i]! - b[i]!;
    sum += d * d;
  }
  return Math.sqrt(sum);
}

/**
 * Similarity score, higher is better:
 * - cosine: cosine similarity in [-1, 1], reported as is;
 * - euclidean: `1 / (1 + distance)`, in (0, 1];
 * - dotproduct: the raw dot product (unbounded).
 * REQUIRES: `a.length === b.length`.
 */
export function similarity(metric: Metric, a: VectorLike, b: VectorLike): number {
  switch (metric) {
    case 'cosine':
      return cosineSimilarity(a, b);
    case 'euclidean':
      return euclideanToSimilarity(euclideanDistance(a, b));
    case 'dotproduct':
      return dotProduct(a, b);
    default:
      return assertNever(metric);
  }
}

/** Maps a euclidean distance to the `1 / (1 + d)` similarity. */
export function euclideanToSimilarity(distance: number): number {
  return 1 / (1 + distance);
}

function clamp(x: number, lo: number, hi: number): number {
  return x < lo ? lo : x > hi ? hi : x;
}

function assertNever(value: never): never {
  throw new Error(`unknown metric ${String(value)}`);
}
