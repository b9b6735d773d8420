/**
 * A cursor over the postings of one query word in one field, scoring them
 * with BM25 and bounding the scores ahead of it, for block-max-wand.ts.
 *
 * The postings are a stored list (the word matched one stored term) or a
 * list merged for the query (several terms: stems, case variants, fuzzy
 * matches; frequencies summed with their weights). A stored list holds dead
 * documents, which the cursor steps over. Scores are computed exactly as the
 * exhaustive formula does, operation for operation, so the same document gets
 * the same score bit for bit. Bounds are inflated by BOUND_SLACK: computed in
 * another order than a score, they could otherwise fall an ulp below it.
 */
import { mayFollow } from './phrase-matcher.js';
import { BLOCK } from './posting-list.js';

export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** The exact-phrase boost: a record holding the query as a phrase scores this much more. */
export const EXACT_BOOST = 1.5;

/** Past every document number. */
export const END = 0x7fffffff;

/** Relative slack on every bound, far above the rounding of a sum of a few scores. */
export const BOUND_SLACK = 1 + 1e-9;

/** What a scorer reads: the postings, the field's lengths, the live documents and the field's statistics. */
export interface ScorerSource {
  docs: Int32Array;
  freqs: Int32Array | Float64Array;
  /** Frequencies are multiplied by this (a single stored term's weight; 1 for merged lists). */
  scale: number;
  /** Largest frequency and shortest length over the list, and per block of BLOCK postings when given. */
  maxFreq: number;
  minLength: number;
  blockMaxFreq: readonly number[] | undefined;
  blockMinLength: readonly number[] | undefined;
  /**
   * Per posting, where the query word as written occurs in the field (phrase-matcher.ts `follows`), -1 when only
   * other forms are there; undefined when no posting has it as written.
   */
  exactFollows: Int32Array | undefined;
  /** Whether the frequency counts the word as written (one stored term, as written): the phrase check stops there. */
  countsExact: boolean;
  lengths: Int32Array;
  /** document number -> id; undefined for a dead document. */
  alive: ReadonlyArray<string | undefined>;
  /** Field weight times the word's idf in the field. */
  weightIdf: number;
  averageLength: number;
}

export class TermScorer {
  readonly docs: Int32Array;
  private readonly freqs: Int32Array | Float64Array;
  private readonly scale: number;
  private readonly lengths: Int32Array;
  private readonly alive: ReadonlyArray<string | undefined>;
  private readonly weightIdf: number;
  private readonly averageLength: number;
  /** Per block of BLOCK postings, the bound of their scores (undefined: one block, bounded by maxScore). */
  private readonly blockBounds: Float64Array | undefined;
  private readonly exactFollows: Int32Array | undefined;
  private readonly countsExact: boolean;
  private readonly size: number;
  /** The bound of any posting's score. */
  readonly maxScore: number;
  /** The scorer this one is a copy of (itself when it is none). */
  readonly original: TermScorer;
  /** Whether some posting is the query word as written. */
  readonly mayBeExact: boolean;
  /** The word's bit when it may be found as written (set by the query that runs it; see block-max-wand.ts). */
  wordBit = 0;
  /** The current posting, and its document (END once past the last). */
  pos = -1;
  doc = -1;
  /** The block `blockScore` bounds. */
  private block = -1;
  /** The block `boundFrom` last looked at. */
  private shallow = 0;

  constructor(
    private readonly source: ScorerSource,
    /** Index of the query word (keys order) and of the field (search order). */
    readonly word: number,
    readonly field: number,
    original?: TermScorer,
  ) {
    this.original = original ?? this;
    this.docs = source.docs;
    this.freqs = source.freqs;
    this.scale = source.scale;
    this.lengths = source.lengths;
    this.alive = source.alive;
    this.weightIdf = source.weightIdf;
    this.averageLength = source.averageLength;
    this.exactFollows = source.exactFollows;
    this.countsExact = source.countsExact;
    this.size = source.docs.length;
    this.maxScore = this.bound(source.scale * source.maxFreq, source.minLength);
    const { blockMaxFreq, blockMinLength } = source;
    if (blockMaxFreq) {
      this.blockBounds = new Float64Array(blockMaxFreq.length);
      for (let b = 0; b < blockMaxFreq.length; b++)
        this.blockBounds[b] = this.bound(source.scale * blockMaxFreq[b]!, blockMinLength![b]!);
    }
    this.mayBeExact = source.exactFollows !== undefined;
    this.next();
  }

  /** The score of posting `pos`. */
  scoreAt(pos: number): number {
    const tf = this.scale * this.freqs[pos]!;
    const norm = BM25_K1 * (1 - BM25_B + (BM25_B * this.lengths[this.docs[pos]!]!) / this.averageLength);
    return this.weightIdf * ((tf * (BM25_K1 + 1)) / (tf + norm));
  }

  /** Whether posting `pos` is the query word as written (for the exact-phrase boost). */
  isExactAt(pos: number): boolean {
    return this.exactFollows !== undefined && this.exactFollows[pos]! >= 0;
  }

  /** Where the query word as written occurs in posting `pos`'s field (REQUIRES: isExactAt(pos)). */
  followsAt(pos: number): number {
    return this.exactFollows![pos]!;
  }

  /** How many times at most the word occurs as written in posting `pos`'s field. */
  occurrencesAt(pos: number): number {
    return this.countsExact ? this.freqs[pos]! : Infinity;
  }

