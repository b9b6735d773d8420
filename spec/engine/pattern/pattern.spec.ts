import { expect } from 'chai';
import { InvalidInput } from '../../../lib/errors.js';
import {
  compilePattern,
  MAX_GROUP_DEPTH,
  MAX_PATTERN_LENGTH,
  MAX_PROGRAM_SIZE,
  requirePattern,
  type Pattern,
} from '../../../lib/engine/pattern/index.js';
import { PatternCache } from '../../../lib/engine/pattern/pattern-cache.js';

function compiled(source: string): Pattern {
  const c = compilePattern(source);
  if (!c.ok) throw new Error(`expected ${source} to compile: ${c.problem}`);
  return c.pattern;
}

function problemOf(source: string): string {
  const c = compilePattern(source);
  if (c.ok) throw new Error(`expected ${source} to be refused`);
  return c.problem;
}

/**
 * What the pattern says for each text, next to what V8's RegExp says; `flags` are given to the pattern as `(?flags)`.
 */
function agreesWithRegExp(source: string, texts: string[], flags = ''): void {
  const p = compiled(flags === '' ? source : `(?${flags})${source}`);
  const re = new RegExp(source, flags);
  for (const text of texts)
    expect(p.test(text), `/${source}/${flags} on ${JSON.stringify(text)}`).to.equal(re.test(text));
}

