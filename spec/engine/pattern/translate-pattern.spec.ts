import { expect } from 'chai';
import { RE2JS } from 're2js';
import { translatePattern } from '../../../lib/engine/pattern/index.js';

function re2Of(source: string): string {
  const t = translatePattern(source);
  if (!('re2' in t)) throw new Error(`expected ${source} to translate: ${t.problem}`);
  return t.re2;
}

/** A small seeded generator of patterns built from the constructs users write. */
function* generatedPatterns(count: number, seed: number): Generator<string> {
  let state = seed;
  const pick = (n: number): number => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state % n;
  };
  const atoms = [
    'a',
    'b',
    '\\d',
    '[a-z]',
    '.',
    '\\s',
    '(?:ab|c)',
    '(a)',
    'x{2,5}',
    'y{3}',
    'z{2,}',
    'q*',
    'r+?',
    's?',
    '^',
    '$',
    '\\b',
    '\\p{L}',
    'é',
  ];
  const atom = (): string => atoms[pick(atoms.length)]!;
  for (let k = 0; k < count; k++) {
    let p = '';
    for (let i = 1 + pick(6); i > 0; i--) {
      let a = atom();
      if (pick(3) === 0) a = `(?:${a}${atom()}){${pick(5)},${5 + pick(10)}}`;
      if (pick(3) === 0) a = `(${a}|${atom()})${['*', '+', '?', '{2,4}', ''][pick(5)]}`;
      p += a;
    }
    yield p;
  }
}

describe('translatePattern', () => {
  it('copies what both dialects read alike', () => {
    for (const p of ['^user:[0-9]+$', 'a|b', '(?:x)+?', '\\d\\w\\W\\D', 'a{2,3}', '\\t\\n', '\\p{L}']) {
      expect(re2Of(p)).to.equal(p);
    }
  });

  it('drops group names, which JavaScript spells more freely than RE2 and nothing reads', () => {
    expect(re2Of('(?<name>a)(?<$é>b)(?P<c>c)')).to.equal('(a)(b)(c)');
  });

  it('rewrites . and \\s to the JavaScript character sets', () => {
    expect(re2Of('.')).to.equal('[^\\n\\r\\x{2028}\\x{2029}]');
    const spaces = '\\t-\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}';
    expect(re2Of('\\s')).to.equal(`[${spaces}]`);
    expect(re2Of('\\S')).to.equal(`[^${spaces}]`);
    expect(re2Of('[.\\s]')).to.equal(
      '[\\t-\\r .\\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}]',
    );
  });

  it('rewrites the escapes RE2 spells differently or not at all', () => {
    expect(re2Of('\\u00e9\\cJ\\x41\\0\\101\\8')).to.equal('é\\nA\\x{0}A8');
    expect(re2Of('\\a\\e\\q\\u\\x')).to.equal('aequx');
    expect(re2Of('\\-\\/\\_\\.')).to.equal('-/_\\.');
    expect(re2Of('[\\b\\B]')).to.equal('[\\x{8}B]');
  });

  it('spells each surrogate code unit as its own code point at the end of plane 16, as the text is spelt', () => {
    expect(re2Of('😀')).to.equal('\\x{10f83d}\\x{10fe00}');
    expect(re2Of('[\\u0080-\\ue000]')).to.equal('[\\x{80}-\\x{d7ff}\\x{10f800}-\\x{10ffff}\\x{e000}]');
  });

  it('reads classes with JavaScript rules', () => {
    expect(re2Of('[]')).to.equal('[^\\x00-\\x{10FFFF}]');
    expect(re2Of('[^]')).to.equal('(?s:.)');
    expect(re2Of('[[a]')).to.equal('[\\[a]');
    expect(re2Of('[(|)]')).to.equal('[()|]');
    expect(re2Of('[a-\\d]')).to.equal('[\\-0-9a]');
    expect(re2Of('[\\1\\c_\\cJ]')).to.equal('[\\x{1}\\n\\x{1f}]');
  });

  it('refuses an unterminated class', () => {
    expect(translatePattern('[abc')).to.deep.equal({ problem: 'unterminated character class' });
  });

  it('never estimates a program smaller than the one RE2 compiles, and at most about 4 times larger', () => {
    let checked = 0;
    for (const p of generatedPatterns(1500, 42)) {
      const t = translatePattern(p);
      if (!('re2' in t)) continue;
      const actual = RE2JS.compile(t.re2).programSize();
      expect(t.estimatedSize, p).to.be.at.least(actual);
      expect(t.estimatedSize, p).to.be.at.most(4 * actual);
      checked++;
    }
    expect(checked).to.be.above(1200);
  });
});
