/**
 * One field of the text index: a posting list per term number, and per
 * document number the field's length in tokens (0: the document has no
 * tokens in this field) and where its tokens start in the index's token
 * store. `count` and `totalLength` cover live documents only, so a query's
 * idf and average length are the exact corpus statistics.
 */
import { PostingList } from './posting-list.js';

export class FieldPostings {
  /** term number -> postings (a term leaves once no live document of the field holds it) */
  readonly lists = new Map<number, PostingList>();
  /** document number -> tokens in this field */
  lengths: Int32Array;
  /** document number -> first token in the index's token store */
  starts: Int32Array;
  /** Live documents with tokens in this field, and their tokens. */
  count = 0;
  totalLength = 0;

  constructor(capacity: number) {
    this.lengths = new Int32Array(capacity);
    this.starts = new Int32Array(capacity);
  }

  /** Makes room for document numbers below `capacity`. */
  grow(capacity: number): void {
    const lengths = new Int32Array(capacity),
      starts = new Int32Array(capacity);
    lengths.set(this.lengths.subarray(0, Math.min(capacity, this.lengths.length)));
    starts.set(this.starts.subarray(0, Math.min(capacity, this.starts.length)));
    this.lengths = lengths;
    this.starts = starts;
  }

  /** Records document `doc`'s `length` tokens stored from `start`. */
  addDocument(doc: number, start: number, length: number): void {
    this.lengths[doc] = length;
    this.starts[doc] = start;
    this.count++;
    this.totalLength += length;
  }

  /** Forgets document `doc`'s tokens (its postings stay until compacted); returns how many it had. */
  removeDocument(doc: number): number {
    const length = this.lengths[doc]!;
    this.lengths[doc] = 0;
    this.count--;
    this.totalLength -= length;
    return length;
  }

  /** Appends `doc` to term `term`'s postings: `freq` times, where `follows` says (phrase-matcher.ts). */
  post(term: number, doc: number, freq: number, follows: number, length: number): void {
    let list = this.lists.get(term);
    if (!list) this.lists.set(term, (list = new PostingList()));
    list.append(doc, freq, follows, length);
  }

  /**
   * Takes one dead posting of `term` off its live count: drops the list when none is live, compacts it when dead
   * ones dominate (`isLive` tells the live documents).
   */
  unpost(term: number, isLive: (doc: number) => boolean): void {
    const list = this.lists.get(term)!;
    list.live--;
    if (list.live === 0) this.lists.delete(term);
    else if (list.wantsCompaction()) {
      const lengths = this.lengths;
      list.compact(
        (doc) => (isLive(doc) ? doc : -1),
        (doc) => lengths[doc]!,
      );
    }
  }

  /**
   * Renumbers the documents (`renumber`: old number -> new, -1 for a dead one; order kept) into arrays of
   * `capacity`, with their tokens moved as `moveTokens` says (old start, length -> new start).
   */
  renumber(renumber: Int32Array, capacity: number, moveTokens: (start: number, length: number) => number): void {
    const lengths = new Int32Array(capacity),
      starts = new Int32Array(capacity);
    for (let doc = 0; doc < renumber.length; doc++) {
      const to = renumber[doc]!,
        length = this.lengths[doc]!;
      if (to < 0 || length === 0) continue;
      lengths[to] = length;
      starts[to] = moveTokens(this.starts[doc]!, length);
    }
    this.lengths = lengths;
    this.starts = starts;
    for (const list of this.lists.values()) {
      list.compact(
        (doc) => renumber[doc]!,
        (doc) => lengths[doc]!,
      );
    }
  }
}
