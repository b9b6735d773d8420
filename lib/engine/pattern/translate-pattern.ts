/**
 * Turns a user's regular expression, written the way JavaScript's `RegExp`
 * reads it (no flags), into RE2 syntax, in one linear pass without recursion.
 *
 * The pass is the gate in front of the engine: before anything that recurses
 * or expands sees the pattern, it enforces the length and group nesting
 * limits, estimates the program size (program-size.ts), names the JavaScript
 * features a linear-time engine cannot run (backreferences, lookahead,
 * lookbehind), and rewrites the spellings whose meaning differs between the
 * dialects: `.` (JS excludes \r and the line/paragraph separators), `\s`/`\S`
 * (JS counts Unicode spaces), `\uXXXX`, `\cX`, identity escapes such as `\a`,
 * and classes, which are read with JavaScript's rules (read-class.ts) and
 * written out afresh. Everything else passes through
 * and RE2's parser reports what is still wrong. RE2 extras (`(?i)`, `\p{L}`)
 * stay available.
 */
import { ProgramSize } from './program-size.js';
import { readClass } from './read-class.js';
import { setText } from './re2-text.js';

/** Longest pattern accepted, in UTF-16 code units (what `String.length` counts). */
export const MAX_PATTERN_LENGTH = 1024;
/** Deepest group nesting accepted: `((a))` is 2. */
export const MAX_GROUP_DEPTH = 32;

/** The RE2 source and the estimated program size (never below the real one), or why the pattern cannot be used. */
export type Translation = { readonly re2: string; readonly estimatedSize: number } | { readonly problem: string };

/** JavaScript's WhiteSpace and LineTerminator code points, as the inside of an RE2 class. */
const JS_SPACE = '\\t\\n\\v\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}';
/** JavaScript's `.`: anything but a line terminator. */
const JS_DOT = '[^\\n\\r\\x{2028}\\x{2029}]';
/** Escapes that mean the same in both dialects and are copied as written. */
const SHARED_ESCAPES = new Set(['d', 'D', 'w', 'W', 't', 'n', 'v', 'f', 'r', '0', 'p', 'P']);
const QUANTIFIER = /\{(\d+)(,(\d*))?\}/y;
const HEX4 = /[0-9a-fA-F]{4}/y;
const HEX2 = /[0-9a-fA-F]{2}/y;
const BRACED_HEX = /\{([0-9a-fA-F]{1,6})\}/y;

interface Escape {
  /** RE2 text for the escape. */
  readonly text: string;
  /** Index just past the escape. */
  readonly next: number;
  readonly problem?: string;
}

/**
 * Translates `pattern` (JavaScript syntax) into RE2 syntax, or says why it
 * cannot be used. Linear in the pattern's length; never throws for any string.
 */
export function translatePattern(pattern: string): Translation {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    return { problem: `longer than ${MAX_PATTERN_LENGTH} characters (${pattern.length})` };
  }
  const size = new ProgramSize();
  let out = '';
  let depth = 0;
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === '\\') {
      const esc = translateEscape(pattern, i);
      if (esc.problem !== undefined) return { problem: esc.problem };
      out += esc.text;
      size.atom();
      i = esc.next;
    } else if (c === '[') {
      const cls = readClass(pattern, i, { groups: 0, named: false });
      if ('problem' in cls) return cls;
      out += setText(cls.set, cls.negated);
      size.atom();
      i = cls.next;
    } else if (c === '(') {
      const problem = lookaroundProblem(pattern, i);
      if (problem !== undefined) return { problem };
      if (++depth > MAX_GROUP_DEPTH) return { problem: `groups nested deeper than ${MAX_GROUP_DEPTH} levels` };
      size.open();
      out += c;
      i++;
    } else if (c === '{') {
      QUANTIFIER.lastIndex = i;
      const m = QUANTIFIER.exec(pattern);
      if (m) size.repeat(Number(m[1]), m[2] === undefined ? Number(m[1]) : m[3] === '' ? undefined : Number(m[3]));
      else size.atom();
      out += m ? m[0] : c;
      i += m ? m[0].length : 1;
    } else {
      if (c === ')') { depth = Math.max(depth - 1, 0); size.close(); }
      else if (c === '|') size.alternate();
      else if (c === '*' || c === '+' || c === '?') size.quantify();
      else size.atom();
      out += c === '.' ? JS_DOT : c;
      i++;
    }
  }
  return { re2: out, estimatedSize: size.total };
}

/** Why the group opening at `i` cannot run in linear time, or undefined. */
function lookaroundProblem(p: string, i: number): string | undefined {
  if (p.startsWith('(?=', i) || p.startsWith('(?!', i)) return 'lookahead such as (?=...) or (?!...) is not supported';
  if (p.startsWith('(?<=', i) || p.startsWith('(?<!', i)) return 'lookbehind such as (?<=...) or (?<!...) is not supported';
  return undefined;
}

/** The escape starting at `at` (a backslash), outside a class. */
function translateEscape(p: string, at: number): Escape {
  const c = p[at + 1];
  const next = at + 2;
  if (c === undefined) return { text: '\\', next: at + 1 };
  if (SHARED_ESCAPES.has(c)) return { text: `\\${c}`, next };
  if (c === 's') return { text: `[${JS_SPACE}]`, next };
  if (c === 'S') return { text: `[^${JS_SPACE}]`, next };
  if (c === 'b' || c === 'B') return { text: `\\${c}`, next };
  if (c >= '1' && c <= '9') return { text: '', next, problem: `backreferences such as \\${c} are not supported` };
  if (c === 'k' && p[next] === '<') return { text: '', next, problem: 'backreferences such as \\k<name> are not supported' };
  if (c === 'u') return unicodeEscape(p, next);
  if (c === 'x') return hexEscape(p, next);
  if (c === 'c') {
    const letter = p[next];
    if (letter !== undefined && /[A-Za-z]/.test(letter)) return { text: codePoint(letter.charCodeAt(0) % 32), next: next + 1 };
    return { text: '\\\\c', next };
  }
  return { text: identity(c), next };
}

/** `\uXXXX` or `\u{X...}` after the `\u` at `from - 2`; a bare `\u` is the letter u, as in JavaScript. */
function unicodeEscape(p: string, from: number): Escape {
  HEX4.lastIndex = from;
  const four = HEX4.exec(p);
  if (four) return { text: `\\x{${four[0]}}`, next: from + 4 };
  BRACED_HEX.lastIndex = from;
  const braced = BRACED_HEX.exec(p);
  if (braced) return { text: `\\x{${braced[1]}}`, next: from + braced[0].length };
  return { text: 'u', next: from };
}

/** `\xHH`; a bare `\x` is the letter x, as in JavaScript. */
function hexEscape(p: string, from: number): Escape {
  HEX2.lastIndex = from;
  const two = HEX2.exec(p);
  return two ? { text: `\\x${two[0]}`, next: from + 2 } : { text: 'x', next: from };
}

/** A JavaScript identity escape (`\a` is "a", `\-` is "-") in a form RE2 reads the same way. */
function identity(c: string): string {
  if (/[A-Za-z]/.test(c)) return c;
  if (/[!-/:-@[-`{-~]/.test(c)) return `\\${c}`;
  return c;
}

function codePoint(n: number): string {
  return `\\x{${n.toString(16)}}`;
}
