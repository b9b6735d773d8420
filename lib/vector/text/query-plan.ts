/**
 * Turns a text query and its options into the term scorers block-max-wand.ts
 * runs: each distinct query word expands to weighted stored terms
 * (text-vocabulary.ts), and per searched field the word becomes one scorer,
 * over the single term's stored postings, or over postings merged for the
 * query when several terms match (their frequencies summed with their weights
 * in expansion order, as the exhaustive scorer sums them). The idf of a word in
 * a field counts the live documents holding any of its terms; the average
 * length is over the field's live documents. Also builds the exact-phrase
 * check over the documents' stored token numbers.
 */
import { BLOCK } from './posting-list.js';
import type { FieldPostings } from './field-postings.js';
import type { WandQuery } from './block-max-wand.js';
import { mergedFollows, PhraseMatcher } from './phrase-matcher.js';
import { TermScorer, type ScorerSource } from './term-scorer.js';
import type { TextVocabulary } from './text-vocabulary.js';
import { foldCase, tokenize } from './tokenize.js';

/** Options of `TextIndex.search` (protocol.md §2.9 members, camel-cased). */
export interface TextSearchOptions {
  /** Fields to search; default every indexed field. */
  fields?: readonly string[];
  /** Per-field weight (default 1; 0 skips the field). */
  weights?: Readonly<Record<string, number>>;
  /** Match words within an edit distance. Default false. */
  fuzzy?: boolean;
  /** 0-5; default by word length: 0 up to 2 letters, 1 up to 5, else 2. Used only with fuzzy. */
  maxEditDistance?: number;
  /** When true "Apple" does not match "apple". Default false. */
  caseSensitive?: boolean;
  /** Stemming language (name or ISO 639-1 code); default "english". Unknown: no stemming. */
  language?: string;
  /** Match words by stem. Default true. */
  stemming?: boolean;
  /** Drop hits scoring below this. */
  minScore?: number;
  /** Multiply by EXACT_BOOST the score of records holding the query as an exact phrase. */
  boostExact?: boolean;
  /** Maximum number of hits; default all. */
  limit?: number;
  /** Only ids for which this returns true are candidates (applied before ranking). */
  filter?: (id: string) => boolean;
}

/** What a plan reads of the index. */
export interface PlanSource {
  vocabulary: TextVocabulary;
  fields: ReadonlyMap<string, FieldPostings>;
  /** document number -> id (undefined: dead) */
  idOf: ReadonlyArray<string | undefined>;
  /** The token store: each document's field tokens as term numbers (FieldPostings.starts, lengths). */
  tokens: Uint32Array;
  /** Scratch arrays of at least one slot per document number; sums and marks zeroed (merging leaves them so). */
  scratch(): { sums: Float64Array; marks: Uint8Array; follows: Int32Array };
}

export interface QueryPlan {
  wand: WandQuery;
  /** Searched fields, in search order (weight > 0). */
  fieldNames: string[];
}

/** Elasticsearch's AUTO fuzziness: 0 edits up to 2 letters, 1 up to 5, then 2. */
export function autoEditDistance(word: string): number {
  return word.length <= 2 ? 0 : word.length <= 5 ? 1 : 2;
}

export function planQuery(source: PlanSource, query: string, options: TextSearchOptions): QueryPlan {
  const caseSensitive = options.caseSensitive ?? false;
  const words = tokenize(query);
  const keys = [...new Set(caseSensitive ? words : words.map(foldCase))];
  const fields = searchFields(source, options);
  const fieldNames = [...fields.keys()];
  const language = (options.stemming ?? true) ? (options.language ?? 'english') : undefined;
  const scorers: TermScorer[] = [];
  let wordsAsWritten = 0;
  keys.forEach((word, wordIndex) => {
    const maxEditDistance = options.fuzzy ? (options.maxEditDistance ?? autoEditDistance(word)) : 0;
    const variants = source.vocabulary.expand(word, { caseSensitive, language, maxEditDistance });
    if (variants.size === 0) return;
    const terms = [...variants].map(([term, weight]) => [source.vocabulary.idOf(term)!, weight] as const);
    let asWritten = false;
    fieldNames.forEach((name, fieldIndex) => {
      const field = source.fields.get(name);
      const scorerSource = field && scorerSourceOf(source, field, terms, fields.get(name)!);
      if (!scorerSource) return;
      const scorer = new TermScorer(scorerSource, wordIndex, fieldIndex);
      asWritten ||= scorer.mayBeExact;
      scorers.push(scorer);
    });
    if (asWritten) wordsAsWritten++;
  });
  const terms = words.length > 1 ? phraseTerms(source, words, caseSensitive) : undefined;
  const boost =
    (options.boostExact ?? false) && wordsAsWritten === keys.length && (words.length === 1 || terms !== undefined);
  const phrase =
    terms &&
    new PhraseMatcher(
      source.tokens,
      fieldNames.map((name) => source.fields.get(name)),
      terms,
      words.map((word) => keys.indexOf(caseSensitive ? word : foldCase(word))),
    );
  return {
    fieldNames,
    wand: {
      scorers,
      words: keys.length,
      boost,
      phrase,
      limit: options.limit,
      minScore: options.minScore,
      filter: options.filter,
      idOf: source.idOf,
      marks: source.scratch().marks,
    },
  };
}

