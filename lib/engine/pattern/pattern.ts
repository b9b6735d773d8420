/**
 * User-supplied regular expressions, compiled once into linear-time matchers.
 *
 * Every pattern a client gives (KV find, a schema field's `regex`, the
 * functions layer's KvQuery and Validate steps) goes through here, never
 * through V8's backtracking RegExp, so no pattern can freeze the server:
 * matching costs at most (text length x program size), and the program size
 * is capped. The engine is re2js, a pure-JavaScript port of RE2 (the choice
 * and its measurements are in the commit that added it). A pattern is
 * translated from JavaScript syntax first (translate-pattern.ts), then
 * compiled; results, failures included, are kept in a bounded cache. Texts
 * reach RE2 one code point per UTF-16 code unit (code-units.ts), as
 * JavaScript without the u flag reads them.
 */
import { RE2JS, RE2JSException } from 're2js';
import { InvalidInput } from '../../errors.js';
import { asCodeUnits } from './units/code-units.js';
import { PatternCache } from './pattern-cache.js';
import { translatePattern } from './translate-pattern.js';

/** A compiled pattern. `test` is an unanchored search, like `RegExp.prototype.test` without flags. */
export interface Pattern {
  /** The pattern as the user wrote it. */
  readonly source: string;
  /**
   * Longest text this pattern may be run on (MATCH_WORK_LIMIT / program
   * size). Callers refuse longer texts with a 400 instead of matching:
   * linear time is still time, and a megabyte string against a large program
   * would hold the event loop for seconds.
   */
  readonly maxTextLength: number;
  test(text: string): boolean;
}

export type CompiledPattern =
  { readonly ok: true; readonly pattern: Pattern } | { readonly ok: false; readonly problem: string };

/** Largest compiled program accepted, in RE2 instructions; matching costs up to this much per character. */
export const MAX_PROGRAM_SIZE = 2000;

/**
 * Bound on text length x program size for one match. re2js's DFA runs at a
 * few ns per character, but when a large program exhausts its DFA budget the
 * NFA fallback costs about 6 ns per character per instruction, so this
 * bounds one match to about 0.1 s in the worst case (a 13-instruction email
 * pattern still takes texts of 1.2M characters).
 */
export const MATCH_WORK_LIMIT = 16_000_000;

/**
 * The estimate runs up to about 4 times the real size (a group repeated with
 * {m,n} is counted generously), so only a pattern estimated above this many
 * times the limit is refused before compiling; the real size decides the rest.
 */
const ESTIMATE_SLACK = 4;

/**
 * Patterns kept compiled; a schema regex is looked up on every write that
 * checks it. Small on purpose: each compiled pattern may grow a lazy DFA up to
 * re2js's 8 MB budget, so this bounds that memory too.
 */
export const PATTERN_CACHE_SIZE = 128;

// The one piece of module state in the engine: a memo of a pure function
// (source -> matcher) that holds no database data, shared so the schema
// checks, KV find and the functions layer compile each pattern once.
const cache = new PatternCache<CompiledPattern>(PATTERN_CACHE_SIZE);

/**
 * Compiles `source` (JavaScript regular-expression syntax, no flags) into a
 * linear-time matcher, or says in a short sentence why it cannot be used:
 * too long, nested too deep, too large, a backreference or lookaround, or a
 * syntax error. Never throws for a string. Cached: compiling the same source
 * again is a map lookup.
 */
export function compilePattern(source: string): CompiledPattern {
  const hit = cache.get(source);
  if (hit !== undefined) return hit;
  const compiled = compileUncached(source);
  cache.set(source, compiled);
  return compiled;
}

/**
 * The compiled pattern for `raw`. Throws InvalidInput `<subject>: <why>`
 * when `raw` is not a string or cannot be used, e.g. subject
 * `Field 'email': invalid regex` or `pattern`.
 */
export function requirePattern(raw: unknown, subject: string): Pattern {
  if (typeof raw !== 'string') throw new InvalidInput(`${subject}: must be a string`);
  const compiled = compilePattern(raw);
  if (!compiled.ok) throw new InvalidInput(`${subject}: ${compiled.problem}`);
  return compiled.pattern;
}

function compileUncached(source: string): CompiledPattern {
  const translated = translatePattern(source);
  if ('problem' in translated) return { ok: false, problem: translated.problem };
  if (translated.estimatedSize > ESTIMATE_SLACK * MAX_PROGRAM_SIZE)
    return tooLarge(`about ${translated.estimatedSize}`);
  let re: RE2JS;
  try {
    re = RE2JS.compile(translated.re2);
  } catch (err) {
    // RE2's syntax errors are user errors; anything else is a bug and propagates.
    if (!(err instanceof RE2JSException)) throw err;
    return { ok: false, problem: err.message.replace(/^error parsing regexp: /, '') };
  }
  if (re.programSize() > MAX_PROGRAM_SIZE) return tooLarge(String(re.programSize()));
  const maxTextLength = Math.floor(MATCH_WORK_LIMIT / Math.max(1, re.programSize()));
  return { ok: true, pattern: { source, maxTextLength, test: (text: string) => re.test(asCodeUnits(text)) } };
}

function tooLarge(size: string): CompiledPattern {
  const problem =
    `too large: it compiles to ${size} instructions, more than ${MAX_PROGRAM_SIZE} (a {m,n} count ` +
    `multiplies the size of what it repeats)`;
  return { ok: false, problem };
}
