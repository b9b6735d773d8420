/**
 * An upper estimate of the size of the program RE2 compiles a pattern into,
 * kept while the pattern is scanned once, left to right, with an explicit
 * stack instead of recursion.
 *
 * Why estimate at all: RE2 expands counted repetition (`x{m,n}` becomes n
 * copies of x), so a 1,000-character pattern can compile into 150,000
 * instructions, which costs half a second to compile and milliseconds per
 * character to match. The estimate lets compilePattern refuse such a pattern
 * before the engine spends that time. It counts one instruction per literal, class
 * or assertion, two per group or `*`/`+`/`?`, one per alternation, and
 * n copies plus (n - m) choices for `{m,n}`, plus two for the program's
 * ends. RE2's real program is never larger (a spec checks it on generated
 * patterns) and at most about 4 times smaller.
 */

interface Frame {
  /** Instructions of the group so far. */
  total: number;
  /** Instructions of the last atom, the one a quantifier would repeat. */
  last: number;
}

export class ProgramSize {
  /** Every program starts with a fail and ends with a match instruction. */
  private readonly frames: Frame[] = [{ total: 2, last: 0 }];

  private get top(): Frame {
    return this.frames[this.frames.length - 1]!;
  }

  /** A literal, class, escape or assertion worth `n` instructions. */
  atom(instructions = 1): void {
    this.top.total += instructions;
    this.top.last = instructions;
  }

  /** `(`: a group starts. */
  open(): void {
    this.frames.push({ total: 0, last: 0 });
  }

  /** `)`: the group ends and becomes the last atom of its parent. An unbalanced `)` counts as a literal. */
  close(): void {
    const group = this.frames.length > 1 ? this.frames.pop()! : { total: -1, last: 0 };
    this.atom(group.total + 2);
  }

  /** `|`: one choice instruction; nothing before it can be repeated. */
  alternate(): void {
    this.top.total += 1;
    this.top.last = 0;
  }

  /** `*`, `+` or `?` (also a lazy `?`): a loop or choice instruction, and one more when the atom can match empty. */
  quantify(): void {
    this.top.total += 2;
    this.top.last += 2;
  }

  /** `{min}`, `{min,}` (max undefined) or `{min,max}` applied to the last atom. */
  repeat(min: number, max: number | undefined): void {
    const copies = Math.max(max ?? min + 1, 1);
    const choices = Math.max(copies - min, 0) + (max === undefined ? 1 : 0);
    const repeated = this.top.last * copies + choices;
    this.top.total += repeated - this.top.last;
    this.top.last = repeated;
  }

  /** The estimate for the whole pattern, groups left open included. */
  get total(): number {
    return this.frames.reduce((sum, f) => sum + f.total, 0);
  }
}
