/**
 * The `Embedder` port and the built-in `OfflineEmbedder`.
 *
 * OfflineEmbedder needs no weights, keys or network, so vector search and
 * chat retrieval work on a fresh machine. It hashes features of the text into
 * D dimensions (default 384; feature hashing with a sign bit, FNV-1a 32-bit
 * over UTF-16 code units plus a murmur3 finalizer for the sign):
 * - word unigrams and word bigrams, after lower-casing, dropping punctuation
 *   and stemming (English by default, see stemmers.ts);
 * - character trigrams of each lower-cased word (padded with spaces), which
 *   tolerate typos and inflections the stemmer misses.
 * Counts are damped with sqrt(tf); each feature family is L2-normalized,
 * weighted (FAMILY_WEIGHTS) and the sum is L2-normalized. Only IEEE-exact
 * operations are used, so the output is identical across runs and machines.
 *
 * Quality limits: similarity is lexical, not semantic. Texts sharing words
 * (or word pieces) are close; synonyms ("car" / "automobile"), paraphrases
 * and translations are not. Hash collisions add small noise. Empty text (no
 * words) embeds to the zero vector. Provider embedders live in lib/chat.
 */
import { InvalidInput } from '../errors.js';
import { stemmerFor, type Stemmer } from './text/stemmers.js';
import { foldCase, tokenize } from './text/tokenize.js';

/** Anything that turns texts into vectors of a fixed dimension. */
export interface Embedder {
  readonly model: string;
  readonly dimensions: number;
  /**
   * One vector per text, in order, each of `dimensions` numbers.
   * Rejects with InvalidInput when `texts` is not an array of strings.
   * Aborting `signal` cancels a remote embedder's request (a local one ignores it).
   */
  embed(texts: string[], signal?: AbortSignal): Promise<number[][]>;
}

/** Options of the offline embedder. */
export interface OfflineEmbedderOptions {
  /** Output dimension, 8-4096; default 384. */
  dimensions?: number;
  /** Stemming language; default "english"; one without a stemmer means no stemming. */
  language?: string;
}

export const OFFLINE_MODEL = 'eddydb-offline-hash-v1';
export const OFFLINE_DEFAULT_DIMENSIONS = 384;

/** Relative weight of each feature family in the final vector. */
export const FAMILY_WEIGHTS = { unigram: 1, bigram: 0.5, trigram: 0.5 } as const;

type Family = keyof typeof FAMILY_WEIGHTS;

export class OfflineEmbedder implements Embedder {
  readonly model = OFFLINE_MODEL;
  readonly dimensions: number;
  private readonly stem: Stemmer | undefined;

  /** Throws InvalidInput when `dimensions` is not an integer from 8 to 4096. */
  constructor(options: OfflineEmbedderOptions = {}) {
    const dimensions = options.dimensions ?? OFFLINE_DEFAULT_DIMENSIONS;
    if (!Number.isInteger(dimensions) || dimensions < 8 || dimensions > 4096) {
      throw new InvalidInput(
        `offline embedder dimensions must be an integer from 8 to 4096; got ${String(dimensions)}`,
      );
    }
    this.dimensions = dimensions;
    this.stem = stemmerFor(options.language ?? 'english');
  }

  /** See Embedder.embed. Synchronous work behind a promise; deterministic. */
  async embed(texts: string[]): Promise<number[][]> {
    if (!Array.isArray(texts) || texts.some((t) => typeof t !== 'string')) {
      throw new InvalidInput('texts must be an array of strings');
    }
    return texts.map((text) => this.embedOne(text));
  }

  /** The embedding of one text: unit length, or all zeros when it has no words. */
  embedOne(text: string): number[] {
    const words = tokenize(text).map(foldCase);
    const stems = this.stem ? words.map(this.stem) : words;
    const features: Record<Family, Map<string, number>> = { unigram: new Map(), bigram: new Map(), trigram: new Map() };
    for (let i = 0; i < stems.length; i++) {
      increment(features.unigram, stems[i]!);
      if (i + 1 < stems.length) increment(features.bigram, `${stems[i]} ${stems[i + 1]}`);
    }
    for (const word of words) {
      const padded = ` ${word} `;
      for (let i = 0; i + 3 <= padded.length; i++) increment(features.trigram, padded.slice(i, i + 3));
    }
    const out = new Float64Array(this.dimensions);
    for (const family of Object.keys(FAMILY_WEIGHTS) as Family[]) {
      const part = this.hashFamily(family, features[family]);
      addScaled(out, part, FAMILY_WEIGHTS[family]);
    }
    normalize(out);
    return Array.from(out);
  }

  /** Hashes one family's features into a unit vector (or zeros when it has none). */
  private hashFamily(family: Family, counts: Map<string, number>): Float64Array {
    const vector = new Float64Array(this.dimensions);
    // Sorted, so the floating-point sum does not depend on insertion order.
    for (const feature of [...counts.keys()].sort()) {
      const hash = fnv1a(`${family[0]}:${feature}`);
      const sign = (fmix32(hash) & 1) === 0 ? 1 : -1;
      vector[hash % this.dimensions] += sign * Math.sqrt(counts.get(feature)!);
    }
    normalize(vector);
    return vector;
  }
}

/** FNV-1a, 32-bit, over UTF-16 code units. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** murmur3's 32-bit finalizer: spreads every input bit over the output. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function increment(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

function addScaled(target: Float64Array, source: Float64Array, scale: number): void {
  for (let i = 0; i < target.length; i++) target[i] += scale * source[i]!;
}

function normalize(vector: Float64Array): void {
  let sum = 0;
  for (const x of vector) sum += x * x;
  if (sum === 0) return;
  const length = Math.sqrt(sum);
  for (let i = 0; i < vector.length; i++) vector[i] /= length;
}
