/**
 * The postings of one term in one field: document numbers in ascending order
 * with, for each, the term's frequency and where it occurs (phrase-matcher.ts:
 * its first position and a signature of the terms that follow it, for the
 * exact-phrase check), and per block of BLOCK postings the
 * largest frequency and the shortest field length, from which a query bounds
 * the BM25 score of any posting in the block (block-max WAND, as Lucene's
 * impacts do). Document numbers only grow (a changed record gets a new one),
 * so adding is an append. Removing leaves the posting in place: the index
 * marks the document dead, `live` counts the others (the term's document
 * frequency), and `compact` drops the dead ones once they outnumber the live
 * ones. Bounds over dead postings stay valid bounds, only looser.
 *
 * A short list keeps plain arrays (most terms have a few postings, and a
 * typed array costs about 200 bytes before its first element); past
 * PACKED_FROM postings it moves to typed arrays (4 bytes a number, not 8).
 */

/** Postings per block of score bounds. */
export const BLOCK = 64;

/** Lists this long and longer keep typed arrays. */
const PACKED_FROM = 256;

type Numbers = number[] | Int32Array;

export class PostingList {
  size = 0;
  private docs: Numbers = [];
  private freqs: Numbers = [];
  private follows: Numbers = [];
  /** Postings of live documents: the term's document frequency in the field. */
  live = 0;
  /** Largest frequency and shortest field length over every posting. */
  maxFreq = 0;
  minLength = Number.MAX_SAFE_INTEGER;
  /** Per block (only once there is more than one): largest frequency, shortest field length. */
  blockMaxFreq: number[] | undefined;
  blockMinLength: number[] | undefined;

  /**
   * Appends a posting: `doc` holds the term `freq` times, where `follows` says (phrase-matcher.ts), in a field of
   * `length` tokens.
   * REQUIRES: `doc` is larger than every document already in the list.
   */
  append(doc: number, freq: number, follows: number, length: number): void {
    const at = this.size;
    if (at === BLOCK) {
      // The second block starts: the list's bounds so far are the first block's.
      this.blockMaxFreq = [this.maxFreq];
      this.blockMinLength = [this.minLength];
    }
    if (at === PACKED_FROM) this.pack(PACKED_FROM * 2);
    else if (this.docs instanceof Int32Array && at === this.docs.length) this.pack(at * 2);
    this.docs[at] = doc;
    this.freqs[at] = freq;
    this.follows[at] = follows;
    this.size++;
    this.live++;
    if (freq > this.maxFreq) this.maxFreq = freq;
    if (length < this.minLength) this.minLength = length;
    if (at < BLOCK) return;
    const b = (at / BLOCK) | 0;
    if (at % BLOCK === 0) {
      this.blockMaxFreq!.push(freq);
      this.blockMinLength!.push(length);
    } else {
      if (freq > this.blockMaxFreq![b]!) this.blockMaxFreq![b] = freq;
      if (length < this.blockMinLength![b]!) this.blockMinLength![b] = length;
    }
  }

  /** The postings as typed arrays of `size` numbers (views of the list's own when packed, else copies). */
  view(): { docs: Int32Array; freqs: Int32Array; follows: Int32Array } {
    const view = (numbers: Numbers) =>
      numbers instanceof Int32Array ? numbers.subarray(0, this.size) : Int32Array.from(numbers);
    return { docs: view(this.docs), freqs: view(this.freqs), follows: view(this.follows) };
  }

  /** Calls `each` for every posting, in document order. */
  forEach(each: (doc: number, freq: number, follows: number) => void): void {
    for (let i = 0; i < this.size; i++) each(this.docs[i]!, this.freqs[i]!, this.follows[i]!);
  }

  /** True once dead postings outnumber live ones by a margin: time to `compact`. */
  wantsCompaction(): boolean {
    return this.size - this.live > this.live + 8;
  }

  /**
   * Keeps the postings whose document `renumber` maps to a number (-1: dead),
   * renumbered, and recomputes the bounds with `lengthOf` (new numbers).
   * REQUIRES: `renumber` preserves the order of the documents it keeps.
   */
  compact(renumber: (doc: number) => number, lengthOf: (doc: number) => number): void {
    const { docs, freqs, follows } = this;
    let kept = 0;
    for (let i = 0; i < this.size; i++) {
      const doc = renumber(docs[i]!);
      if (doc < 0) continue;
      docs[kept] = doc;
      freqs[kept] = freqs[i]!;
      follows[kept++] = follows[i]!;
    }
    this.size = this.live = kept;
    if (Array.isArray(docs)) docs.length = (freqs as number[]).length = (follows as number[]).length = kept;
    else if (docs.length > 4 * Math.max(kept, PACKED_FROM)) this.pack(2 * Math.max(kept, PACKED_FROM));
    this.maxFreq = 0;
    this.minLength = Number.MAX_SAFE_INTEGER;
    this.blockMaxFreq = this.blockMinLength = kept > BLOCK ? [] : undefined;
    for (let i = 0; i < kept; i++) {
      const freq = freqs[i]!,
        length = lengthOf(docs[i]!);
      if (freq > this.maxFreq) this.maxFreq = freq;
      if (length < this.minLength) this.minLength = length;
      if (!this.blockMaxFreq) continue;
      const b = (i / BLOCK) | 0;
      if (i % BLOCK === 0) {
        this.blockMaxFreq.push(freq);
        this.blockMinLength!.push(length);
      } else {
        this.blockMaxFreq[b] = Math.max(this.blockMaxFreq[b]!, freq);
        this.blockMinLength![b] = Math.min(this.blockMinLength![b]!, length);
      }
    }
  }

  /** Moves the postings to typed arrays of `capacity` slots. */
  private pack(capacity: number): void {
    const packed = (numbers: Numbers) => {
      const out = new Int32Array(capacity);
      if (numbers instanceof Int32Array) out.set(numbers.subarray(0, this.size));
      else out.set(numbers);
      return out;
    };
    this.docs = packed(this.docs);
    this.freqs = packed(this.freqs);
    this.follows = packed(this.follows);
  }
}
