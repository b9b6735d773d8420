/**
 * Top-k retrieval over the term scorers of a query, document at a time, with
 * block-max WAND (Ding and Suel 2011; Lucene's impacts): the scorers are kept
 * ordered by their current document; the pivot is the first document whose
 * scorers' bounds could reach the threshold (the k-th best score so far, or
 * min_score), every document before it is skipped, and when the bounds of the
 * blocks around the pivot still fall short, the scorers jump past those
 * blocks. Only documents that could enter the top k are scored.
 *
 * The exact-phrase boost (×1.5) would make every bound half as loose again,
 * so a query of several tokens first finds the documents holding the phrase:
 * it walks the postings of one word (the anchor) and checks the phrase there
 * (phrase-matcher.ts), scoring those documents boosted; then block-max WAND
 * runs over the rest without the boost, from the threshold they set. A query
 * of one token has no phrase to hold: every document with the word as
 * written is boosted, and the bounds include the boost.
 *
 * The answer is exactly the exhaustive one: a document is skipped only when a
 * bound of its score is below the threshold, and one that ties the k-th score
 * is scored (it may win on its id). The caller's filter is asked only of
 * documents about to enter. Without a limit every match is scored.
 */
import { BoundedHeap } from '../top-k.js';
import { compareHits } from '../vector-index.js';
import type { PhraseMatcher } from './phrase-matcher.js';
import { BOUND_SLACK, END, EXACT_BOOST, type TermScorer } from './term-scorer.js';

export { EXACT_BOOST };

/** A query ready to run: its scorers and what decides a document's place. */
export interface WandQuery {
  /** In (word, field) order: a document's score sums their scores in this order, as the exhaustive scorer does. */
  scorers: TermScorer[];
  /** Number of distinct query words. */
  words: number;
  /** Whether a document may earn the exact-phrase boost (every word as written, and the phrase when several). */
  boost: boolean;
  /** The exact phrase a boosted document must hold; undefined for a query of one token (nothing more to hold). */
  phrase: PhraseMatcher | undefined;
  /** How many to keep; undefined: every match. */
  limit: number | undefined;
  minScore: number | undefined;
  filter: ((id: string) => boolean) | undefined;
  /** document number -> id */
  idOf: ReadonlyArray<string | undefined>;
  /** Per document number, zeroed: marks the documents the phrase pass scored (left zeroed). */
  marks: Uint8Array;
}

/** A document kept: its score and the searched fields it matched in (bits of field indexes below 31). */
export interface ScoredDoc {
  doc: number;
  id: string;
  score: number;
  fieldBits: number;
}

/** At most this many blocks per scorer are scored first (a large limit gains little from a high start). */
const PRIMED_BLOCKS = 64;

/** Field indexes at or past this are looked up in the scorers after ranking, not tracked as bits. */
export const FIELD_BITS = 31;

/** The best documents of `query`, best first (higher score, then smaller id). */
export function topDocuments(query: WandQuery): ScoredDoc[] {
  const ranking = new Ranking(query.limit, query.minScore);
  new Wand(query, ranking).run();
  return ranking.sorted();
}

/** The documents kept so far and the threshold a new one must reach. */
class Ranking {
  private readonly heap: BoundedHeap<ScoredDoc> | undefined;
  private readonly all: ScoredDoc[] = [];
  /** The score a document must reach (ties included) to enter: min_score, then the k-th best once k are kept. */
  threshold: number;

  constructor(
    limit: number | undefined,
    private readonly minScore: number | undefined,
  ) {
    if (limit !== undefined) this.heap = new BoundedHeap<ScoredDoc>(limit, compareHits);
    this.threshold = minScore ?? -Infinity;
  }

  /** Whether a document of `score` and `id` would enter. */
  admits(score: number, id: string): boolean {
    if (score < this.threshold) return false;
    if (!this.heap?.full) return true;
    const worst = this.heap.worst();
    return score > worst.score || (score === worst.score && id < worst.id);
  }

  /** Keeps a document. REQUIRES: `admits` said so. */
  add(hit: ScoredDoc): void {
    if (!this.heap) {
      this.all.push(hit);
      return;
    }
    if (this.heap.full) this.heap.replaceWorst(hit);
    else this.heap.push(hit);
    if (this.heap.full) this.threshold = Math.max(this.minScore ?? -Infinity, this.heap.worst().score);
  }

