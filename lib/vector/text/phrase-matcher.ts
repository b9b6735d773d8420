/**
 * The exact-phrase check of the boost: whether a field of a document holds
 * the query's tokens consecutively, each as written (case-folded unless the
 * search is case-sensitive), read from the index's token store.
 *
 * Each posting carries a `follows` number: the term's first position in the
 * field (15 bits; 0 past them, meaning "look from the start") and a 16-bit
 * signature of the terms right after each of its occurrences (two bits per
 * term, hashed two ways: a Bloom filter). A document whose posting for the
 * phrase's anchor word lacks the bits of the word after it cannot hold the
 * phrase, and is rejected without reading its tokens; otherwise the check starts at the word's first
 * position, trying only the alignments that put the word where the phrase
 * has it.
 */
import type { FieldPostings } from './field-postings.js';

const FIRST_LIMIT = 0x7fff;

/** The `follows` number of a term first at `first`, followed by terms of `signature` (signatureBits values). */
export function followsOf(first: number, signature: number): number {
  return ((first <= FIRST_LIMIT ? first : 0) << 16) | signature;
}

/** The signature bits of a term number (two, or one when both hashes agree). */
export function signatureBits(term: number): number {
  return (1 << (Math.imul(term, 0x9e3779b1) >>> 28)) | (1 << (Math.imul(term, 0x85ebca6b) >>> 28));
}

/** Where either of two terms occurs: the earlier first position, both signatures. */
export function mergedFollows(a: number, b: number): number {
  return (Math.min(a >>> 16, b >>> 16) << 16) | ((a | b) & 0xffff);
}

/** Where to start looking for a term: its first position, or 0 when it was past FIRST_LIMIT. */
export function firstOf(follows: number): number {
  return follows >>> 16;
}

export class PhraseMatcher {
  /** Tokens in the phrase. */
  readonly size: number;
  /** Per query word, the term numbers matching it as written, and its positions in the phrase. */
  private readonly wordTerms: Array<readonly number[]> = [];
  private readonly positions: number[][] = [];
  /** The phrase's term per position, when each position matches one term only (the common case). */
  private readonly single: Int32Array | undefined;
  /**
   * Per query word, the signature bits of the terms that may follow it in the phrase; 0 when the word ends the
   * phrase somewhere (anything may follow it then). With one such term, a document must have all its bits
   * (`nextAll`); with several, one bit of any.
   */
  private readonly nextBits: number[] = [];
  private readonly nextAll: boolean[] = [];

  constructor(
    /** The token store (term numbers). */
    private readonly tokens: Uint32Array,
    /** Per searched field (search order), its postings when indexed. */
    private readonly fields: ReadonlyArray<FieldPostings | undefined>,
    /** Per phrase position, the term numbers that match it as written. */
    private readonly terms: ReadonlyArray<readonly number[]>,
    /** Per phrase position, the index of its query word (the distinct words). */
    words: readonly number[],
  ) {
    this.size = terms.length;
    this.single = terms.every((t) => t.length === 1) ? Int32Array.from(terms, (t) => t[0]!) : undefined;
    const last = new Set<number>();
    const next: Array<Set<number>> = [];
    words.forEach((word, j) => {
      this.wordTerms[word] = terms[j]!;
      (this.positions[word] ??= []).push(j);
      if (j === terms.length - 1) last.add(word);
      else for (const term of terms[j + 1]!) (next[word] ??= new Set()).add(term);
    });
    next.forEach((following, word) => {
      this.nextBits[word] = last.has(word) ? 0 : [...following].reduce((bits, t) => bits | signatureBits(t), 0);
      this.nextAll[word] = following.size === 1;
    });
  }

  /**
   * The signature bits of the terms that may follow query word `word` in the phrase, and whether a document
   * holding the phrase has all of them (one such term) or one at least: 0 when the word ends the phrase somewhere
   * (then nothing is known).
   */
  nextBitsOf(word: number): { bits: number; all: boolean } {
    return { bits: this.nextBits[word] ?? 0, all: this.nextAll[word] ?? false };
  }

  /**
   * Whether searched field `field` of document `doc` holds the phrase, given the `follows` number of query word
   * `word` as written there and how many times at most it occurs (Infinity: unknown).
   */
  from(field: number, doc: number, word: number, follows: number, occurrences: number): boolean {
    if (!mayFollow(follows, this.nextBits[word] ?? 0, this.nextAll[word] ?? false)) return false;
    const postings = this.fields[field]!;
    const length = postings.lengths[doc]!;
    if (length < this.size) return false;
    const start = postings.starts[doc]!;
    const tokens = this.tokens;
    const wordTerms = this.wordTerms[word]!;
    const positions = this.positions[word]!;
    let seen = 0;
    for (let at = firstOf(follows); at < length; at++) {
      if (!matches(wordTerms, tokens[start + at]!)) continue;
      for (const j of positions) {
        const phraseStart = at - j;
        if (phraseStart >= 0 && phraseStart + this.size <= length && this.holdsAt(start + phraseStart)) return true;
      }
      if (++seen >= occurrences) return false;
    }
    return false;
  }

  /** Whether the phrase starts at token `at` of the store. */
  private holdsAt(at: number): boolean {
    const single = this.single;
    if (single) {
      for (let j = 0; j < single.length; j++) if (this.tokens[at + j] !== single[j]) return false;
      return true;
    }
    for (let j = 0; j < this.size; j++) if (!matches(this.terms[j]!, this.tokens[at + j]!)) return false;
    return true;
  }
}

/** Whether a `follows` number's signature may hold a term of `bits` (all of them when `all`); 0 bits: anything. */
export function mayFollow(follows: number, bits: number, all: boolean): boolean {
  return bits === 0 || (all ? (follows & bits) === bits : (follows & bits) !== 0);
}

function matches(terms: readonly number[], token: number): boolean {
  return terms.length === 1 ? terms[0] === token : terms.includes(token);
}
