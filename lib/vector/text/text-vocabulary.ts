/**
 * The term dictionary of a text index, and query-term expansion over it.
 *
 * Terms are stored exactly as written (case kept), so case sensitivity,
 * stemming, language and fuzziness are all chosen per query, as protocol.md
 * §2.9 asks, instead of being baked in at index time. A query word expands to
 * the set of stored terms it matches, each with a weight in (0, 1]:
 * - the same word (case-folded unless case-sensitive): 1;
 * - the same stem in the query's language: STEM_WEIGHT;
 * - within the edit distance (fuzzy): length / (length + 2 * distance), for
 *   the MAX_FUZZY_EXPANSIONS closest terms.
 * Fuzzy lookup walks a radix tree of case-folded terms (minisearch's
 * SearchableMap). Stem tables are built per language on first use and kept
 * up to date afterwards. It does not score: text-index.ts does.
 */
import SearchableMap from 'minisearch/SearchableMap';
import { editDistance } from './edit-distance.js';
import { stemmerFor, stemmingLanguage, type Stemmer } from './stemmers.js';
import { foldCase } from './tokenize.js';

/** Weight of a term that matches the query word only through its stem. */
export const STEM_WEIGHT = 0.8;

/**
 * At most this many fuzzy variants per query word, closest first (as
 * Elasticsearch's max_expansions): a short word in a large vocabulary can be
 * within two edits of thousands of terms, each with its own postings.
 */
export const MAX_FUZZY_EXPANSIONS = 50;

/** How one query word is matched against the vocabulary. */
export interface ExpandOptions {
  caseSensitive: boolean;
  /** Stemming language; undefined, or a language without a stemmer, means no stemming. */
  language: string | undefined;
  /** Maximum edit distance for fuzzy matching; 0 disables it. */
  maxEditDistance: number;
}

interface StemTable {
  stem: Stemmer;
  /** stem -> case-folded terms with that stem */
  terms: Map<string, Set<string>>;
}

export class TextVocabulary {
  /** stored term (case kept) -> its number */
  private readonly ids = new Map<string, number>();
  /** term number -> stored term (undefined: free) */
  private readonly terms: Array<string | undefined> = [];
  /** term number -> number of (record, field) pairs containing it */
  private readonly refs: number[] = [];
  private readonly freeIds: number[] = [];
  /** case-folded term -> stored terms that fold to it */
  private readonly folded = new SearchableMap<Set<string>>();
  private readonly stemTables = new Map<string, StemTable>();

  /** The number of `term`, given one on first sight; it joins the vocabulary once retained. */
  intern(term: string): number {
    let id = this.ids.get(term);
    if (id !== undefined) return id;
    id = this.freeIds.pop() ?? this.terms.length;
    this.ids.set(term, id);
    this.terms[id] = term;
    this.refs[id] = 0;
    return id;
  }

  /** The number of a stored term, if it has one. */
  idOf(term: string): number | undefined {
    return this.ids.get(term);
  }

  /** The term numbered `id`. REQUIRES: `id` is in use. */
  termOf(id: number): string {
    return this.terms[id]!;
  }

  /** One past the largest term number in use (term numbers index arrays). */
  idLimit(): number {
    return this.terms.length;
  }

  /** Counts one more (record, field) containing term `id`. */
  retain(id: number): void {
    const count = this.refs[id]!;
    this.refs[id] = count + 1;
    if (count > 0) return;
    const term = this.terms[id]!;
    const key = foldCase(term);
    const variants = this.folded.get(key);
    if (variants) {
      variants.add(term);
      return;
    }
    this.folded.set(key, new Set([term]));
    for (const table of this.stemTables.values()) addStem(table, key);
  }

  /** Counts one (record, field) fewer; the term leaves, and its number is free, once none contains it. */
  release(id: number): void {
    const count = this.refs[id]!;
    if (count > 1) {
      this.refs[id] = count - 1;
      return;
    }
    const term = this.terms[id]!;
    this.refs[id] = 0;
    this.terms[id] = undefined;
    this.ids.delete(term);
    this.freeIds.push(id);
    const key = foldCase(term);
    const variants = this.folded.get(key);
    variants?.delete(term);
    if (variants && variants.size > 0) return;
    this.folded.delete(key);
    for (const table of this.stemTables.values()) {
      const stem = table.stem(key);
      const terms = table.terms.get(stem);
      terms?.delete(key);
      if (terms?.size === 0) table.terms.delete(stem);
    }
  }

  /** Number of distinct stored terms. */
  size(): number {
    return this.ids.size;
  }

  /**
   * The stored terms matching query word `word`, with their weights (the best
   * weight when a term matches several ways). Empty when nothing matches.
   */
  expand(word: string, options: ExpandOptions): Map<string, number> {
    const matches = new Map<string, number>();
    const put = (term: string, weight: number): void => {
      if ((matches.get(term) ?? 0) < weight) matches.set(term, weight);
    };
    const key = foldCase(word);
    if (options.caseSensitive) {
      if (this.ids.has(word)) put(word, 1);
    } else {
      for (const term of this.folded.get(key) ?? []) put(term, 1);
    }
    const table = options.language === undefined ? undefined : this.stemTable(options.language);
    if (table) {
      const stem = table.stem(key);
      // Case-sensitive stemming: the stored term must be written like the query word up to the stem.
      const prefix = Math.max(1, stem.length - 1);
      for (const foldedTerm of table.terms.get(stem) ?? []) {
        for (const term of this.folded.get(foldedTerm) ?? []) {
          if (!options.caseSensitive || term.slice(0, prefix) === word.slice(0, prefix)) put(term, STEM_WEIGHT);
        }
      }
    }
    const maxDistance = Math.min(options.maxEditDistance, Math.max(0, word.length - 1));
    if (maxDistance > 0) this.expandFuzzy(word, key, maxDistance, options.caseSensitive, put);
    return matches;
  }

  /** Adds the MAX_FUZZY_EXPANSIONS closest terms within `maxDistance` (ties by term). */
  private expandFuzzy(
    word: string,
    key: string,
    maxDistance: number,
    caseSensitive: boolean,
    put: (term: string, weight: number) => void,
  ): void {
    const candidates: Array<[term: string, distance: number]> = [];
    for (const [, [terms, foldedDistance]] of this.folded.fuzzyGet(key, maxDistance)) {
      for (const term of terms) {
        const distance = caseSensitive ? editDistance(word, term, maxDistance) : foldedDistance;
        if (distance <= maxDistance) candidates.push([term, distance]);
      }
    }
    candidates.sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    for (const [term, distance] of candidates.slice(0, MAX_FUZZY_EXPANSIONS))
      put(term, fuzzyWeight(word.length, distance));
  }

  /** The stem table of `language`, built from the whole vocabulary on first use. */
  private stemTable(language: string): StemTable | undefined {
    const name = stemmingLanguage(language);
    if (name === undefined) return undefined;
    let table = this.stemTables.get(name);
    if (!table) {
      table = { stem: stemmerFor(name)!, terms: new Map() };
      for (const key of this.folded.keys()) addStem(table, key);
      this.stemTables.set(name, table);
    }
    return table;
  }
}

/** Weight of a fuzzy match: 1 at distance 0, falling with distance relative to length. */
export function fuzzyWeight(length: number, distance: number): number {
  return length / (length + 2 * distance);
}

function addStem(table: StemTable, key: string): void {
  const stem = table.stem(key);
  const terms = table.terms.get(stem);
  if (terms) terms.add(key);
  else table.terms.set(stem, new Set([key]));
}
