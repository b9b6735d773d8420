/**
 * A set of UTF-16 code units, what one position of a JavaScript pattern
 * without the u flag matches: a class, an escape such as `\d`, or one
 * character. Classes are rebuilt from these sets rather than copied, since
 * RE2 reads some class text differently (`[a-\s]`, `[\S]`, octal escapes).
 * Kept as sorted, disjoint, non-adjacent ranges; RE2-only members such as
 * `\p{L}` ride along as RE2 text (`extra`) and are never complemented.
 */

export type Range = readonly [number, number];

const MAX_UNIT = 0xffff;

export class UnitSet {
  private constructor(
    readonly ranges: readonly Range[],
    /** RE2 class items copied as written (`\p{Greek}`). */
    readonly extra = '',
  ) {}

  static of(ranges: readonly Range[], extra = ''): UnitSet {
    return new UnitSet(normalize(ranges), extra);
  }

  static unit(unit: number): UnitSet {
    return new UnitSet([[unit, unit]]);
  }

  static readonly EMPTY = new UnitSet([]);

  union(other: UnitSet): UnitSet {
    return UnitSet.of([...this.ranges, ...other.ranges], this.extra + other.extra);
  }

  /** Every code unit not in the set. Only for sets without RE2-only members. */
  complement(): UnitSet {
    const out: Range[] = [];
    let from = 0;
    for (const [lo, hi] of this.ranges) {
      if (lo > from) out.push([from, lo - 1]);
      from = hi + 1;
    }
    if (from <= MAX_UNIT) out.push([from, MAX_UNIT]);
    return new UnitSet(out);
  }

  has(unit: number): boolean {
    let lo = 0;
    let hi = this.ranges.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const [low, high] = this.ranges[mid]!;
      if (unit < low) hi = mid - 1;
      else if (unit > high) lo = mid + 1;
      else return true;
    }
    return false;
  }

  /** The one code unit in the set, or undefined when it holds none, several or RE2-only members. */
  get single(): number | undefined {
    const only = this.ranges.length === 1 && this.extra === '' ? this.ranges[0]! : undefined;
    return only !== undefined && only[0] === only[1] ? only[0] : undefined;
  }

  get isEmpty(): boolean {
    return this.ranges.length === 0 && this.extra === '';
  }
}

function normalize(ranges: readonly Range[]): Range[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

const char = (c: string): Range => [c.charCodeAt(0), c.charCodeAt(0)];

/** `\d`: ASCII digits in both dialects. */
export const DIGITS = UnitSet.of([[0x30, 0x39]]);
/** `\w`: ASCII letters, digits and `_` (JavaScript without the u flag, as RE2). */
export const WORD = UnitSet.of([[0x30, 0x39], [0x41, 0x5a], char('_'), [0x61, 0x7a]]);
/** `\s`: JavaScript's WhiteSpace and LineTerminator, wider than RE2's ASCII `\s`. */
export const SPACE = UnitSet.of([
  [0x09, 0x0d],
  char(' '),
  char('\u00a0'),
  char('\u1680'),
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  char('\u202f'),
  char('\u205f'),
  char('\u3000'),
  char('\ufeff'),
]);
/** What `.` does not match: JavaScript's line terminators (RE2's `.` only leaves out \n). */
export const LINE_TERMINATORS = UnitSet.of([char('\n'), char('\r'), [0x2028, 0x2029]]);
