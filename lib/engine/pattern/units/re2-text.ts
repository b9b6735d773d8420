/**
 * Spells code units and sets of them in RE2 syntax. Printable characters are
 * written as themselves (escaped where RE2 gives them a meaning), so a
 * translation stays readable; control characters and separators as
 * `\x{..}`, and surrogates as the code points the text spells them with
 * (code-units.ts), a range across them cut in three.
 */
import { isSurrogate, unitRune } from './code-units.js';
import type { Range, UnitSet } from './unit-set.js';

/** JavaScript's `[^]`: any code unit, line terminators included. */
export const ANY_UNIT = '(?s:.)';
/** JavaScript's `[]`: matches nothing. */
const NO_UNIT = '[^\\x00-\\x{10FFFF}]';

const SPECIAL_OUTSIDE = new Set([...'\\.+*?()|[]{}^$']);
const SPECIAL_INSIDE = new Set([...'\\[]^-']);
/**
 * Characters written as themselves: visible ones (letters, marks, digits, punctuation, symbols) and the ASCII space.
 */
const VISIBLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

const CONTROL_NAMES: Readonly<Record<number, string>> = { 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r' };

/** One code unit, as a literal outside a class or an item inside one. */
export function unitText(unit: number, inClass: boolean): string {
  const char = String.fromCharCode(unit);
  if (!VISIBLE.test(char)) return CONTROL_NAMES[unit] ?? `\\x{${unitRune(unit).toString(16)}}`;
  return (inClass ? SPECIAL_INSIDE : SPECIAL_OUTSIDE).has(char) ? `\\${char}` : char;
}

/** A position matching a unit of `set` (of a unit outside it when `negated`). */
export function setText(set: UnitSet, negated: boolean): string {
  const single = set.single;
  if (single !== undefined && !negated) return unitText(single, false);
  if (set.isEmpty) return negated ? ANY_UNIT : NO_UNIT;
  return `[${negated ? '^' : ''}${set.ranges.map(rangeText).join('')}${set.extra}]`;
}

function rangeText([lo, hi]: Range): string {
  if (lo === hi) return unitText(lo, true);
  if (isSurrogate(lo) !== isSurrogate(hi) || (lo < 0xd800 && hi > 0xdfff)) {
    // Surrogates are moved to the end of plane 16, so the range is written as the parts before, among and after them.
    const parts: Range[] = [
      [lo, Math.min(hi, 0xd7ff)],
      [Math.max(lo, 0xd800), Math.min(hi, 0xdfff)],
      [Math.max(lo, 0xe000), hi],
    ];
    return parts
      .filter(([a, b]) => a <= b)
      .map(rangeText)
      .join('');
  }
  return `${unitText(lo, true)}${hi === lo + 1 ? '' : '-'}${unitText(hi, true)}`;
}
