/**
 * JavaScript matches a pattern without the u flag against UTF-16 code units:
 * `.` matches one half of an emoji and `[😀]` is a class of two halves. RE2
 * reads text as code points and joins a surrogate pair into one. So that
 * RE2 sees code units too, the text it is given spells every surrogate code
 * unit as a code point of its own, moved to the last 2,048 code points of
 * plane 16 (U+10F800-U+10FFFF), where two of them can no longer join; the
 * translated pattern spells surrogates the same way (unitRune). A text's own
 * characters in that range arrive as surrogate pairs and are moved half by
 * half like any other, so the mapping is one to one, and texts without
 * surrogates (nearly all) are passed through untouched.
 */

const SURROGATE_SHIFT = 0x10f800 - 0xd800;
const SURROGATES = /[\ud800-\udfff]/g;
/** The same, without the g flag: testing first is several times cheaper than a replace that finds nothing. */
const ANY_SURROGATE = /[\ud800-\udfff]/;

export function isSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdfff;
}

/** The code point RE2 sees for the UTF-16 code unit `unit`. */
export function unitRune(unit: number): number {
  return isSurrogate(unit) ? unit + SURROGATE_SHIFT : unit;
}

/**
 * `text` spelt for RE2 one code point per UTF-16 code unit (a regular expression without the u flag reads units one at
 * a time).
 */
export function asCodeUnits(text: string): string {
  if (!ANY_SURROGATE.test(text)) return text;
  return text.replace(SURROGATES, (half) => String.fromCodePoint(half.charCodeAt(0) + SURROGATE_SHIFT));
}