  sorted(): ScoredDoc[] {
    return (this.heap ? [...this.heap.items()] : this.all).sort(compareHits);
  }
}

class Wand {
  /** Scorers ordered by current document. */
  private readonly order: TermScorer[];
  /** Per word, the `sum` that last counted it as found as written (to count each word once a sum). */
  private readonly wordSeen: Int32Array;
  private stamp = 0;
  /** Whether the bounds include the boost: a query of one token (no phrase pass). */
  private readonly boostInBounds: boolean;
  /** Documents scored before the walk that reaches them (marked in query.marks), which skips them. */
  private readonly scored: number[] = [];
  /** What the last `sum` found: the fields the document matched in, the words it holds as written. */
  private fieldBits = 0;
  private exactWords = 0;
  /** The sum of every scorer's bound. */
  private readonly maxScores: number;

  constructor(
    private readonly query: WandQuery,
    private readonly ranking: Ranking,
  ) {
    this.order = query.scorers.slice();
    this.wordSeen = new Int32Array(query.words);
    this.boostInBounds = query.boost && !query.phrase;
    this.maxScores = query.scorers.reduce((sum, s) => sum + s.maxScore, 0);
    const bitsFit = query.words < FIELD_BITS;
    for (const s of query.scorers) s.wordBit = bitsFit && s.mayBeExact ? 1 << s.word : 0;
  }

  run(): void {
    try {
      this.prime();
      if (this.query.boost && this.query.phrase) {
        this.scorePhrases(this.query.phrase);
        for (const s of this.query.scorers) s.reset();
      }
      this.runBlockMax();
    } finally {
      for (const doc of this.scored) this.query.marks[doc] = 0;
    }
  }

  /**
   * Scores first the documents of each scorer's best blocks (as many blocks as the limit, up to PRIMED_BLOCKS:
   * each tends to hold one of the best documents), so the threshold starts near its final value instead of at the first k documents'
   * scores, and the walk after skips more. A posting whose score plus the other scorers' bounds cannot reach the
   * threshold is left for the walk. A query with a phrase starts with the phrase pass instead (the documents that
   * hold it are the best ones, and what the best blocks hold cannot be known without checking the phrase).
   */
  private prime(): void {
    const q = this.query;
    if (q.limit === undefined || q.limit === 0 || q.phrase) return;
    const boost = q.boost ? EXACT_BOOST : 1;
    for (const s of q.scorers) {
      const others = this.maxScores - s.maxScore;
      const blocks: Array<[number, number]> = s.bestBlocks(Math.min(q.limit, PRIMED_BLOCKS));
      for (const [start, end] of blocks) {
        for (let pos: number = start; pos < end; pos++) {
          const doc = s.docs[pos]!;
          if (q.marks[doc] !== 0 || !s.isLive(doc)) continue;
          if ((others + s.scoreAt(pos)) * boost * BOUND_SLACK < this.ranking.threshold) continue;
          this.mark(doc);
          this.evaluate(doc, true, true);
        }
      }
    }
  }

  /** Notes that `doc` is scored: the walks after skip it. */
  private mark(doc: number): void {
    this.query.marks[doc] = 1;
    this.scored.push(doc);
  }

