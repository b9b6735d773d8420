/**
 * Splits text into word tokens for the text index and the offline embedder.
 *
 * A token is a maximal run of letters, combining marks and digits (Unicode
 * aware, NFC-normalized), so punctuation and whitespace separate words and
 * "don't" gives "don" and "t". Case is kept: callers fold case when they want
 * to. It does not remove stop words, split CJK text into words or
 * transliterate.
 */

const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/** Tokens longer than this are cut: they are ids or base64, not words. */
export const MAX_TOKEN_LENGTH = 64;

/** The word tokens of `text`, in order, case preserved. */
export function tokenize(text: string): string[] {
  const matches = text.normalize('NFC').match(WORD);
  if (!matches) return [];
  return matches.map((token) => (token.length > MAX_TOKEN_LENGTH ? token.slice(0, MAX_TOKEN_LENGTH) : token));
}

/** Case folding used wherever matching is case-insensitive. */
export function foldCase(token: string): string {
  return token.toLowerCase();
}
