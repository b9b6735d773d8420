/**
 * Turns a user's regular expression, written the way JavaScript's `RegExp`
 * reads it (no flags), into RE2 syntax, in linear passes without recursion.
 *
 * The translation is the gate in front of the engine: before anything that
 * recurses or expands sees the pattern, it enforces the length and group
 * nesting limits (outline.ts), refuses what V8 refuses, estimates the
 * program size (program-size.ts), names the JavaScript features a
 * linear-time engine cannot run (backreferences, lookahead, lookbehind), and
 * writes every escape and class out with the meaning JavaScript gives it
 * (read-escape.ts, read-class.ts): `.` leaves out \r and the line/paragraph
 * separators, `\s` counts Unicode spaces, `\1` is octal when there is no
 * group 1, `\a` is "a", and a surrogate code unit is spelt as the code point
 * the text spells it with (code-units.ts). Quantifiers, anchors, groups and
 * alternation mean the same in both and are copied. Flags are written in
 * the pattern, `(?i)`, `(?s:...)` (flags-group.ts), and RE2's `\p{L}`
 * classes are an extra. A differential spec checks all of it against V8.
 */
import { caseInsensitive } from './units/case-fold.js';
import { type Flags, NO_FLAGS, readFlagsGroup } from './flags-group.js';
import { isNamedGroup, outline } from './outline.js';
import { ProgramSize } from './program-size.js';
import { readClass } from './read-class.js';
import { type EscapeContext, readEscape } from './read-escape.js';
import { ANY_UNIT, setText, unitText } from './units/re2-text.js';
import { LINE_TERMINATORS, UnitSet } from './units/unit-set.js';

/** Longest pattern accepted, in UTF-16 code units (what `String.length` counts). */
export const MAX_PATTERN_LENGTH = 1024;
/** Deepest group nesting accepted: `((a))` is 2. */
export const MAX_GROUP_DEPTH = 32;

/** The RE2 source and the estimated program size (never below the real one), or why the pattern cannot be used. */
export type Translation = { readonly re2: string; readonly estimatedSize: number } | Problem;

type Problem = { readonly problem: string };

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
  return new Translator(pattern, { inClass: false, groups: shape.groups, named: shape.named }).run();
}

/**
 * One left-to-right pass; each step reads one token at `i`, appends its RE2 text and says how far it read, or why it
 * stops.
 */
class Translator {
  private readonly size = new ProgramSize();
  /** Flags of the groups that enclose the current one, restored at each `)`. */
  private readonly enclosing: Flags[] = [];
  private flags = NO_FLAGS;
  private out = '';

  constructor(
    private readonly pattern: string,
    private readonly escapes: EscapeContext,
  ) {}

  run(): Translation {
    let index = 0;
    while (index < this.pattern.length) {
      const next = this.step(index);
      if (typeof next !== 'number') return next;
      index = next;
    }
    return { re2: this.out, estimatedSize: this.size.total };
  }

  private step(index: number): number | Problem {
    switch (this.pattern[index]) {
      case '\\':
        return this.escape(index);
      case '[':
        return this.characterClass(index);
      case '(':
        return this.group(index);
      case '{':
        return this.brace(index);
      default:
        return this.single(index);
    }
  }

  /** A literal code unit: under `i`, a class of its case variants. */
  private literal(unit: number): string {
    return this.flags.i ? setText(caseInsensitive(UnitSet.unit(unit)), false) : unitText(unit, false);
  }

  private escape(index: number): number | Problem {
    const esc = readEscape(this.pattern, index, this.escapes);
    if (esc.kind === 'problem') return esc;
    this.out += esc.kind === 'unit' ? this.literal(esc.unit) : esc.re2;
    this.size.atom();
    return esc.next;
  }

  private characterClass(index: number): number | Problem {
    const cls = readClass(this.pattern, index, this.escapes);
    if ('problem' in cls) return cls;
    this.out += setText(this.flags.i ? caseInsensitive(cls.set) : cls.set, cls.negated);
    this.size.atom();
    return cls.next;
  }

  private group(index: number): number | Problem {
    const flagsGroup = readFlagsGroup(this.pattern, index, this.flags);
    if (flagsGroup !== undefined) {
      if ('problem' in flagsGroup) return flagsGroup;
      if (!flagsGroup.scoped && startsQuantifier(this.pattern, flagsGroup.next))
        return { problem: 'nothing to repeat' };
      if (flagsGroup.scoped) this.enclosing.push(this.flags);
      this.out += flagsGroup.scoped ? '(?:' : '(?:)';
      this.size.open();
      if (!flagsGroup.scoped) this.size.close();
      this.flags = flagsGroup.flags;
      return flagsGroup.next;
    }
    const problem = lookaroundProblem(this.pattern, index);
    if (problem !== undefined) return { problem };
    this.enclosing.push(this.flags);
    this.size.open();
    this.out += '(';
    // Group names are dropped: nothing reads them, and JavaScript allows names RE2 does not (`$`, non-ASCII letters).
    return isNamedGroup(this.pattern, index) ? this.pattern.indexOf('>', index) + 1 : index + 1;
  }

  /** `{m,n}` and its forms, or a literal `{` (JavaScript reads `a{`, `{,3}` and `x{1,` as text). */
  private brace(index: number): number | Problem {
    QUANTIFIER.lastIndex = index;
    const match = QUANTIFIER.exec(this.pattern);
    if (match === null) {
      this.out += '\\{';
      this.size.atom();
      return index + 1;
    }
    const min = Number(match[1]);
    const max = match[2] === undefined ? min : match[3] === '' ? undefined : Number(match[3]);
    if (min > MAX_REPEAT || (max ?? 0) > MAX_REPEAT)
      return { problem: `repeat counts above ${MAX_REPEAT} are not supported (${match[0]})` };
    this.size.repeat(min, max);
    this.out += match[0];
    return index + match[0].length;
  }

  /** Any other single character: `.`, an operator or anchor RE2 reads the same way, or a literal. */
  private single(index: number): number {
    const char = this.pattern[index]!;
    if (char === ')') {
      this.size.close();
      this.flags = this.enclosing.pop() ?? this.flags;
    } else if (char === '|') this.size.alternate();
    else if (char === '*' || char === '+' || char === '?') this.size.quantify();
    else this.size.atom();
    this.out +=
      char === '.'
        ? this.flags.s
          ? ANY_UNIT
          : JS_DOT
        : COPIED.has(char)
          ? char
          : this.literal(this.pattern.charCodeAt(index));
    return index + 1;
  }
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

/**
 * Whether a quantifier starts at `index`: after `(?i)`, which sets flags and matches nothing, it would have nothing to
 * repeat.
 */
function startsQuantifier(pattern: string, index: number): boolean {
  QUANTIFIER.lastIndex = index;
  return pattern[index] === '*' || pattern[index] === '+' || pattern[index] === '?' || QUANTIFIER.test(pattern);
}

/** Why the group opening at `index` cannot run in linear time, or undefined. */
function lookaroundProblem(pattern: string, index: number): string | undefined {
  if (pattern.startsWith('(?=', index) || pattern.startsWith('(?!', index))
    return 'lookahead such as (?=...) or (?!...) is not supported';
  if (pattern.startsWith('(?<=', index) || pattern.startsWith('(?<!', index)) {
    return 'lookbehind such as (?<=...) or (?<!...) is not supported';
  }
  return undefined;
}
