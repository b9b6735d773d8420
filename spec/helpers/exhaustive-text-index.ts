/**
 * The exhaustive BM25 scorer, as a reference for the text index's top-k
 * retrieval: it scores every posting of every query word into a map of
 * accumulators and ranks them all, the text index's scoring written the
 * plainest way (term -> record -> frequency maps, the texts kept and
 * re-tokenized for the phrase check). Specs compare the two hit for hit.
 */
import {
  autoEditDistance,
  BM25_B,
  BM25_K1,
  EXACT_BOOST,
  type TextHit,
  type TextSearchOptions,
} from '../../lib/vector/index.js';
import { TextVocabulary } from '../../lib/vector/text/text-vocabulary.js';
import { foldCase, tokenize } from '../../lib/vector/text/tokenize.js';
import { TopK } from '../../lib/vector/top-k.js';
import { compareHits } from '../../lib/vector/vector-index.js';

interface FieldPostings {
  /** term (case kept) -> record number -> term frequency */
  postings: Map<string, Map<number, number>>;
  /** record number -> field length in tokens (only records with tokens) */
  lengths: Map<number, number>;
  totalLength: number;
}

interface StoredRecord {
  num: number;
  texts: Map<string, string>;
}

/**
 * A candidate's running score. The searched fields that matched and the
 * query words found in their exact form (tracked for boostExact only) are
 * sets of small indexes: bits of a number for the first 31, a Set beyond
 * (rare), so scoring a posting allocates nothing but the first time.
 */
interface Accumulator {
  score: number;
  fieldBits: number;
  moreFields?: Set<number>;
  exactBits: number;
  moreExact?: Set<number>;
}

const BITS = 31;

function markField(acc: Accumulator, i: number): void {
  if (i < BITS) acc.fieldBits |= 1 << i;
  else (acc.moreFields ??= new Set()).add(i);
}

function hasField(acc: Accumulator, i: number): boolean {
  return i < BITS ? (acc.fieldBits & (1 << i)) !== 0 : acc.moreFields?.has(i) === true;
}

function markExact(acc: Accumulator, i: number): void {
  if (i < BITS) acc.exactBits |= 1 << i;
  else (acc.moreExact ??= new Set()).add(i);
}

function exactCount(acc: Accumulator): number {
  let bits = acc.exactBits,
    n = 0;
  while (bits !== 0) {
    bits &= bits - 1;
    n++;
  }
  return n + (acc.moreExact?.size ?? 0);
}

export class ExhaustiveTextIndex {
  private readonly fieldPostings = new Map<string, FieldPostings>();
  private readonly records = new Map<string, StoredRecord>();
  private readonly idOfNum = new Map<number, string>();
  private readonly vocabulary = new TextVocabulary();
  private nextNum = 0;

  /** Indexes `fields` under `id`, replacing what was indexed under it. */
  add(id: string, fields: Readonly<Record<string, string>>): void {
    this.remove(id);
    const num = this.nextNum++;
    const record: StoredRecord = { num, texts: new Map() };
    for (const [name, text] of Object.entries(fields)) {
      const tokens = tokenize(text);
      if (tokens.length === 0) continue;
      record.texts.set(name, text);
      const field = this.field(name);
      for (const [term, tf] of countTerms(tokens)) {
        let postings = field.postings.get(term);
        if (!postings) field.postings.set(term, (postings = new Map()));
        postings.set(num, tf);
        this.vocabulary.retain(this.vocabulary.intern(term));
      }
      field.lengths.set(num, tokens.length);
      field.totalLength += tokens.length;
    }
    this.records.set(id, record);
    this.idOfNum.set(num, id);
  }

  /** Removes `id` from the index; removing an absent id is a no-op. */
  remove(id: string): void {
    const record = this.records.get(id);
    if (!record) return;
    for (const [name, text] of record.texts) {
      const field = this.fieldPostings.get(name)!;
      for (const term of new Set(tokenize(text))) {
        const postings = field.postings.get(term)!;
        postings.delete(record.num);
        if (postings.size === 0) field.postings.delete(term);
        this.vocabulary.release(this.vocabulary.idOf(term)!);
      }
      field.totalLength -= field.lengths.get(record.num)!;
      field.lengths.delete(record.num);
      if (field.lengths.size === 0) this.fieldPostings.delete(name);
    }
    this.records.delete(id);
    this.idOfNum.delete(record.num);
  }

  has(id: string): boolean {
    return this.records.has(id);
  }

  /** Number of indexed records. */
  size(): number {
    return this.records.size;
  }

  /** Distinct stored terms, for diagnostics and tests. */
  vocabularySize(): number {
    return this.vocabulary.size();
  }