  /** The posting of document `doc` (binary search), or -1; dead documents are never asked. */
  find(doc: number): number {
    let lo = 0,
      hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.docs[mid]! < doc) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.size && this.docs[lo] === doc ? lo : -1;
  }

  /** The postings, [start, end), of the `count` blocks with the highest bounds (ties: the earlier). */
  bestBlocks(count: number): Array<[start: number, end: number]> {
    const bounds = this.blockBounds;
    if (!bounds) return [[0, this.size]];
    const cut = bounds.length <= count ? -Infinity : Float64Array.from(bounds).sort()[bounds.length - count]!;
    const best: Array<[number, number]> = [];
    for (let b = 0; b < bounds.length && best.length < count; b++)
      if (bounds[b]! >= cut) best.push([b * BLOCK, Math.min(this.size, (b + 1) * BLOCK)]);
    return best;
  }

  /**
   * Moves to the first live posting from the current one where the word occurs as written and may be followed by
   * a term of `next` (phrase-matcher.ts mayFollow); skips the blocks whose bound, plus `others`, boosted, is below
   * `theta`.
   */
  seekPhrase(next: { bits: number; all: boolean }, others: number, theta: number): void {
    const { bits, all } = next;
    const follows = this.exactFollows!,
      docs = this.docs,
      alive = this.alive,
      bounds = this.blockBounds,
      size = this.size;
    let pos = this.pos;
    while (pos < size) {
      const block = (pos / BLOCK) | 0;
      const end = Math.min(size, (block + 1) * BLOCK);
      if (bounds && (others + bounds[block]!) * EXACT_BOOST * BOUND_SLACK < theta) {
        pos = end;
        continue;
      }
      for (; pos < end; pos++) {
        const f = follows[pos]!;
        if (f >= 0 && mayFollow(f, bits, all) && alive[docs[pos]!] !== undefined) return this.settle(pos);
      }
    }
    this.settle(size);
  }

  /** Another cursor over the same postings, at the first live one. */
  copy(): TermScorer {
    return new TermScorer(this.source, this.word, this.field, this);
  }

  /** Whether `doc` is live. */
  isLive(doc: number): boolean {
    return this.alive[doc] !== undefined;
  }

  /** Moves back to the first live posting. */
  reset(): void {
    this.pos = -1;
    this.shallow = 0;
    this.next();
  }

  /** Moves to the next live posting. */
  next(): void {
    let pos = this.pos + 1;
    while (pos < this.size && this.alive[this.docs[pos]!] === undefined) pos++;
    this.settle(pos);
  }

  /** Moves to the first live posting at or after document `target`. */
  advance(target: number): void {
    if (this.doc >= target) return;
    const docs = this.docs;
    // Gallop from the current posting, then binary search the last step.
    let lo = this.pos + 1,
      step = 1,
      hi = lo;
    while (hi < this.size && docs[hi]! < target) {
      lo = hi + 1;
      hi = lo + step;
      step *= 2;
    }
    if (hi > this.size) hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (docs[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    while (lo < this.size && this.alive[docs[lo]!] === undefined) lo++;
    this.settle(lo);
  }

  /**
   * The bound of the block of postings that would hold `target` (at or after the current posting); `lastDoc()` is
   * then the last document that block covers.
   */
  blockScore(target: number): number {
    if (!this.blockBounds) return this.maxScore;
    let b = (this.pos / BLOCK) | 0;
    const last = this.blockBounds.length - 1;
    while (b < last && this.docs[(b + 1) * BLOCK - 1]! < target) b++;
    this.block = b;
    return this.blockBounds[b]!;
  }

  /**
   * A bound of the score of any posting at or after document `target`, from the block of postings that would hold
   * it. Found from a pointer of its own that only moves forward: REQUIRES `target` no smaller than at the last call
   * (since construction or `reset`).
   */
  boundFrom(target: number): number {
    if (!this.blockBounds) return this.maxScore;
    const last = this.blockBounds.length - 1;
    let b = this.shallow;
    while (b < last && this.docs[(b + 1) * BLOCK - 1]! < target) b++;
    this.shallow = b;
    return this.blockBounds[b]!;
  }

  /** Moves to the first live posting after the block `blockScore` looked at (no search: blocks are positions). */
  skipBlock(): void {
    if (!this.blockBounds) return this.settle(this.size);
    let pos = Math.min(this.size, (this.block + 1) * BLOCK);
    while (pos < this.size && this.alive[this.docs[pos]!] === undefined) pos++;
    this.settle(pos);
  }

  /** The last document of the block `blockScore` looked at. */
  lastDoc(): number {
    if (!this.blockBounds) return this.docs[this.size - 1]!;
    return this.docs[Math.min(this.size, (this.block + 1) * BLOCK) - 1]!;
  }

  private settle(pos: number): void {
    this.pos = pos;
    this.doc = pos < this.size ? this.docs[pos]! : END;
  }

  /** The score of frequency `tf` at field length `length`, inflated: a bound for every smaller tf, longer field. */
  private bound(tf: number, length: number): number {
    const norm = BM25_K1 * (1 - BM25_B + (BM25_B * length) / this.averageLength);
    return this.weightIdf * ((tf * (BM25_K1 + 1)) / (tf + norm)) * BOUND_SLACK;
  }
}
