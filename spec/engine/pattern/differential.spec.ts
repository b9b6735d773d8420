/**
 * Differential test of the translation: seeded random patterns in JavaScript
 * syntax (random-patterns.ts) and texts biased to match them, each pair
 * answered by compilePattern and by V8's RegExp. A pattern is tried with
 * no flag, or with `(?i)`, `(?s)` or `(?is)` in front against RegExp's i and
 * s flags. On every pair the answers are equal, or the translation refuses
 * the pattern for a reason it states on purpose (a backreference, a repeat
 * count RE2 cannot expand, a program too large, `\u{...}`); a pattern V8
 * rejects is refused too. A disagreement is shrunk before it is reported.
 *
 * PATTERN_FUZZ_SEED replays a run (the seed is in every failure message);
 * PATTERN_FUZZ_PAIRS runs longer, e.g. PATTERN_FUZZ_PAIRS=2000000 (about
 * a minute and a quarter on a quiet machine).
 */
import { expect } from 'chai';
import { compilePattern, translatePattern } from '../../../lib/engine/pattern/index.js';
import { mulberry32 } from '../../helpers/seeded-random.js';
import { PatternGenerator } from './random-patterns.js';

const SEED = Number(process.env.PATTERN_FUZZ_SEED ?? 20_240_601) >>> 0;
const PAIRS = Number(process.env.PATTERN_FUZZ_PAIRS ?? 40_000);
const TEXTS_PER_PATTERN = 8;
/** Flags a pattern is tried with, as RegExp flags; the translation gets them as a leading `(?flags)`. */
const FLAG_CHOICES = ['', '', '', '', 'i', 'i', 's', 'is'];

/** Refusals of patterns V8 accepts that the translation makes on purpose, each with its reason. */
const DELIBERATE_REFUSALS = [
  /^too large:/,
  /^repeat counts above 1000/,
  /read by JavaScript without the u flag as the letter u repeated/,
];
/**
 * A backreference refusal is right only when the pattern has that many capturing groups (else `\N` is an octal escape).
 */
const BACKREFERENCE = /^backreferences such as \\(\d+) are not supported$/;

interface Case {
  readonly pattern: string;
  readonly flags: string;
  /** Capturing groups in the pattern, as the generator built it. */
  readonly groups: number;
  readonly text?: string;
}

function deliberate(problem: string, c: Case): boolean {
  const backreference = BACKREFERENCE.exec(problem);
  if (backreference !== null) return Number(backreference[1]) <= c.groups;
  return DELIBERATE_REFUSALS.some((r) => r.test(problem));
}

interface Disagreement extends Case {
  /** A different answer on `text`, or a pattern only one side accepts. */
  readonly kind: 'answer' | 'accepted' | 'refused';
  readonly ours: string;
  readonly v8: string;
}

const ours = (c: Case): string => (c.flags === '' ? c.pattern : `(?${c.flags})${c.pattern}`);

function v8Regex(c: Case): RegExp | string {
  try {
    return new RegExp(c.pattern, c.flags);
  } catch (err) {
    return (err as Error).message;
  }
}

/** RE2's `\p{Name}` classes, an extra with a meaning of its own (JavaScript without the u flag reads `p{Name}`). */
const UNICODE_CLASS = /\\[pP]\{[A-Za-z_]+\}/;

/** What went wrong with one pattern and its texts, if anything. */
function check(c: Case, texts: readonly string[]): Disagreement | undefined {
  if (UNICODE_CLASS.test(c.pattern)) return undefined;
  const compiled = compilePattern(ours(c));
  const re = v8Regex(c);
  if (typeof re === 'string') return compiled.ok ? { ...c, kind: 'accepted', ours: 'accepted', v8: re } : undefined;
  if (!compiled.ok) {
    return deliberate(compiled.problem, c)
      ? undefined
      : { ...c, kind: 'refused', ours: `refused: ${compiled.problem}`, v8: 'accepted' };
  }
  for (const text of texts) {
    const answer = compiled.pattern.test(text);
    if (answer !== re.test(text)) return { ...c, text, kind: 'answer', ours: String(answer), v8: String(!answer) };
  }
  return undefined;
}

/**
 * A smaller pattern and text that still disagree: one or two characters are
 * dropped at a time while the disagreement stays, so a report shows its cause.
 */
function shrink(d: Disagreement): Disagreement {
  let best = d;
  for (let changed = true; changed;) {
    changed = false;
    for (const field of ['pattern', 'text'] as const) {
      const value = best[field];
      if (value === undefined) continue;
      const cuts = [1, 2].flatMap((width) =>
        Array.from({ length: Math.max(value.length - width + 1, 0) }, (_, i) => [i, width] as const),
      );
      for (const [i, width] of cuts) {
        const candidate: Case = { ...best, [field]: value.slice(0, i) + value.slice(i + width) };
        const again = check(candidate, candidate.text === undefined ? [] : [candidate.text]);
        if (again?.kind === best.kind) {
          best = again;
          changed = true;
          break;
        }
      }
    }
  }
  return best;
}

function describe1(d: Disagreement): string {
  const t = translatePattern(ours(d));
  const translation = 're2' in t ? `translated to ${JSON.stringify(t.re2)}` : `refused: ${t.problem}`;
  const on = d.kind === 'answer' ? ` on ${JSON.stringify(d.text)}` : '';
  return `  /${d.pattern}/${d.flags} (${JSON.stringify(d.pattern)})${on}: ours ${d.ours}, V8 ${d.v8} (${translation})`;
}

describe('compilePattern against V8 RegExp on random patterns', function () {
  this.timeout(Math.max(20_000, PAIRS / 2));

  it(`answers ${PAIRS} random pattern and text pairs as RegExp does, or refuses on purpose (seed ${SEED})`, () => {
    const rnd = mulberry32(SEED);
    const generate = new PatternGenerator(rnd);
    const found: Disagreement[] = [];
    let [pairs, matched, refused] = [0, 0, 0];
    while (pairs < PAIRS) {
      const node = generate.pattern();
      const c: Case = {
        pattern: node.src,
        flags: FLAG_CHOICES[Math.floor(rnd() * FLAG_CHOICES.length)]!,
        groups: node.groups,
      };
      const texts = Array.from({ length: TEXTS_PER_PATTERN }, () => generate.text(node));
      pairs += texts.length;
      const d = check(c, texts);
      if (d !== undefined) found.push(shrink(d));
      const compiled = compilePattern(ours(c));
      if (!compiled.ok) refused += texts.length;
      else matched += texts.filter((t) => compiled.pattern.test(t)).length;
    }
    const report = found.slice(0, 12).map(describe1).join('\n');
    expect(found, `${found.length} disagreements; PATTERN_FUZZ_SEED=${SEED} replays them:\n${report}\n`).to.deep.equal(
      [],
    );
    // The texts are meant to sit near the boundary, and few patterns to be refused.
    expect(matched / pairs, 'share of matching pairs').to.be.within(0.25, 0.75);
    expect(refused / pairs, 'share of pairs with a refused pattern').to.be.below(0.1);
  });
});