  /**
   * Records matching any query word, best first (ties by id). An empty query
   * matches nothing. REQUIRES: options in range.
   * Cost: the postings of the expanded query words in the searched fields.
   */
  search(query: string, options: TextSearchOptions = {}): TextHit[] {
    const caseSensitive = options.caseSensitive ?? false;
    const words = tokenize(query);
    const keys = [...new Set(caseSensitive ? words : words.map(foldCase))];
    const fields = this.searchFields(options);
    const fieldNames = [...fields.keys()];
    const filter = this.numFilter(options.filter);
    const scores = new Map<number, Accumulator>();
    const language = (options.stemming ?? true) ? (options.language ?? 'english') : undefined;
    const trackExact = options.boostExact ?? false;
    keys.forEach((word, wordIndex) => {
      const maxEditDistance = options.fuzzy ? (options.maxEditDistance ?? autoEditDistance(word)) : 0;
      const variants = this.vocabulary.expand(word, { caseSensitive, language, maxEditDistance });
      if (variants.size === 0) return;
      const exactIndex = trackExact ? wordIndex : undefined;
      fieldNames.forEach((name, fieldIndex) =>
        this.scoreField(name, fields.get(name)!, fieldIndex, variants, exactIndex, filter, scores),
      );
    });
    // Ranked on scores alone; matched fields are listed only for the hits returned.
    const ranked: Array<{ id: string; score: number; acc: Accumulator }> = [];
    const top =
      options.limit === undefined
        ? undefined
        : new TopK<{ id: string; score: number; acc: Accumulator }>(options.limit);
    for (const [num, acc] of scores) {
      const id = this.idOfNum.get(num)!;
      let score = acc.score;
      if (
        trackExact &&
        exactCount(acc) === keys.length &&
        (words.length === 1 || this.hasPhrase(id, words, fields, caseSensitive))
      ) {
        score *= EXACT_BOOST;
      }
      if (options.minScore !== undefined && score < options.minScore) continue;
      if (top) top.push({ id, score, acc });
      else ranked.push({ id, score, acc });
    }
    const kept = top ? top.sorted() : ranked.sort(compareHits);
    return kept.map(({ id, score, acc }) => ({
      id,
      score,
      matchedFields: fieldNames.filter((_, i) => hasField(acc, i)),
    }));
  }

  /** Adds field `name`'s BM25 contribution for one expanded query word. */
  private scoreField(
    name: string,
    weight: number,
    fieldIndex: number,
    variants: Map<string, number>,
    exactIndex: number | undefined,
    filter: (num: number) => boolean,
    scores: Map<number, Accumulator>,
  ): void {
    const field = this.fieldPostings.get(name);
    if (!field) return;
    const { frequencies, exact } = weightedFrequencies(field, variants, exactIndex !== undefined);
    if (frequencies.size === 0) return;
    const count = field.lengths.size;
    const idf = Math.log(1 + (count - frequencies.size + 0.5) / (frequencies.size + 0.5));
    const averageLength = field.totalLength / count;
    for (const [num, tf] of frequencies) {
      if (!filter(num)) continue;
      const norm = BM25_K1 * (1 - BM25_B + (BM25_B * field.lengths.get(num)!) / averageLength);
      let acc = scores.get(num);
      if (!acc) scores.set(num, (acc = { score: 0, fieldBits: 0, exactBits: 0 }));
      acc.score += weight * idf * ((tf * (BM25_K1 + 1)) / (tf + norm));
      markField(acc, fieldIndex);
      if (exactIndex !== undefined && exact(num)) markExact(acc, exactIndex);
    }
  }

  /** Searched fields with their weights (weight 0 drops a field). */
  private searchFields(options: TextSearchOptions): Map<string, number> {
    const names = options.fields ?? [...this.fieldPostings.keys()];
    const fields = new Map<string, number>();
    for (const name of names) {
      const weight = options.weights?.[name] ?? 1;
      if (weight > 0) fields.set(name, weight);
    }
    return fields;
  }

  /** Memoizes the caller's filter per record number, so it runs at most once per record. */
  private numFilter(filter: ((id: string) => boolean) | undefined): (num: number) => boolean {
    if (!filter) return () => true;
    const seen = new Map<number, boolean>();
    return (num) => {
      let allowed = seen.get(num);
      if (allowed === undefined) seen.set(num, (allowed = filter(this.idOfNum.get(num)!)));
      return allowed;
    };
  }

  /** True when a searched field of `id` contains `words` consecutively. */
  private hasPhrase(id: string, words: string[], fields: Map<string, number>, caseSensitive: boolean): boolean {
    if (words.length === 0) return false;
    const phrase = caseSensitive ? words : words.map(foldCase);
    const texts = this.records.get(id)!.texts;
    for (const name of fields.keys()) {
      const text = texts.get(name);
      if (text === undefined) continue;
      const tokens = caseSensitive ? tokenize(text) : tokenize(text).map(foldCase);
      if (containsSequence(tokens, phrase)) return true;
    }
    return false;
  }

  private field(name: string): FieldPostings {
    let field = this.fieldPostings.get(name);
    if (!field) this.fieldPostings.set(name, (field = { postings: new Map(), lengths: new Map(), totalLength: 0 }));
    return field;
  }
}

/**
 * Per record, the summed frequency of a word's expanded terms, each times
 * its weight, and whether the word occurs as written (weight 1). A word with
 * one term as written (the common case) reads its postings as they are.
 */
function weightedFrequencies(
  field: FieldPostings,
  variants: Map<string, number>,
  trackExact: boolean,
): { frequencies: ReadonlyMap<number, number>; exact: (num: number) => boolean } {
  if (variants.size === 1) {
    const [term, termWeight] = variants.entries().next().value as [string, number];
    const postings = field.postings.get(term);
    if (!postings) return { frequencies: new Map(), exact: () => false };
    if (termWeight === 1) return { frequencies: postings, exact: () => true };
  }
  const frequencies = new Map<number, number>();
  const exact = new Set<number>();
  for (const [term, termWeight] of variants) {
    for (const [num, tf] of field.postings.get(term) ?? []) {
      frequencies.set(num, (frequencies.get(num) ?? 0) + termWeight * tf);
      if (trackExact && termWeight === 1) exact.add(num); // weight 1 = the word as written
    }
  }
  return { frequencies, exact: (num) => exact.has(num) };
}

function countTerms(tokens: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
  return counts;
}

function containsSequence(tokens: readonly string[], phrase: readonly string[]): boolean {
  outer: for (let i = 0; i + phrase.length <= tokens.length; i++) {
    for (let j = 0; j < phrase.length; j++) if (tokens[i + j] !== phrase[j]) continue outer;
    return true;
  }
  return false;
}