  /**
   * Scores, boosted, every document holding the phrase: walks the postings of the anchor word (one that never ends
   * the phrase, so its signature check applies; as written in the fewest postings), over every searched field.
   */
  private scorePhrases(phrase: PhraseMatcher): void {
    const anchors = this.anchors(phrase);
    const next = phrase.nextBitsOf(anchors[0]?.word ?? 0);
    const scorers = this.query.scorers;
    const scoreFirst = phrase.size <= 2;
    for (const s of anchors) s.seekPhrase(next, this.maxScores - s.maxScore, this.ranking.threshold);
    for (;;) {
      let doc = END;
      for (const s of anchors) if (s.doc < doc) doc = s.doc;
      if (doc === END) return;
      for (const s of anchors) {
        if (s.doc !== doc || this.query.marks[doc] !== 0 || !this.mayEnterBoosted(s)) continue;
        const holds = () => phrase.from(s.field, doc, s.word, s.followsAt(s.pos), s.occurrencesAt(s.pos));
        // Scoring a candidate reads postings in order, checking its phrase reads tokens at random: the cheaper
        // rejection goes first. The signature checked the word after the anchor, so a phrase of two tokens is
        // likely there (score first); a longer one mostly is not (check the phrase first).
        if (!scoreFirst && !holds()) continue;
        for (const t of scorers) t.advance(doc);
        const boosted = this.sum(doc, false) * EXACT_BOOST;
        if (this.exactWords < this.query.words || boosted < this.ranking.threshold) break;
        if (scoreFirst && !holds()) continue;
        this.mark(doc);
        this.admit(doc, boosted);
        break;
      }
      for (const s of anchors) {
        if (s.doc !== doc) continue;
        s.next();
        s.seekPhrase(next, this.maxScores - s.maxScore, this.ranking.threshold);
      }
    }
  }

  /**
   * Whether the document anchor `s` is on could enter, boosted: its score there plus the bounds of the other
   * scorers' blocks there. One that could not is left unmarked: without the boost it scores less still, so it does
   * not enter after.
   */
  private mayEnterBoosted(s: TermScorer): boolean {
    const theta = this.ranking.threshold;
    if (theta === -Infinity) return true;
    let bound = s.scoreAt(s.pos);
    for (const t of this.query.scorers) if (t !== s.original) bound += t.boundFrom(s.doc);
    return bound * EXACT_BOOST * BOUND_SLACK >= theta;
  }

  /**
   * Cursors over the postings of the anchor word (copies: they skip postings the scorers must still score): a field
   * holding the phrase holds every word as written, the anchor too. The anchor is a word the signature check
   * applies to, if any, as written in the fewest postings.
   */
  private anchors(phrase: PhraseMatcher): TermScorer[] {
    const postings = new Array<number>(this.query.words).fill(0);
    for (const s of this.query.scorers) if (s.mayBeExact) postings[s.word]! += s.docs.length;
    const filters = (w: number) => phrase.nextBitsOf(w).bits !== 0;
    let anchor = -1;
    for (let w = 0; w < postings.length; w++) {
      const better =
        anchor < 0 ||
        (filters(w) && !filters(anchor)) ||
        (filters(w) === filters(anchor) && postings[w]! < postings[anchor]!);
      if (better) anchor = w;
    }
    return this.query.scorers.filter((s) => s.word === anchor && s.mayBeExact).map((s) => s.copy());
  }

  private runBlockMax(): void {
    const order = this.order;
    const n = order.length;
    if (n === 1) return this.runSingle(order[0]!);
    sortByDoc(order);
    for (;;) {
      const theta = this.ranking.threshold;
      let sum = 0,
        words = 0,
        pivot = -1;
      for (let i = 0; i < n; i++) {
        const s = order[i]!;
        if (s.doc === END) break;
        sum += s.maxScore;
        words |= s.wordBit;
        if (this.bound(sum, words) >= theta) {
          pivot = i;
          break;
        }
      }
      if (pivot < 0) return;
      const pivotDoc = order[pivot]!.doc;
      while (pivot + 1 < n && order[pivot + 1]!.doc === pivotDoc) pivot++;
      if (theta > -Infinity && !this.blocksReach(pivot, pivotDoc, theta)) {
        this.skipBlocks(pivot, pivotDoc);
      } else if (order[0]!.doc === pivotDoc) {
        if (this.query.marks[pivotDoc] === 0) this.evaluate(pivotDoc, !this.query.phrase, false);
        for (let i = 0; i <= pivot; i++) order[i]!.next();
      } else {
        for (let i = 0; i < pivot && order[i]!.doc < pivotDoc; i++) order[i]!.advance(pivotDoc);
      }
      sortByDoc(order);
    }
  }

