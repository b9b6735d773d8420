/**
 * Reads one escape of a JavaScript pattern without the u flag, with the
 * rules of ECMA-262 Annex B that browsers and Node follow: `\1` is a
 * backreference only when the pattern has that many capturing groups and an
 * octal escape otherwise, `\8` is the digit, `\c` without a control letter
 * is a backslash, a class reads `\b` as backspace and `\c0` as a control
 * character, and any other escaped character stands for itself. The
 * pattern has passed V8's syntax check, so what is left to refuse is what a
 * linear-time engine cannot run.
 */
import { setText } from './units/re2-text.js';
import { DIGITS, SPACE, UnitSet, WORD } from './units/unit-set.js';

export type Escape =
  | { readonly kind: 'unit'; readonly unit: number; readonly next: number }
  /** A class escape; `re2` spells it outside a class. */
  | { readonly kind: 'set'; readonly set: UnitSet; readonly re2: string; readonly next: number }
  | { readonly kind: 'assertion'; readonly re2: string; readonly next: number }
  | { readonly kind: 'problem'; readonly problem: string };

/** What an escape's meaning depends on besides its own text. */
export interface EscapeContext {
  readonly inClass: boolean;
  /** Capturing groups in the whole pattern: `\2` is a backreference when there are at least two. */
  readonly groups: number;
  /** Whether the pattern names a group, which makes `\k` a backreference. */
  readonly named: boolean;
}

const CONTROL_ESCAPES: Readonly<Record<string, number>> = { t: 9, n: 10, v: 11, f: 12, r: 13 };
const SET_ESCAPES: Readonly<Record<string, { set: UnitSet; re2: string }>> = {
  d: { set: DIGITS, re2: '\\d' },
  D: { set: DIGITS.complement(), re2: '\\D' },
  w: { set: WORD, re2: '\\w' },
  W: { set: WORD.complement(), re2: '\\W' },
  s: { set: SPACE, re2: setText(SPACE, false) },
  S: { set: SPACE.complement(), re2: setText(SPACE, true) },
};
const HEX2 = /[0-9a-fA-F]{2}/y;
const HEX4 = /[0-9a-fA-F]{4}/y;
const BRACED_HEX = /\{[0-9a-fA-F]+\}/y;
const DECIMAL = /[0-9]+/y;
/** RE2's Unicode classes, `\p{L}` and `\P{Greek}`: an RE2 extra (JavaScript without the u flag reads `p{L}`). */
const UNICODE_CLASS = /\{[A-Za-z_]+\}/y;

function sticky(re: RegExp, pattern: string, from: number): string | undefined {
  re.lastIndex = from;
  return re.exec(pattern)?.[0];
}

/** The escape whose backslash is at `at`. */
export function readEscape(pattern: string, at: number, ctx: EscapeContext): Escape {
  const char = pattern[at + 1];
  const next = at + 2;
  if (char === undefined) return { kind: 'problem', problem: '\\ at end of pattern' };
  const set = SET_ESCAPES[char];
  if (set !== undefined) return { kind: 'set', ...set, next };
  const control = CONTROL_ESCAPES[char];
  if (control !== undefined) return unit(control, next);
  if (char === 'b' || char === 'B')
    return ctx.inClass ? unit(char === 'b' ? 8 : 0x42, next) : { kind: 'assertion', re2: `\\${char}`, next };
  if (char >= '0' && char <= '9') return digitEscape(pattern, at, ctx);
  if (char === 'c') return controlLetter(pattern, at, ctx.inClass);
  if (char === 'x') {
    const hex = sticky(HEX2, pattern, next);
    return hex === undefined ? unit(0x78, next) : unit(Number.parseInt(hex, 16), next + 2);
  }
  if (char === 'u') return unicodeEscape(pattern, next);
  if (char === 'k' && ctx.named && !ctx.inClass)
    return { kind: 'problem', problem: 'backreferences such as \\k<name> are not supported' };
  if (char === 'p' || char === 'P') {
    const name = sticky(UNICODE_CLASS, pattern, next);
    if (name !== undefined) {
      const re2 = `\\${char}${name}`;
      return { kind: 'set', set: UnitSet.of([], re2), re2, next: next + name.length };
    }
  }
  return unit(pattern.charCodeAt(at + 1), next);
}

function unit(codeUnit: number, next: number): Escape {
  return { kind: 'unit', unit: codeUnit, next };
}

/**
 * `\1`..`\9` and `\0`: a backreference when the number read in decimal is at
 * most the count of capturing groups (outside a class), else a legacy octal
 * escape (`\0`..`\377`, as many digits as keep it below 256), and `\8`, `\9`
 * are the digits.
 */
function digitEscape(pattern: string, at: number, ctx: EscapeContext): Escape {
  const first = pattern[at + 1]!;
  if (!ctx.inClass && first !== '0') {
    const reference = Number(sticky(DECIMAL, pattern, at + 1));
    if (reference <= ctx.groups)
      return { kind: 'problem', problem: `backreferences such as \\${reference} are not supported` };
  }
  if (first === '8' || first === '9') return unit(first.charCodeAt(0), at + 2);
  let value = 0;
  let index = at + 1;
  const maxDigits = first <= '3' ? 3 : 2;
  while (index < at + 1 + maxDigits && pattern[index]! >= '0' && pattern[index]! <= '7')
    value = value * 8 + Number(pattern[index++]);
  return unit(value, index);
}

/**
 * `\cJ` is a control character; inside a class `\c0` and `\c_` are too; otherwise the backslash is a literal and `c` is
 * read next.
 */
function controlLetter(pattern: string, at: number, inClass: boolean): Escape {
  const letter = pattern[at + 2];
  const ok = letter !== undefined && (/[A-Za-z]/.test(letter) || (inClass && /[0-9_]/.test(letter)));
  return ok ? unit(letter.charCodeAt(0) % 32, at + 3) : unit(0x5c, at + 1);
}

/**
 * `\uXXXX`; a bare `\u` is the letter u. `\u{...}` is refused: without the u flag JavaScript reads it as u repeated.
 */
function unicodeEscape(pattern: string, from: number): Escape {
  const four = sticky(HEX4, pattern, from);
  if (four !== undefined) return unit(Number.parseInt(four, 16), from + 4);
  const braced = sticky(BRACED_HEX, pattern, from);
  if (braced !== undefined) {
    const problem =
      `\\u${braced} is read by JavaScript without the u flag as the letter u repeated; write the ` +
      `character itself, or \\uXXXX (a pair of them above U+FFFF)`;
    return { kind: 'problem', problem };
  }
  return unit(0x75, from);
}