/** Searched fields with their weights (weight 0 drops a field), in the order asked, else the index's. */
function searchFields(source: PlanSource, options: TextSearchOptions): Map<string, number> {
  const names = options.fields ?? [...source.fields.keys()];
  const fields = new Map<string, number>();
  for (const name of names) {
    const weight = options.weights?.[name] ?? 1;
    if (weight > 0) fields.set(name, weight);
  }
  return fields;
}

/** The postings of a word's `terms` (term number, weight) in `field`, ready to score; undefined when none is there. */
function scorerSourceOf(
  source: PlanSource,
  field: FieldPostings,
  terms: ReadonlyArray<readonly [number, number]>,
  weight: number,
): ScorerSource | undefined {
  const present = terms.filter(([term]) => field.lists.has(term));
  if (present.length === 0) return undefined;
  const common = { lengths: field.lengths, alive: source.idOf, averageLength: field.totalLength / field.count };
  const idf = (df: number) => Math.log(1 + (field.count - df + 0.5) / (df + 0.5));
  if (present.length === 1) {
    const [term, termWeight] = present[0]!;
    const list = field.lists.get(term)!;
    const { docs, freqs, follows } = list.view();
    return {
      ...common,
      docs,
      freqs,
      scale: termWeight,
      maxFreq: list.maxFreq,
      minLength: list.minLength,
      blockMaxFreq: list.blockMaxFreq,
      blockMinLength: list.blockMinLength,
      exactFollows: termWeight === 1 ? follows : undefined,
      countsExact: termWeight === 1,
      weightIdf: weight * idf(list.live),
    };
  }
  const merged = mergePostings(source, field, present);
  return { ...common, ...merged, scale: 1, countsExact: false, weightIdf: weight * idf(merged.docs.length) };
}

/**
 * The live postings of several terms merged by document: frequencies summed with the terms' weights in their order
 * (0 + w1·f1 + w2·f2..., the exhaustive scorer's sum), and where the weight-1 terms (the word as written) occur.
 */
function mergePostings(
  source: PlanSource,
  field: FieldPostings,
  terms: ReadonlyArray<readonly [number, number]>,
): Pick<ScorerSource, 'docs' | 'freqs' | 'exactFollows' | 'maxFreq' | 'minLength' | 'blockMaxFreq' | 'blockMinLength'> {
  const { sums, marks, follows } = source.scratch();
  const alive = source.idOf;
  const touched: number[] = [];
  let anyExact = false;
  for (const [term, weight] of terms) {
    field.lists.get(term)!.forEach((doc, freq, termFollows) => {
      if (alive[doc] === undefined) return;
      if (marks[doc] === 0) touched.push(doc);
      if (weight === 1) {
        follows[doc] = (marks[doc]! & 2) === 0 ? termFollows : mergedFollows(follows[doc]!, termFollows);
        marks[doc] |= 3;
        anyExact = true;
      } else marks[doc] |= 1;
      sums[doc] += weight * freq;
    });
  }
  const docs = Int32Array.from(touched).sort();
  const freqs = new Float64Array(docs.length);
  const exactFollows = new Int32Array(docs.length);
  const blocks = docs.length > BLOCK;
  const out = {
    docs,
    freqs,
    exactFollows: anyExact ? exactFollows : undefined,
    maxFreq: 0,
    minLength: Number.MAX_SAFE_INTEGER,
    blockMaxFreq: blocks ? ([] as number[]) : undefined,
    blockMinLength: blocks ? ([] as number[]) : undefined,
  };
  for (let i = 0; i < docs.length; i++) {
    const doc = docs[i]!,
      freq = sums[doc]!,
      length = field.lengths[doc]!;
    freqs[i] = freq;
    exactFollows[i] = (marks[doc]! & 2) !== 0 ? follows[doc]! : -1;
    sums[doc] = 0;
    marks[doc] = 0;
    out.maxFreq = Math.max(out.maxFreq, freq);
    out.minLength = Math.min(out.minLength, length);
    if (!blocks) continue;
    const b = (i / BLOCK) | 0;
    if (i % BLOCK === 0) {
      out.blockMaxFreq!.push(freq);
      out.blockMinLength!.push(length);
    } else {
      out.blockMaxFreq![b] = Math.max(out.blockMaxFreq![b]!, freq);
      out.blockMinLength![b] = Math.min(out.blockMinLength![b]!, length);
    }
  }
  return out;
}

/**
 * Per query word (every token, in order), the term numbers that match it as written: the stored terms folding to it,
 * or itself when case-sensitive. Undefined when a word matches none: no document holds the phrase.
 */
function phraseTerms(source: PlanSource, words: string[], caseSensitive: boolean): number[][] | undefined {
  const terms: number[][] = [];
  for (const word of words) {
    const asWritten = source.vocabulary.expand(word, { caseSensitive, language: undefined, maxEditDistance: 0 });
    if (asWritten.size === 0) return undefined;
    terms.push([...asWritten.keys()].map((term) => source.vocabulary.idOf(term)!));
  }
  return terms;
}
