/**
 * Hybrid ranking: weighted fusion of text (BM25) and vector (similarity) hits.
 *
 * Text scores are unbounded, so they are divided by the best text score of
 * the result set to land in [0, 1]; vector similarities are used as they are
 * (cosine in [-1, 1], euclidean in (0, 1], dot product raw). The fused score
 * is textWeight·text + vectorWeight·vector, a missing side counting 0, so it
 * can exceed 1 when the weights sum past 1 (protocol.md §2.9 shows 1.498).
 * Filters belong to the inputs: fusion only ranks what it is given.
 */
import { InvalidInput } from '../errors.js';
import type { VectorHit } from './vector-index.js';

/** A text hit as produced by TextIndex.search. */
export interface TextHitLike {
  id: string;
  score: number;
  matchedFields: readonly string[];
}

/** Weights of the two sides. */
export interface FusionWeights {
  textWeight: number;
  vectorWeight: number;
}

/** One fused result; the side scores are kept for explanations. */
export interface HybridHit {
  id: string;
  score: number;
  /** From the text side; empty for pure vector hits. */
  matchedFields: string[];
  /** The text hit's normalized score in [0, 1], when it had one. */
  textScore?: number;
  /** The vector hit's similarity, when it had one. */
  vectorScore?: number;
}

/** Equal weights, used when a request names neither. */
export const DEFAULT_FUSION_WEIGHTS: Readonly<FusionWeights> = { textWeight: 0.5, vectorWeight: 0.5 };

/**
 * Fuses the two hit lists into one, best first (ties by id). An id present
 * in both lists appears once. Throws InvalidInput when a weight is negative
 * or not finite.
 */
export function fuseScores(
  text: readonly TextHitLike[],
  vector: readonly VectorHit[],
  weights: FusionWeights = DEFAULT_FUSION_WEIGHTS,
): HybridHit[] {
  const { textWeight, vectorWeight } = weights;
  for (const [name, value] of [
    ['text_weight', textWeight],
    ['vector_weight', vectorWeight],
  ] as const) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new InvalidInput(`${name} must be a non-negative number; got ${String(value)}`);
    }
  }
  const maxText = text.reduce((max, hit) => Math.max(max, hit.score), 0);
  const fused = new Map<string, HybridHit>();
  for (const hit of text) {
    const textScore = maxText > 0 ? Math.max(0, hit.score) / maxText : 0;
    fused.set(hit.id, { id: hit.id, score: 0, matchedFields: [...hit.matchedFields], textScore });
  }
  for (const hit of vector) {
    const entry = fused.get(hit.id);
    if (entry) entry.vectorScore = hit.score;
    else fused.set(hit.id, { id: hit.id, score: 0, matchedFields: [], vectorScore: hit.score });
  }
  const hits = [...fused.values()];
  for (const hit of hits) hit.score = textWeight * (hit.textScore ?? 0) + vectorWeight * (hit.vectorScore ?? 0);
  return hits.sort((a, b) => (a.score !== b.score ? b.score - a.score : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
