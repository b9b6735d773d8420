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
 * A short list keeps one plain array (most terms have a few postings, and
 * a typed array costs about 200 bytes before its first element); past
 * PACKED_FROM postings it moves to typed arrays (4 bytes a number, not 8).
 * Each field has one type, so the code that reads them stays monomorphic.
 */

/** Postings per block of score bounds. */
export const BLOCK = 64;

/** Lists this long and longer keep typed arrays. */
const PACKED_FROM = 256;

const NONE = new Int32Array(0);

export class PostingList {
  size = 0;
  /** While short: the postings interleaved (document, frequency, follows, ...). */
  private short: number[] | undefined = [];
  /** Once long: one typed array each (capacity at least `size`). */
  private docs = NONE;
  private freqs = NONE;
  private follows = NONE;
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
   * `length` tokens. REQUIRES: `doc` is larger than every document already in the list.
   */
  append(doc: number, freq: number, follows: number, length: number): void {
    const at = this.size;
    if (this.short) {
      if (at < PACKED_FROM) this.short.push(doc, freq, follows);
      else {
        this.pack(PACKED_FROM * 2);
        this.store(at, doc, freq, follows);
      }
    } else {
      if (at === this.docs.length) this.pack(at * 2);
      this.store(at, doc, freq, follows);
    }
    this.size++;
    this.live++;
    this.bound(at, freq, length);
  }

  /** The postings as typed arrays of `size` numbers (views of the list's own when long, else copies). */
  view(): { docs: Int32Array; freqs: Int32Array; follows: Int32Array } {
    if (!this.short) {
      return {
        docs: this.docs.subarray(0, this.size),
        freqs: this.freqs.subarray(0, this.size),
        follows: this.follows.subarray(0, this.size),
      };
    }
    const docs = new Int32Array(this.size),
      freqs = new Int32Array(this.size),
      follows = new Int32Array(this.size);
    for (let i = 0; i < this.size; i++) {
      docs[i] = this.short[3 * i]!;
      freqs[i] = this.short[3 * i + 1]!;
      follows[i] = this.short[3 * i + 2]!;
    }
    return { docs, freqs, follows };
  }

  /** Calls `each` for every posting, in document order. */
  forEach(each: (doc: number, freq: number, follows: number) => void): void {
    const short = this.short;
    if (short) for (let i = 0; i < short.length; i += 3) each(short[i]!, short[i + 1]!, short[i + 2]!);
    else for (let i = 0; i < this.size; i++) each(this.docs[i]!, this.freqs[i]!, this.follows[i]!);
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
    const kept: number[] = [];
    this.forEach((doc, freq, follows) => {
      const to = renumber(doc);
      if (to >= 0) kept.push(to, freq, follows);
    });
    this.size = this.live = 0;
    this.short = [];
    this.docs = this.freqs = this.follows = NONE;
    this.maxFreq = 0;
    this.minLength = Number.MAX_SAFE_INTEGER;
    this.blockMaxFreq = this.blockMinLength = undefined;
    for (let i = 0; i < kept.length; i += 3) this.append(kept[i]!, kept[i + 1]!, kept[i + 2]!, lengthOf(kept[i]!));
  }

  private store(at: number, doc: number, freq: number, follows: number): void {
    this.docs[at] = doc;
    this.freqs[at] = freq;
    this.follows[at] = follows;
  }

  /** Widens the bounds of the list and of its block with posting `at`. */
  private bound(at: number, freq: number, length: number): void {
    if (at === BLOCK) {
      // The second block starts: the list's bounds so far are the first block's.
      this.blockMaxFreq = [this.maxFreq];
      this.blockMinLength = [this.minLength];
    }
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

  /** Moves the postings to typed arrays of `capacity` slots. */
  private pack(capacity: number): void {
    const { docs, freqs, follows } = this.view();
    this.docs = new Int32Array(capacity);
    this.freqs = new Int32Array(capacity);
    this.follows = new Int32Array(capacity);
    this.docs.set(docs);
    this.freqs.set(freqs);
    this.follows.set(follows);
    this.short = undefined;
  }
}
