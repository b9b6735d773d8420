/**
 * Splits text into word tokens for the text index and the offline embedder.
 *
 * A token is a maximal run of letters, combining marks and digits (Unicode
 * aware, NFC-normalized), so punctuation and whitespace separate words and
 * "don't" gives "don" and "t". Case is kept: callers fold case when they want
 * to. ASCII text, where NFC changes nothing and the letters and digits are
 * A-Z, a-z and 0-9, is split by a loop over its character codes instead of
 * the regular expression: the same tokens, several times faster. It does not
 * remove stop words, split CJK text into words or transliterate.
 */

const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/** Tokens longer than this are cut: they are ids or base64, not words. */
export const MAX_TOKEN_LENGTH = 64;

/** The word tokens of `text`, in order, case preserved. */
export function tokenize(text: string): string[] {
  const ascii = asciiTokens(text);
  if (ascii) return ascii;
  const matches = text.normalize('NFC').match(WORD);
  if (!matches) return [];
  return matches.map((token) => (token.length > MAX_TOKEN_LENGTH ? token.slice(0, MAX_TOKEN_LENGTH) : token));
}

/** The tokens of an ASCII text; undefined as soon as a character is not ASCII. */
function asciiTokens(text: string): string[] | undefined {
  const tokens: string[] = [];
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7f) return undefined;
    const isWord = (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39);
    if (isWord) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      tokens.push(text.slice(start, Math.min(i, start + MAX_TOKEN_LENGTH)));
      start = -1;
    }
  }
  if (start >= 0) tokens.push(text.slice(start, Math.min(text.length, start + MAX_TOKEN_LENGTH)));
  return tokens;
}

/** Case folding used wherever matching is case-insensitive. */
export function foldCase(token: string): string {
  return token.toLowerCase();
}
