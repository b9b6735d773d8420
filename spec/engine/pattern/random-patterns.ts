/**
 * Seeded random regular expressions in JavaScript syntax without flags, each
 * with a way to draw texts biased to match it, for the differential spec
 * that runs them through compilePattern and through V8's RegExp.
 *
 * A pattern is built as a tree of nodes; each node knows its source text and
 * can sample a string it would match (a class samples a member, a quantifier
 * a repetition count, an alternation one branch). Texts are such samples,
 * then mutated with characters from the same alphabet, so most of them sit
 * near the boundary between matching and not matching. The alphabet covers
 * what the dialects read differently: line terminators, Unicode spaces,
 * letters whose case folds oddly, a surrogate pair and lone surrogates.
 */

export type Random = () => number;

export interface Node {
  /** The pattern text. */
  readonly src: string;
  /** A string this node would likely match. */
  sample(rnd: Random): string;
  /**
   * Whether the node holds a quantifier or an alternation. Such a node is
   * only ever made optional (`?`), never repeated: nested repetition of
   * choices makes V8's backtracking exponential (`((a|a*){3}){3}` on 40
   * characters runs for minutes), and the spec runs V8 on every text.
   */
  readonly repeats?: boolean;
}

/**
 * Characters texts and literals are drawn from: ASCII, syntax characters,
 * line terminators, spaces, letters whose case variants JavaScript and
 * Unicode pair differently (ſ, the Kelvin and Ohm signs, ß, ǅ, µ, ς), and
 * UTF-16 halves.
 */
export const ALPHABET: readonly string[] = [
  'a',
  'b',
  'c',
  'x',
  'z',
  'A',
  'B',
  'k',
  'K',
  's',
  'S',
  '0',
  '1',
  '7',
  '9',
  '_',
  '-',
  ' ',
  '.',
  ',',
  ':',
  '/',
  '\\',
  ']',
  '[',
  '}',
  '{',
  '(',
  ')',
  '|',
  '^',
  '$',
  '*',
  '+',
  '?',
  '<',
  '>',
  '=',
  '!',
  '#',
  '@',
  '~',
  "'",
  '"',
  '\n',
  '\r',
  '\t',
  '\v',
  '\f',
  '\u2028',
  '\u2029',
  '\u00a0',
  '\u1680',
  '\u2003',
  '\u3000',
  '\ufeff',
  '\u180e',
  '\u0085',
  '\0',
  '\u0001',
  '\b',
  '\u001f',
  '\u007f',
  'é',
  'É',
  'ß',
  'ẞ',
  'ſ',
  '\u212a',
  'ı',
  'İ',
  'Ω',
  'ω',
  '\u2126',
  'µ',
  'Μ',
  'ǅ',
  'Ǆ',
  'ǆ',
  'ᾳ',
  'ᾼ',
  'ﬀ',
  'ϑ',
  'θ',
  'ς',
  'Σ',
  '日',
  '\u00ff',
  '\u0178',
  '\u0100',
  '\ud83d\ude00',
  '\ud83d',
  '\ude00',
  '\udbff\udfff',
  '\ud800',
];

/** The characters that must be escaped to be literal outside a class. */
const SYNTAX = new Set(['^', '$', '\\', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '/']);

/** Escapes inside a class, each with a code unit it stands for (one of several for `\d`, `\w`...). */
const CLASS_ESCAPES: readonly (readonly [string, string])[] = [
  ['\\d', '5'],
  ['\\D', 'é'],
  ['\\w', '_'],
  ['\\W', 'ſ'],
  ['\\s', '\u2028'],
  ['\\S', '\u180e'],
  ['\\b', '\b'],
  ['\\B', 'B'],
  ['\\-', '-'],
  ['\\]', ']'],
  ['\\\\', '\\'],
  ['\\^', '^'],
  ['\\[', '['],
  ['\\n', '\n'],
  ['\\t', '\t'],
  ['\\0', '\0'],
  ['\\cJ', '\n'],
  ['\\c0', '\u0010'],
  ['\\c_', '\u001f'],
  ['\\c', '\\'],
  ['\\1', '\u0001'],
  ['\\12', '\n'],
  ['\\8', '8'],
  ['\\x41', 'A'],
  ['\\u00e9', 'é'],
  ['\\.', '.'],
  ['\\/', '/'],
  ['\\k', 'k'],
  ['\\p', 'p'],
  ['\\a', 'a'],
];

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0');

export class PatternGenerator {
  private groupNames = 0;
  private capturing = 0;

  constructor(private readonly rnd: Random) {}

  /** A fresh random pattern, with the number of capturing groups in it. */
  pattern(): Node & { readonly groups: number } {
    this.groupNames = 0;
    this.capturing = 0;
    const node = this.disjunction(0);
    return { ...node, groups: this.capturing };
  }

  /** A text for `node`: a sample, often mutated, sometimes unrelated. */
  text(node: Node): string {
    const r = this.rnd();
    if (r < 0.05) return '';
    if (r < 0.15) return this.randomString(this.int(8));
    const sample = node.sample(this.rnd);
    if (r < 0.5) return sample;
    return this.mutate(sample);
  }

