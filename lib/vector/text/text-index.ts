/**
 * Full-text index over records' named string fields, with BM25 scoring and
 * top-k retrieval by block-max WAND.
 *
 * Each indexed record gets a document number; a changed record gets a new
 * one, so postings (posting-list.ts: ascending document numbers, frequencies,
 * per-block score bounds) only grow at their end. A removed record's number
 * is marked dead at once; its postings leave when their list compacts, and
 * the numbers are made dense again when the dead ones fill half the range.
 * Each field's tokens are kept as term numbers in one token store, for
 * removal and the exact-phrase check.
 *
 * Scoring: a query word expands to weighted stored terms (text-vocabulary.ts);
 * per field their weighted frequencies are scored with Okapi BM25 (k1 1.2,
 * b 0.75, Lucene's idf). A record scores the sum over words and fields of
 * weight × BM25, unnormalized, × EXACT_BOOST with boostExact when a field
 * holds the exact query phrase. With a limit only the records that could
 * enter the top k are scored (block-max-wand.ts), with exactly the scores and
 * order of scoring them all. Not MiniSearch itself: it fixes case and
 * stemming at index time, the protocol chooses them per query.
 */
import { InvalidInput } from '../../errors.js';
import { FIELD_BITS, topDocuments, type ScoredDoc } from './block-max-wand.js';
import { FieldPostings } from './field-postings.js';
import { followsOf, signatureBits } from './phrase-matcher.js';
import { planQuery, type QueryPlan, type TextSearchOptions } from './query-plan.js';
import { TextVocabulary } from './text-vocabulary.js';
import { tokenize } from './tokenize.js';

export { EXACT_BOOST } from './block-max-wand.js';
export { autoEditDistance } from './query-plan.js';
export type { TextSearchOptions } from './query-plan.js';
export { BM25_B, BM25_K1 } from './term-scorer.js';

/** One text search result. */
export interface TextHit {
  id: string;
  score: number;
  /** Searched fields in which a query word matched, in search-field order. */
  matchedFields: string[];
}

/** Document numbers (and token store slots) allocated at first. */
const INITIAL_CAPACITY = 1024;

export class TextIndex {
  private readonly fields = new Map<string, FieldPostings>();
  private readonly vocabulary = new TextVocabulary();
  private readonly numOf = new Map<string, number>();
  /** document number -> id; undefined once dead */
  private idOf: Array<string | undefined> = [];
  private nextNum = 0;
  private capacity = INITIAL_CAPACITY;
  /** Every field's tokens as term numbers (FieldPostings.starts and lengths say where). */
  private tokens = new Uint32Array(INITIAL_CAPACITY * 8);
  private tokensUsed = 0;
  /** Slots of the token store held by removed documents. */
  private tokensDead = 0;
  /**
   * Per term number, for the field being added: occurrences (zero between uses), the first one's position and the
   * signature of the terms after them (phrase-matcher.ts).
   */
  private counts = new Int32Array(0);
  private firsts = new Int32Array(0);
  private signatures = new Int32Array(0);
  private sums = new Float64Array(0);
  private marks = new Uint8Array(0);
  private mergeFollows = new Int32Array(0);