describe('compilePattern', () => {
  describe('matching', () => {
    it('searches unanchored, like RegExp.prototype.test without flags', () => {
      agreesWithRegExp('ab', ['xaby', 'ab', 'ba', '']);
      agreesWithRegExp('^user:[0-9]+$', ['user:12', 'user:', 'xuser:1', 'user:1\n']);
      agreesWithRegExp('cache:product:.*', ['cache:product:1', 'my:cache:product:', 'cache:prod']);
    });

    it('keeps the JavaScript syntax users write: \\d \\w \\s, classes, {m,n}, groups, alternation', () => {
      agreesWithRegExp('^\\d{3}-\\w+\\s\\S$', ['123-ab c', '12-ab c', '123-ab  c', '123-ab\u00a0c']);
      agreesWithRegExp('^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}$', [
        'a.b@example.com',
        'a@b',
        'a@b.c',
        '@x.io',
      ]);
      agreesWithRegExp('^(?:red|green|blue)(?<shade>-dark)?$', ['red', 'green-dark', 'blue-', 'yellow']);
      agreesWithRegExp('^(?<$名>a)(?<_b$>b)$', ['ab', 'a']);
      agreesWithRegExp('^[^aeiou]{2,4}$', ['xyz', 'xa', 'wxyzw']);
      agreesWithRegExp('config:*', ['config', 'config::', 'conf']);
    });

    it('keeps the JavaScript meaning where RE2 would read the same text differently', () => {
      agreesWithRegExp('a.b', ['a\rb', 'a\nb', 'a\u2028b', 'axb']);
      agreesWithRegExp('^\\s+$', ['\u00a0\u2003\ufeff', '\v', 'x']);
      agreesWithRegExp('^[\\s\\d]+$', ['1\u00a02', '1x']);
      agreesWithRegExp('\\u0041\\x42\\cA', ['AB\u0001', 'AB']);
      agreesWithRegExp('^\\a\\-\\/\\:$', ['a-/:', '\u0007-/:']);
      agreesWithRegExp('[^]', ['', 'x', '\n']);
      agreesWithRegExp('x[]', ['x', 'x[]']);
      agreesWithRegExp('[]a]', ['a]', 'a']);
      agreesWithRegExp('[[:alpha:]]', ['[:]', 'b]', 'b']);
      agreesWithRegExp('[\\b]', ['\b', 'b']);
    });

    it('reads classes as JavaScript does: escapes at a range end, \\S \\W \\D, octal and control escapes', () => {
      agreesWithRegExp('^[a-\\s]+$', ['a-', '\u00a0\u3000', 'b']);
      agreesWithRegExp('^[\\d-z]+$', ['1-z', 'y']);
      agreesWithRegExp('^[\\S]$', ['\u00a0', '\ufeff', 'x', ' ']);
      agreesWithRegExp('^[\\W\\D]$', ['\u00a0', '5', 'a', 'é']);
      agreesWithRegExp('^[\\1\\12\\8\\400]+$', ['\u0001\n8\u00200', '1', '\u0100']);
      agreesWithRegExp('^[\\c0\\c_\\c]+$', ['\u0010\u001f\\c', '0', '_']);
      agreesWithRegExp('^[\\p\\x41-\\x43\\u00e9]+$', ['pABCé', 'D']);
    });

    it('reads \\1 as an octal escape when the pattern has fewer groups, and other escapes as JavaScript does', () => {
      agreesWithRegExp('^\\1\\8\\12\\0$', ['\u00018\n\0', '18120']);
      agreesWithRegExp('^(a)\\2$', ['a\u0002', 'a2', 'aa']);
      agreesWithRegExp('^\\k<a>$', ['k<a>', 'k']);
      agreesWithRegExp('^\\c1\\p\\x4$', ['\\c1px4', '\u0011px4']);
    });

    it('matches Unicode text', () => {
      agreesWithRegExp('^héllo\\s+wörld$', ['héllo  wörld', 'hello world']);
      agreesWithRegExp('日本', ['ようこそ日本へ', '日']);
    });

    it('reads text as UTF-16 code units, as RegExp without the u flag does: an emoji is two', () => {
      agreesWithRegExp('^.$', ['😀', 'é']);
      agreesWithRegExp('^..$', ['😀', 'ab']);
      agreesWithRegExp('^😀+$', ['😀😀', '😀\ude00\ude00']);
      agreesWithRegExp('^[😀]$', ['\ud83d', '\ude00', '😀']);
      agreesWithRegExp('^\\uD83D\\uDE00$', ['😀', '\ud83d']);
      agreesWithRegExp('^[^a][\\udc00-\\udfff]$', ['😀', '\ud83da']);
      agreesWithRegExp('^[\\ud000-\\ue000]{2}$', ['😀', '\ud7ff\ue000', '\ue001']);
      agreesWithRegExp('\\W\\W', ['\udbff\udfff', '\u{10ffff}']);
      agreesWithRegExp('\\udfff{2}', ['\udbff\udfff\udfff', '\udfff']);
    });

    it("reads (?i) as JavaScript's i flag: ſ is not s, the Kelvin sign is not k, ß has no uppercase", () => {
      agreesWithRegExp('^[a-z]+$', ['ABC', 'ſ', '\u212a', 'ǅ'], 'i');
      agreesWithRegExp('^s|k|ß|σ$', ['ſ', '\u212a', 'ẞ', 'S', 'K', 'ς'], 'i');
      agreesWithRegExp('^[^k]$', ['K', '\u212a'], 'i');
      agreesWithRegExp('^\\w\\W$', ['a\u212a', 'aſ'], 'i');
    });

    it("reads (?s) as JavaScript's s flag: . matches line terminators", () => {
      agreesWithRegExp('^a.b$', ['a\nb', 'a\rb', 'a\u2028b', 'a😀b', 'a\ud83db'], 's');
      agreesWithRegExp('^a.b$', ['a\nb', 'axb'], 'is');
    });

    it('scopes flags as RE2 and JavaScript modifiers do: (?i) to the end of its group, (?i:...) and (?-i:...) to theirs', () => {
      const answers = (source: string, texts: string[]): boolean[] => texts.map((t) => compiled(source).test(t));
      expect(answers('^a(?i:b)c$', ['aBc', 'ABc', 'abC'])).to.deep.equal([true, false, false]);
      expect(answers('^(a(?i)b|c)d$', ['aBd', 'aBD', 'Cd'])).to.deep.equal([true, false, true]);
      expect(answers('^(?i)a(?-i:b)c$', ['AbC', 'ABc'])).to.deep.equal([true, false]);
      expect(answers('^(?s:.)(?i).$', ['\nA', '\n\n'])).to.deep.equal([true, false]);
    });

    it('offers RE2 extras: inline flags and Unicode classes', () => {
      expect(compiled('(?i)^abc$').test('ABC')).to.equal(true);
      expect(compiled('^\\p{L}+$').test('Ünïcödé')).to.equal(true);
    });

    it('answers the catastrophic backtracking cases at once', () => {
      const started = Date.now();
      expect(compiled('^(a+)+$').test('a'.repeat(30) + '!')).to.equal(false);
      expect(compiled('^(a|a)*$').test('a'.repeat(100_000) + '!')).to.equal(false);
      expect(compiled('(x+x+)+y').test('x'.repeat(50_000))).to.equal(false);
      expect(Date.now() - started, 'milliseconds').to.be.below(2000);
    });

    it('matches text with lone surrogates without throwing', () => {
      expect(compiled('a').test('\ud800a')).to.equal(true);
    });
  });

  describe('refusals', () => {
    it('refuses backreferences', () => {
      expect(problemOf('(a)\\1')).to.equal('backreferences such as \\1 are not supported');
      expect(problemOf('\\2(a)(b)')).to.equal('backreferences such as \\2 are not supported');
      expect(problemOf('(?<q>a)\\k<q>')).to.equal('backreferences such as \\k<name> are not supported');
    });

    it('refuses lookahead and lookbehind', () => {
      expect(problemOf('(?=a)')).to.match(/^lookahead/);
      expect(problemOf('a(?!b)')).to.match(/^lookahead/);
      expect(problemOf('(?<=a)b')).to.match(/^lookbehind/);
      expect(problemOf('(?<!a)b')).to.match(/^lookbehind/);
    });

    it('refuses \\u{...}, which JavaScript without the u flag reads as the letter u repeated', () => {
      expect(problemOf('\\u{1F600}')).to.match(
        /^\\u\{1F600\} is read by JavaScript without the u flag as the letter u repeated/,
      );
      agreesWithRegExp('^\\u{2,}$', ['uu', 'u']);
    });

    it(`refuses a pattern longer than ${MAX_PATTERN_LENGTH} characters, and accepts one of exactly that length`, () => {
      expect(problemOf('a'.repeat(MAX_PATTERN_LENGTH + 1))).to.equal(
        `longer than ${MAX_PATTERN_LENGTH} characters (${MAX_PATTERN_LENGTH + 1})`,
      );
      expect(compiled('a'.repeat(MAX_PATTERN_LENGTH)).test('a'.repeat(MAX_PATTERN_LENGTH))).to.equal(true);
    });

    it(`refuses groups nested deeper than ${MAX_GROUP_DEPTH}, and accepts exactly that depth`, () => {
      const nest = (n: number): string => '('.repeat(n) + 'a' + ')'.repeat(n);
      expect(problemOf(nest(MAX_GROUP_DEPTH + 1))).to.equal(`groups nested deeper than ${MAX_GROUP_DEPTH} levels`);
      expect(compiled(nest(MAX_GROUP_DEPTH)).test('a')).to.equal(true);
      expect(compiled(`[${'('.repeat(100)}]`).test('('), 'parentheses in a class are not groups').to.equal(true);
      expect(compiled('\\('.repeat(100)).test('('.repeat(100)), 'escaped parentheses are not groups').to.equal(true);
    });

    it('refuses 30,000 nested groups quickly, without overflowing the stack', () => {
      const started = Date.now();
      const deep = '('.repeat(30_000) + ')'.repeat(30_000);
      expect(problemOf(deep)).to.match(/^longer than/);
      expect(problemOf(deep.slice(0, 500) + deep.slice(-500))).to.match(/^groups nested deeper/);
      expect(Date.now() - started).to.be.below(2000);
    });

    it(`refuses a pattern whose program would exceed ${MAX_PROGRAM_SIZE} instructions`, () => {
      expect(problemOf('\\w{999}\\w{999}\\w{999}')).to.match(
        /^too large: it compiles to \d+ instructions, more than 2000/,
      );
      const started = Date.now();
      expect(problemOf('(?:(?:\\w{30}){30}){30}')).to.match(/^too large: it compiles to about \d+ instructions/);
      expect(problemOf('\\w{999}'.repeat(146))).to.match(/^too large: it compiles to about/);
      expect(Date.now() - started, 'refused before compiling').to.be.below(1000);
      expect(compiled('^[a-z0-9-]{3,63}$').test('abc-1')).to.equal(true);
    });

    it('refuses what JavaScript refuses, with its reason', () => {
      expect(problemOf('([a-z')).to.equal('unterminated character class');
      expect(problemOf('a**')).to.equal('nothing to repeat');
      expect(problemOf('(')).to.equal('unterminated group');
      expect(problemOf('[z-a]')).to.equal('range out of order in character class');
      expect(problemOf('a{2,1}')).to.equal('numbers out of order in {} quantifier');
      expect(problemOf('(?<n>a)(?<n>b)')).to.equal('duplicate capture group name');
    });

    it('refuses a quantified assertion, which RE2 would run', () => {
      for (const source of ['^*', 'a$+', '\\b?', 'a\\B{2}'])
        expect(problemOf(source), source).to.equal('nothing to repeat');
    });

    it("refuses the m flag, which RE2 cannot give JavaScript's line ends, and flags JavaScript does not have", () => {
      expect(problemOf('(?m)^a$')).to.equal(
        'the m flag is not supported: RE2 ends lines only at \\n, JavaScript also at \\r, U+2028 and U+2029',
      );
      expect(problemOf('a(?im:b)')).to.match(/^the m flag is not supported/);
      expect(problemOf('(?U)a+')).to.equal('unknown flag U in (?U): i and s are supported');
      expect(problemOf('(?)a')).to.equal('(?) names no flag');
      expect(problemOf('a(?i)*')).to.equal('nothing to repeat');
    });

    it('refuses repeat counts above 1000, which RE2 cannot expand', () => {
      expect(problemOf('a{1001}')).to.equal('repeat counts above 1000 are not supported ({1001})');
      expect(problemOf('a{2,5000}')).to.equal('repeat counts above 1000 are not supported ({2,5000})');
    });
  });

  describe('cache', () => {
    it('returns the same compiled pattern for the same source, failures included', () => {
      expect(compilePattern('^cached-[0-9]+$')).to.equal(compilePattern('^cached-[0-9]+$'));
      expect(compilePattern('(a)\\1')).to.equal(compilePattern('(a)\\1'));
    });

    it('evicts the least recently used entry past its capacity', () => {
      const cache = new PatternCache<number>(2);
      cache.set('a', 1);
      cache.set('b', 2);
      expect(cache.get('a')).to.equal(1);
      cache.set('c', 3);
      expect([cache.get('a'), cache.get('b'), cache.get('c'), cache.size]).to.deep.equal([1, undefined, 3, 2]);
    });
  });
});

describe('requirePattern', () => {
  it('throws InvalidInput naming the subject and the reason', () => {
    expect(() => requirePattern('(?=x)', 'pattern')).to.throw(InvalidInput, /^pattern: lookahead/);
    expect(() => requirePattern(5, "Field 'email': invalid regex")).to.throw(
      InvalidInput,
      "Field 'email': invalid regex: must be a string",
    );
  });

  it('returns the compiled pattern with the source as written', () => {
    expect(requirePattern('a.b', 'pattern').source).to.equal('a.b');
  });
});