  private int(n: number): number {
    return Math.floor(this.rnd() * n);
  }

  private pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)]!;
  }

  private randomString(length: number): string {
    let s = '';
    for (let k = 0; k < length; k++) s += this.pick(ALPHABET);
    return s;
  }

  /** Inserts, deletes or replaces a few UTF-16 code units (which may split a surrogate pair), or adds text around. */
  private mutate(s: string): string {
    let out = s;
    for (let n = 1 + this.int(3); n > 0; n--) {
      const at = this.int(out.length + 1);
      const op = this.int(5);
      if (op === 0) out = out.slice(0, at) + this.pick(ALPHABET) + out.slice(at);
      else if (op === 1) out = out.slice(0, at) + out.slice(at + 1);
      else if (op === 2) out = out.slice(0, at) + this.pick(ALPHABET) + out.slice(at + 1);
      else if (op === 3) out = this.randomString(1 + this.int(2)) + out;
      else out += this.randomString(1 + this.int(2));
    }
    return out;
  }

  private disjunction(depth: number): Node {
    const branches: Node[] = [this.alternative(depth)];
    while (this.rnd() < 0.2) branches.push(this.alternative(depth));
    if (branches.length === 1) return branches[0]!;
    return {
      src: branches.map((b) => b.src).join('|'),
      sample: (rnd) => branches[Math.floor(rnd() * branches.length)]!.sample(rnd),
      repeats: true,
    };
  }

  private alternative(depth: number): Node {
    const terms: Node[] = [];
    const n = this.rnd() < 0.05 ? 0 : 1 + this.int(depth === 0 ? 6 : 3);
    for (let k = 0; k < n; k++) terms.push(this.term(depth));
    return {
      src: terms.map((t) => t.src).join(''),
      sample: (rnd) => terms.map((t) => t.sample(rnd)).join(''),
      repeats: terms.some((t) => t.repeats),
    };
  }

  private term(depth: number): Node {
    const r = this.rnd();
    if (r < 0.08) return this.assertion();
    const atom = this.atom(depth);
    return this.rnd() < 0.35 ? this.quantified(atom) : atom;
  }

  private assertion(): Node {
    const src = this.pick(['^', '$', '\\b', '\\B']);
    const around = src === '^' || src === '$' ? ['', '', '\n'] : ['', ' ', 'a'];
    return { src, sample: (rnd) => around[Math.floor(rnd() * around.length)]! };
  }

  private quantified(atom: Node): Node {
    const r = atom.repeats ? 0.6 : this.rnd();
    let min: number;
    let max: number;
    let q: string;
    if (r < 0.2) [q, min, max] = ['*', 0, 4];
    else if (r < 0.4) [q, min, max] = ['+', 1, 4];
    else if (r < 0.55) {
      min = this.int(3);
      max = min + 3;
      q = `{${min},}`;
    } else if (r < 0.7) [q, min, max] = ['?', 0, 1];
    else if (r < 0.85) {
      min = this.int(4);
      max = min;
      q = `{${min}}`;
    } else {
      min = this.int(3);
      max = min + this.int(3);
      q = `{${min},${max}}`;
    }
    if (this.rnd() < 0.3) q += '?';
    return {
      src: atom.src + q,
      repeats: true,
      sample: (rnd) => {
        let s = '';
        const count = min + Math.floor(rnd() * (max - min + 1));
        for (let k = 0; k < count; k++) s += atom.sample(rnd);
        return s;
      },
    };
  }

  private atom(depth: number): Node {
    const r = this.rnd();
    if (r < 0.35) return this.literal();
    if (r < 0.45) return this.escape();
    if (r < 0.55) return this.dot();
    if (r < 0.72) return this.characterClass();
    if (r < 0.8) return this.braceLiteral();
    if (depth < 3) return this.group(depth + 1);
    return this.literal();
  }

  private literal(): Node {
    const c = this.pick(ALPHABET);
    const r = this.rnd();
    let src: string;
    if (SYNTAX.has(c)) src = `\\${c}`;
    else if (r < 0.15 && c.length === 1) src = `\\u${hex(c.charCodeAt(0), 4)}`;
    else if (r < 0.2 && c.length === 2) src = `\\u${hex(c.charCodeAt(0), 4)}\\u${hex(c.charCodeAt(1), 4)}`;
    else if (r < 0.25 && c.charCodeAt(0) < 256 && c.length === 1) src = `\\x${hex(c.charCodeAt(0), 2)}`;
    else if (r < 0.3 && c.length === 1 && c >= '\u0001' && c <= '\u001a')
      src = `\\c${String.fromCharCode(c.charCodeAt(0) + 64)}`;
    else if (r < 0.33 && c.length === 1 && c < '\u0100') src = `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`;
    else src = c;
    return { src, sample: () => c };
  }

  /**
   * Escapes with a meaning of their own: character sets, control characters, identity escapes, octal-looking digits.
   */
  private escape(): Node {
    const kind = this.int(8);
    if (kind < 3) return this.setEscape();
    if (kind === 3) {
      const [src, c] = this.pick([
        ['\\t', '\t'],
        ['\\n', '\n'],
        ['\\v', '\v'],
        ['\\f', '\f'],
        ['\\r', '\r'],
        ['\\0', '\0'],
      ] as const);
      return { src, sample: () => c };
    }
    if (kind === 4) {
      const letter = this.pick([
        'a',
        'e',
        'g',
        'h',
        'i',
        'j',
        'l',
        'm',
        'o',
        'q',
        'y',
        'z',
        'A',
        'C',
        'E',
        'G',
        'Q',
        'Z',
        'p',
        'P',
        'k',
      ]);
      return { src: `\\${letter}`, sample: () => letter };
    }
    if (kind === 5) {
      const c = this.pick(['-', ',', ':', '=', '!', '<', '>', '#', '@', '~', '"', "'", '%', '&', ' ', '_', 'é', '日']);
      return { src: `\\${c}`, sample: () => c };
    }
    if (kind === 6) {
      const [src, c] = this.pick([
        ['\\c', '\\c'],
        ['\\c1', '\\c1'],
        ['\\x', 'x'],
        ['\\x4', 'x4'],
        ['\\u', 'u'],
        ['\\u12', 'u12'],
        ['\\u{2}', 'uu'],
      ] as const);
      return { src, sample: () => c };
    }
    const digit = this.pick(['1', '2', '7', '8', '9']);
    return { src: `\\${digit}`, sample: () => String.fromCharCode(Number.parseInt(digit, 8) || digit.charCodeAt(0)) };
  }

  private setEscape(): Node {
    const letter = this.pick(['d', 'D', 'w', 'W', 's', 'S']);
    const members: Record<string, readonly string[]> = {
      d: ['0', '7', '9'],
      D: ['a', ' ', '日'],
      w: ['a', 'Z', '_', '5'],
      W: ['-', ' ', 'é', 'ſ', '\u212a'],
      s: [' ', '\t', '\n', '\u00a0', '\u2028', '\ufeff', '\u3000'],
      S: ['a', '\u180e', '\u0085', '\u200b'],
    };
    return { src: `\\${letter}`, sample: (rnd) => members[letter]![Math.floor(rnd() * members[letter]!.length)]! };
  }

  private dot(): Node {
    return { src: '.', sample: (rnd) => ALPHABET[Math.floor(rnd() * ALPHABET.length)]! };
  }

  /** `{`, `}` and `]` where JavaScript reads them as literal characters: `a{`, `{,3}`, `x{1,`, `]`. */
  private braceLiteral(): Node {
    const src = this.pick(['a{', '{,3}', 'x{1,', '}', 'b{1a}', '{', 'c{}', ']']);
    return { src, sample: () => src };
  }

  private group(depth: number): Node {
    const inner = this.disjunction(depth);
    const r = this.rnd();
    let open: string;
    if (r < 0.4) {
      open = '(';
      this.capturing++;
    } else if (r < 0.8) open = '(?:';
    else {
      open = `(?<g${this.groupNames++}>`;
      this.capturing++;
    }
    return { src: `${open}${inner.src})`, sample: (rnd) => inner.sample(rnd), repeats: inner.repeats };
  }

  private characterClass(): Node {
    if (this.rnd() < 0.05)
      return this.pick<Node>([
        { src: '[]', sample: () => 'a' },
        { src: '[^]', sample: () => '\n' },
      ]);
    const negated = this.rnd() < 0.25;
    const members: string[] = [];
    let body = '';
    if (this.rnd() < 0.1) {
      body += this.pick(['-', '^']);
      members.push(body);
    }
    for (let n = 1 + this.int(4); n > 0; n--) {
      const r = this.rnd();
      if (r < 0.4) {
        const c = this.pick(ALPHABET);
        body += c === ']' || c === '\\' || (c === '^' && body === '') ? `\\${c}` : c;
        members.push(c);
      } else if (r < 0.65) {
        const [lo, hi] = [this.pick(ALPHABET), this.pick(ALPHABET)].sort(
          (x, y) => x.charCodeAt(0) - y.charCodeAt(0),
        ) as [string, string];
        const end = (c: string): string =>
          c.length === 1 && !']\\-^'.includes(c) ? c : `\\u${hex(c.charCodeAt(0), 4)}`;
        body += `${end(lo[0]!)}-${end(hi[0]!)}`;
        members.push(lo[0]!, hi[0]!);
      } else if (r < 0.85) {
        const [e, member] = this.pick(CLASS_ESCAPES);
        body += e;
        members.push(member);
      } else {
        const e = this.pick(['\\d-z', 'a-\\s', '\\w-', '[', '.', '|', '(', '$', '-']);
        body += e;
        members.push(e.slice(-1));
      }
    }
    return { src: `[${negated ? '^' : ''}${body}]`, sample: (rnd) => members[Math.floor(rnd() * members.length)]! };
  }
}