  /**
   * Indexes `fields` under `id`, replacing what was indexed under it.
   * Throws InvalidInput when a field value is not a string.
   */
  add(id: string, fields: Readonly<Record<string, string>>): void {
    for (const [name, text] of Object.entries(fields)) {
      if (typeof text !== 'string') throw new InvalidInput(`text field '${name}' must be a string`);
    }
    this.remove(id);
    const num = this.newNumber();
    const unique: number[] = [];
    for (const [name, text] of Object.entries(fields)) {
      const words = tokenize(text);
      if (words.length === 0) continue;
      const field = this.field(name);
      const start = this.reserveTokens(words.length);
      const end = start + words.length;
      for (let i = start; i < end; i++) this.tokens[i] = this.vocabulary.intern(words[i - start]!);
      if (this.vocabulary.idLimit() > this.counts.length) this.growScratch(this.vocabulary.idLimit());
      for (let i = start; i < end; i++) {
        const term = this.tokens[i]!;
        const next = i + 1 < end ? signatureBits(this.tokens[i + 1]!) : 0;
        if (this.counts[term]++ > 0) {
          this.signatures[term] |= next;
          continue;
        }
        unique.push(term);
        this.firsts[term] = i - start;
        this.signatures[term] = next;
      }
      for (const term of unique) {
        field.post(term, num, this.counts[term]!, followsOf(this.firsts[term]!, this.signatures[term]!), words.length);
        this.counts[term] = 0;
        this.vocabulary.retain(term);
      }
      unique.length = 0;
      field.addDocument(num, start, words.length);
    }
    this.idOf[num] = id;
    this.numOf.set(id, num);
  }

  /** Removes `id` from the index; removing an absent id is a no-op. */
  remove(id: string): void {
    const num = this.numOf.get(id);
    if (num === undefined) return;
    this.numOf.delete(id);
    this.idOf[num] = undefined;
    const isLive = (doc: number) => this.idOf[doc] !== undefined;
    for (const [name, field] of this.fields) {
      const length = field.lengths[num]!;
      if (length === 0) continue;
      const start = field.starts[num]!;
      for (let i = start; i < start + length; i++) {
        const term = this.tokens[i]!;
        if (this.counts[term] !== 0) continue;
        this.counts[term] = 1;
        field.unpost(term, isLive);
      }
      for (let i = start; i < start + length; i++) {
        const term = this.tokens[i]!;
        if (this.counts[term] === 0) continue;
        this.counts[term] = 0;
        this.vocabulary.release(term);
      }
      field.removeDocument(num);
      this.tokensDead += length;
      if (field.count === 0) this.fields.delete(name);
    }
  }

  has(id: string): boolean {
    return this.numOf.has(id);
  }

  /** Number of indexed records. */
  size(): number {
    return this.numOf.size;
  }

  /** Distinct stored terms, for diagnostics and tests. */
  vocabularySize(): number {
    return this.vocabulary.size();
  }

  /**
   * Records matching any query word, best first (ties by id). An empty query
   * matches nothing. Throws InvalidInput on out-of-range options.
   * Cost: with a limit, the postings of the expanded query words that could
   * reach the top k (block-max WAND); without one, all of them.
   */
  search(query: string, options: TextSearchOptions = {}): TextHit[] {
    checkOptions(options);
    if (options.limit === 0) return [];
    const plan = planQuery(
      {
        vocabulary: this.vocabulary,
        fields: this.fields,
        idOf: this.idOf,
        tokens: this.tokens,
        scratch: () => this.scratch(),
      },
      query,
      options,
    );
    return topDocuments(plan.wand).map((hit) => ({
      id: hit.id,
      score: hit.score,
      matchedFields: matchedFields(plan, hit),
    }));
  }

  /** A number for a new document: the next one, after making the numbers dense or growing the arrays if needed. */
  private newNumber(): number {
    if (this.nextNum === this.capacity) {
      if (this.nextNum - this.numOf.size > this.capacity / 2) this.renumber();
      else {
        this.capacity *= 2;
        for (const field of this.fields.values()) field.grow(this.capacity);
      }
    }
    return this.nextNum++;
  }

  /** Gives the live documents the numbers 0..n-1 in their order, and packs the token store. */
  private renumber(): void {
    const renumber = new Int32Array(this.nextNum);
    const idOf: Array<string | undefined> = [];
    let next = 0;
    for (let doc = 0; doc < this.nextNum; doc++) {
      const id = this.idOf[doc];
      renumber[doc] = id === undefined ? -1 : next;
      if (id === undefined) continue;
      idOf[next] = id;
      this.numOf.set(id, next++);
    }
    this.repack((move) => {
      for (const field of this.fields.values()) field.renumber(renumber, this.capacity, move);
    });
    this.idOf = idOf;
    this.nextNum = next;
  }

