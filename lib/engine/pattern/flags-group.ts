/**
 * Flags inside a pattern, since a pattern takes no flags of its own: RE2's
 * `(?i)` (to the end of the enclosing group) and the scoped form `(?i:...)`,
 * `(?-i:...)`, which JavaScript also spells this way (ES2025 modifiers).
 * They mean what JavaScript's flags mean: `i` matches case variants by
 * JavaScript's rules (case-fold.ts), `s` lets `.` match line terminators.
 * `m` is refused: RE2 ends a line only at \n, JavaScript also at \r, U+2028
 * and U+2029, and RE2 has no way to look back at which one came before.
 */
import { FLAGS_GROUP } from './outline.js';

export interface Flags {
  /** Case-insensitive, as JavaScript's i flag. */
  readonly i: boolean;
  /** `.` matches any code unit, as JavaScript's s flag. */
  readonly s: boolean;
}

export const NO_FLAGS: Flags = { i: false, s: false };

export type FlagsGroup =
  /** `scoped`: `(?i:` opens a group the flags last for; `(?i)` sets them to the end of the enclosing one. */
  { readonly flags: Flags; readonly scoped: boolean; readonly next: number } | { readonly problem: string };

/** The flags group opening at `index` and the flags it sets, or undefined when the `(` opens another kind of group. */
export function readFlagsGroup(pattern: string, index: number, current: Flags): FlagsGroup | undefined {
  FLAGS_GROUP.lastIndex = index;
  const match = FLAGS_GROUP.exec(pattern);
  if (match === null || match[0] === '(?:') return undefined;
  const [text, on = '', off, end] = match;
  if (on === '' && !off) return { problem: `${text} names no flag` };
  let flags = current;
  for (const [letters, value] of [
    [on, true],
    [off ?? '', false],
  ] as const) {
    for (const letter of letters) {
      if (letter === 'm') {
        return {
          problem: 'the m flag is not supported: RE2 ends lines only at \\n, JavaScript also at \\r, U+2028 and U+2029',
        };
      }
      if (letter !== 'i' && letter !== 's')
        return { problem: `unknown flag ${letter} in ${text}: i and s are supported` };
      flags = { ...flags, [letter]: value };
    }
  }
  return { flags, scoped: end === ':', next: index + text.length };
}
