/**
 * Per-language stemmers for the text index and the offline embedder.
 *
 * English uses the `stemmer` package (Martin Porter's algorithm, well kept
 * and exact on the classic test vocabulary). The other languages use the
 * Snowball ports of `@orama/stemmers`, loaded synchronously on first use
 * through their CommonJS builds, so unused languages cost nothing. A
 * language without a stemmer (or an unknown name) gets `undefined`, and
 * callers fall back to matching unstemmed words. Input is expected
 * case-folded. It does not detect languages or remove stop words.
 */
import { createRequire } from 'node:module';
import { stemmer as porterStemmer } from 'stemmer';

/** Maps a case-folded word to its stem. */
export type Stemmer = (word: string) => string;

/** Languages with a Snowball stemmer in @orama/stemmers (subpath = name). */
const SNOWBALL_LANGUAGES = [
  'arabic',
  'armenian',
  'bulgarian',
  'danish',
  'dutch',
  'finnish',
  'french',
  'german',
  'greek',
  'hungarian',
  'indonesian',
  'irish',
  'italian',
  'lithuanian',
  'nepali',
  'norwegian',
  'portuguese',
  'romanian',
  'russian',
  'serbian',
  'spanish',
  'swedish',
  'tamil',
  'turkish',
  'ukrainian',
] as const;

/** ISO 639-1 codes accepted as well as the English language names. */
const LANGUAGE_CODES: Readonly<Record<string, string>> = {
  en: 'english',
  ar: 'arabic',
  hy: 'armenian',
  bg: 'bulgarian',
  da: 'danish',
  nl: 'dutch',
  fi: 'finnish',
  fr: 'french',
  de: 'german',
  el: 'greek',
  hu: 'hungarian',
  id: 'indonesian',
  ga: 'irish',
  it: 'italian',
  lt: 'lithuanian',
  ne: 'nepali',
  no: 'norwegian',
  nb: 'norwegian',
  pt: 'portuguese',
  ro: 'romanian',
  ru: 'russian',
  sr: 'serbian',
  es: 'spanish',
  sv: 'swedish',
  ta: 'tamil',
  tr: 'turkish',
  uk: 'ukrainian',
};

/** Every language name that has a stemmer. */
export const STEMMING_LANGUAGES: readonly string[] = ['english', ...SNOWBALL_LANGUAGES];

const requireCjs = createRequire(import.meta.url);

/**
 * The canonical language name for `language` (a name such as "English" or
 * an ISO 639-1 code such as "en"), or undefined when no stemmer exists for it.
 */
export function stemmingLanguage(language: string): string | undefined {
  const key = language.trim().toLowerCase();
  const name = LANGUAGE_CODES[key] ?? key;
  return STEMMING_LANGUAGES.includes(name) ? name : undefined;
}

/**
 * The stemmer for `language`, or undefined when the language has none (the
 * documented fallback: no stemming). The returned function expects a
 * case-folded word and never returns an empty string.
 */
export function stemmerFor(language: string): Stemmer | undefined {
  const name = stemmingLanguage(language);
  if (name === undefined) return undefined;
  const stem: Stemmer =
    name === 'english' ? porterStemmer : (requireCjs(`@orama/stemmers/${name}`) as { stemmer: Stemmer }).stemmer;
  return (word) => stem(word) || word;
}