  /** Room for `n` tokens in the store: packed when dead slots are half of it, else grown. */
  private reserveTokens(n: number): number {
    if (this.tokensUsed + n > this.tokens.length) {
      if (this.tokensDead > this.tokensUsed / 2) {
        this.repack((move) => {
          for (const field of this.fields.values()) {
            for (let doc = 0; doc < this.nextNum; doc++) {
              const length = field.lengths[doc]!;
              if (length > 0) field.starts[doc] = move(field.starts[doc]!, length);
            }
          }
        });
      }
      if (this.tokensUsed + n > this.tokens.length) {
        const tokens = new Uint32Array(Math.max(this.tokens.length * 2, this.tokensUsed + n));
        tokens.set(this.tokens.subarray(0, this.tokensUsed));
        this.tokens = tokens;
      }
    }
    const start = this.tokensUsed;
    this.tokensUsed += n;
    return start;
  }

  /** Copies the live tokens into a new store, `relocate` calling `move` for each run of them. */
  private repack(relocate: (move: (start: number, length: number) => number) => void): void {
    const old = this.tokens;
    const tokens = new Uint32Array(Math.max(INITIAL_CAPACITY, (this.tokensUsed - this.tokensDead) * 2));
    let used = 0;
    relocate((start, length) => {
      tokens.set(old.subarray(start, start + length), used);
      used += length;
      return used - length;
    });
    this.tokens = tokens;
    this.tokensUsed = used;
    this.tokensDead = 0;
  }

  private growScratch(terms: number): void {
    const size = Math.max(terms, this.counts.length * 2, 64);
    const counts = new Int32Array(size);
    counts.set(this.counts);
    this.counts = counts;
    this.firsts = new Int32Array(size);
    this.signatures = new Int32Array(size);
  }

  /** Zeroed per-document scratch for merging postings (query-plan.ts leaves it zeroed). */
  private scratch(): { sums: Float64Array; marks: Uint8Array; follows: Int32Array } {
    if (this.sums.length < this.nextNum) {
      this.sums = new Float64Array(this.capacity);
      this.marks = new Uint8Array(this.capacity);
      this.mergeFollows = new Int32Array(this.capacity);
    }
    return { sums: this.sums, marks: this.marks, follows: this.mergeFollows };
  }

  private field(name: string): FieldPostings {
    let field = this.fields.get(name);
    if (!field) this.fields.set(name, (field = new FieldPostings(this.capacity)));
    return field;
  }
}

/** The searched fields `hit` matched in, in search order. */
function matchedFields(plan: QueryPlan, hit: ScoredDoc): string[] {
  return plan.fieldNames.filter((_, i) =>
    i < FIELD_BITS
      ? (hit.fieldBits & (1 << i)) !== 0
      : plan.wand.scorers.some((s) => s.field === i && s.find(hit.doc) >= 0),
  );
}

function checkOptions(options: TextSearchOptions): void {
  const { maxEditDistance, minScore, limit, weights } = options;
  if (
    maxEditDistance !== undefined &&
    (!Number.isInteger(maxEditDistance) || maxEditDistance < 0 || maxEditDistance > 5)
  ) {
    throw new InvalidInput(`max_edit_distance must be an integer from 0 to 5; got ${String(maxEditDistance)}`);
  }
  if (minScore !== undefined && !Number.isFinite(minScore)) throw new InvalidInput('min_score must be a finite number');
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 0)) {
    throw new InvalidInput(`limit must be a non-negative integer; got ${String(limit)}`);
  }
  for (const [name, weight] of Object.entries(weights ?? {})) {
    if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0) {
      throw new InvalidInput(`weight of field '${name}' must be a non-negative number`);
    }
  }
}