  /**
   * Block-max WAND with one scorer (one word in one field, the common search): a block whose bound falls short is
   * skipped whole, and in the others only the postings whose own score (boosted when the bounds are) reaches the
   * threshold are scored as documents.
   */
  private runSingle(s: TermScorer): void {
    const boost = this.bound(1, s.wordBit);
    const marks = this.query.marks;
    while (s.doc !== END) {
      if (s.blockScore(s.doc) * boost < this.ranking.threshold) {
        s.skipBlock();
        continue;
      }
      for (const last = s.lastDoc(); s.doc <= last; s.next()) {
        if (marks[s.doc] === 0 && s.scoreAt(s.pos) * boost * BOUND_SLACK >= this.ranking.threshold)
          this.evaluate(s.doc, !this.query.phrase, false);
      }
    }
  }

  /**
   * A bound of a document's score from its scorers' bounds `sum`; with the boost when the bounds include it and
   * `words` (bits of the words the scorers may find as written) covers every word.
   */
  private bound(sum: number, words: number): number {
    if (!this.boostInBounds) return sum;
    const all = this.query.words < FIELD_BITS ? (1 << this.query.words) - 1 : 0;
    return all === 0 || (words & all) === all ? sum * EXACT_BOOST : sum;
  }

  /** Whether the blocks of scorers 0..pivot around `doc` could reach `theta`. */
  private blocksReach(pivot: number, doc: number, theta: number): boolean {
    let sum = 0,
      words = 0;
    for (let i = 0; i <= pivot; i++) {
      const s = this.order[i]!;
      sum += s.blockScore(doc);
      words |= s.wordBit;
    }
    return this.bound(sum, words) >= theta;
  }

  /**
   * No document from `doc` to the end of the shortest of those blocks (or the next scorer's document) can reach the
   * threshold: moves scorers 0..pivot past it.
   */
  private skipBlocks(pivot: number, doc: number): void {
    const order = this.order;
    let next = pivot + 1 < order.length ? order[pivot + 1]!.doc : END;
    for (let i = 0; i <= pivot; i++) next = Math.min(next, order[i]!.lastDoc() + 1);
    if (next <= doc) next = doc + 1;
    for (let i = 0; i <= pivot; i++) {
      const s = order[i]!;
      if (s.lastDoc() < next) s.skipBlock();
      s.advance(next);
    }
  }

  /**
   * Scores document `doc` and keeps it if it enters; `holdsPhrase`: whether it holds the query's phrase (true for a
   * query of one token). With `seek` the scorers' postings of `doc` are looked up; without, REQUIRES every scorer
   * holding `doc` to be on it.
   */
  private evaluate(doc: number, holdsPhrase: boolean, seek: boolean): void {
    let score = this.sum(doc, seek);
    if (this.query.boost && holdsPhrase && this.exactWords === this.query.words) score *= EXACT_BOOST;
    this.admit(doc, score);
  }

  /**
   * The score of document `doc` without the boost, summed in scorer order; notes the fields it matched in and the
   * words it holds as written (`fieldBits`, `exactWords`). `seek`: as evaluate.
   */
  private sum(doc: number, seek: boolean): number {
    const q = this.query;
    let score = 0;
    this.fieldBits = 0;
    this.exactWords = 0;
    const stamp = ++this.stamp;
    for (const s of q.scorers) {
      const pos = seek ? s.find(doc) : s.doc === doc ? s.pos : -1;
      if (pos < 0) continue;
      score += s.scoreAt(pos);
      if (s.field < FIELD_BITS) this.fieldBits |= 1 << s.field;
      if (q.boost && this.wordSeen[s.word] !== stamp && s.isExactAt(pos)) {
        this.wordSeen[s.word] = stamp;
        this.exactWords++;
      }
    }
    return score;
  }

  /** Keeps document `doc` of `score` (fields: `fieldBits` as the last sum left them) if it enters. */
  private admit(doc: number, score: number): void {
    if (score < this.ranking.threshold) return;
    const q = this.query;
    const id = q.idOf[doc]!;
    if (!this.ranking.admits(score, id)) return;
    if (q.filter && !q.filter(id)) return;
    this.ranking.add({ doc, id, score, fieldBits: this.fieldBits });
  }
}

/** Insertion sort by current document: the order changes by a few places per step. */
function sortByDoc(order: TermScorer[]): void {
  for (let i = 1; i < order.length; i++) {
    const s = order[i]!;
    let j = i - 1;
    while (j >= 0 && order[j]!.doc > s.doc) {
      order[j + 1] = order[j]!;
      j--;
    }
    order[j + 1] = s;
  }
}
