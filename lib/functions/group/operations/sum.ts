/**
 * Sum of the number-typed values (others are skipped), exact where the
 * inputs are:
 * - only Integers: an Integer, exact past 2^53 (a bigint); a total beyond
 *   the 64-bit range is given as a Float;
 * - Decimals (with or without Integers): a Decimal, summed exactly
 *   (decimal-sum.ts);
 * - any Float or Number: a Float.
 * No numeric value at all: the Integer 0.
 */
import { integerValue, Tagged, type Value } from '../../../engine/index.js';
import { DecimalSum } from '../decimal-sum.js';
import { floatValue, type GroupOperation } from '../group-operation.js';
import { valueAt } from '../field-value.js';

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

class SumState {
  /** Integers while the total stays a safe integer; the overflow moves to `big`. */
  int = 0;
  big = 0n;
  float = 0;
  hasFloat = false;
  decimal: DecimalSum | undefined = undefined;
}

function addInteger(s: SumState, v: number): void {
  const t = s.int + v;
  if (Number.isSafeInteger(t)) {
    s.int = t;
  } else {
    s.big += BigInt(s.int) + BigInt(v);
    s.int = 0;
  }
}

function addFloat(s: SumState, v: number): void {
  s.float += v;
  s.hasFloat = true;
}

function addTagged(s: SumState, v: Tagged): void {
  if (v.type === 'Float' || v.type === 'Number') addFloat(s, v.value as number);
  else if (v.type === 'Decimal' && !(s.decimal ??= new DecimalSum()).add(v.value as string)) addFloat(s, Number(v.value));
}

function integerTotal(s: SumState): bigint {
  return s.big + BigInt(s.int);
}

function add(s: SumState, v: Value | undefined): SumState {
  if (typeof v === 'number') {
    if (Number.isSafeInteger(v)) addInteger(s, v);
    else addFloat(s, v);
  } else if (typeof v === 'bigint') {
    s.big += v;
  } else if (v instanceof Tagged) {
    addTagged(s, v);
  }
  return s;
}

export const sum: GroupOperation<SumState> = {
  name: 'Sum',
  needsInput: true,
  init: () => new SumState(),
  add,
  result: (s): Value => {
    if (s.hasFloat) return floatValue(s.float + Number(integerTotal(s)) + (s.decimal?.toNumber() ?? 0));
    if (s.decimal !== undefined) {
      s.decimal.addInteger(integerTotal(s));
      return new Tagged('Decimal', s.decimal.toText());
    }
    if (s.big === 0n) return s.int;
    const total = integerTotal(s);
    if (total < INT64_MIN || total > INT64_MAX) return floatValue(Number(total));
    return integerValue(total);
  },
  addColumn: (states, rows, groupOf, field) => {
    for (let r = 0; r < rows.length; r++) {
      const g = groupOf[r]!;
      states[g] = add(states[g]!, valueAt(rows[r]!, field));
    }
  },
};
