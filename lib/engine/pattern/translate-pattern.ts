/**
 * Turns a user's regular expression, written the way JavaScript's `RegExp`
 * reads it (no flags), into RE2 syntax, in linear passes without recursion.
 *
 * The translation is the gate in front of the engine: before anything that
 * recurses or expands sees the pattern, it enforces the length and group
 * nesting limits (outline.ts), estimates the program size (program-size.ts),
 * names the JavaScript features a linear-time engine cannot run
 * (backreferences, lookahead, lookbehind), and writes every escape and
 * class out with the meaning JavaScript gives it (read-escape.ts,
 * read-class.ts): `.` leaves out \r and the line/paragraph separators, `\s`
 * counts Unicode spaces, `\1` is octal when there is no group 1, `\a` is
 * "a", and a surrogate code unit is spelt as the code point the text spells
 * it with (code-units.ts). Quantifiers, anchors, groups and alternation mean the same in both
 * and are copied; RE2's parser reports what is still wrong. RE2 extras
 * (`(?i)`, `\p{L}`) stay available.
 */
import { isNamedGroup, outline } from './outline.js';
import { ProgramSize } from './program-size.js';
import { readClass } from './read-class.js';
import { type EscapeContext, readEscape } from './read-escape.js';
import { setText, unitText } from './re2-text.js';
import { LINE_TERMINATORS } from './unit-set.js';

/** Longest pattern accepted, in UTF-16 code units (what `String.length` counts). */
export const MAX_PATTERN_LENGTH = 1024;
/** Deepest group nesting accepted: `((a))` is 2. */
export const MAX_GROUP_DEPTH = 32;

/** The RE2 source and the estimated program size (never below the real one), or why the pattern cannot be used. */
export type Translation = { readonly re2: string; readonly estimatedSize: number } | { readonly problem: string };

/** JavaScript's `.`: anything but a line terminator. */
const JS_DOT = setText(LINE_TERMINATORS, true);
const QUANTIFIER = /\{(\d+)(,(\d*))?\}/y;
/** Syntax characters that mean the same in both dialects; any other character is a literal. */
const COPIED = new Set([...'^$|*+?)']);
/** RE2's largest count in `{m,n}`. */
const MAX_REPEAT = 1000;

/**
 * Translates `pattern` (JavaScript syntax) into RE2 syntax, or says why it
 * cannot be used. Linear in the pattern's length; never throws for any string.
 */
export function translatePattern(pattern: string): Translation {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    return { problem: `longer than ${MAX_PATTERN_LENGTH} characters (${pattern.length})` };
  }
  const shape = outline(pattern);
  if (shape.depth > MAX_GROUP_DEPTH) return { problem: `groups nested deeper than ${MAX_GROUP_DEPTH} levels` };
  const syntax = javaScriptSyntaxProblem(shape.javaScript);
  if (syntax !== undefined) return { problem: syntax };
  const escapes: EscapeContext = { inClass: false, groups: shape.groups, named: shape.named };
  const size = new ProgramSize();
  let out = '';
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === '\\') {
      const esc = readEscape(pattern, i, escapes);
      if (esc.kind === 'problem') return esc;
      out += esc.kind === 'unit' ? unitText(esc.unit, false) : esc.re2;
      size.atom();
      i = esc.next;
    } else if (c === '[') {
      const cls = readClass(pattern, i, escapes);
      if ('problem' in cls) return cls;
      out += setText(cls.set, cls.negated);
      size.atom();
      i = cls.next;
    } else if (c === '(') {
      const problem = lookaroundProblem(pattern, i);
      if (problem !== undefined) return { problem };
      size.open();
      // Group names are dropped: nothing reads them, and JavaScript allows names RE2 does not (`$`, non-ASCII letters).
      const name = isNamedGroup(pattern, i);
      out += '(';
      i = name ? pattern.indexOf('>', i) + 1 : i + 1;
    } else if (c === '{') {
      QUANTIFIER.lastIndex = i;
      const m = QUANTIFIER.exec(pattern);
      if (m) {
        const [min, max] = [Number(m[1]), m[2] === undefined ? Number(m[1]) : m[3] === '' ? undefined : Number(m[3])];
        if (min > MAX_REPEAT || (max ?? 0) > MAX_REPEAT) return { problem: `repeat counts above ${MAX_REPEAT} are not supported (${m[0]})` };
        size.repeat(min, max);
      } else size.atom();
      out += m ? m[0] : '\\{';
      i += m ? m[0].length : 1;
    } else {
      if (c === ')') size.close();
      else if (c === '|') size.alternate();
      else if (c === '*' || c === '+' || c === '?') size.quantify();
      else size.atom();
      out += c === '.' ? JS_DOT : COPIED.has(c) ? c : unitText(pattern.charCodeAt(i), false);
      i++;
    }
  }
  return { re2: out, estimatedSize: size.total };
}

/**
 * Why V8 would refuse `javaScript` (the pattern with RE2's group syntax
 * spelt as JavaScript groups), in its words: "nothing to repeat",
 * "unterminated group". V8 only parses here, in linear time; the RegExp is
 * never run.
 */
function javaScriptSyntaxProblem(javaScript: string): string | undefined {
  try {
    new RegExp(javaScript);
    return undefined;
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    const reason = err.message.slice(err.message.lastIndexOf(': ') + 2);
    return reason.charAt(0).toLowerCase() + reason.slice(1);
  }
}

/** Why the group opening at `i` cannot run in linear time, or undefined. */
function lookaroundProblem(p: string, i: number): string | undefined {
  if (p.startsWith('(?=', i) || p.startsWith('(?!', i)) return 'lookahead such as (?=...) or (?!...) is not supported';
  if (p.startsWith('(?<=', i) || p.startsWith('(?<!', i)) return 'lookbehind such as (?<=...) or (?<!...) is not supported';
  return undefined;
}
