/**
 * The shape of one Group operation (protocol.md 4.3 `Group.functions[].operation`)
 * and the value helpers the operations share.
 *
 * An operation folds the values of its `input_field` over a group's records:
 * `init` makes the state, `add` folds one value in and returns the state
 * (a number for Count, an object mutated in place for Sum...), `result`
 * reads the output. States live one per group and function; `addColumn`
 * is the inner loop, so `add` allocates nothing per value where it can.
 */
import { Tagged, type Fields, type Value } from '../../engine/index.js';

export const GROUP_OPERATIONS = [
  'Count', 'Sum', 'Average', 'Min', 'Max', 'First', 'Last', 'Push', 'AddToSet', 'StandardDeviation', 'ApproxDistinct',
] as const;

export type GroupOperationName = (typeof GROUP_OPERATIONS)[number];

export interface GroupOperation<S = unknown> {
  readonly name: GroupOperationName;
  /** False only for Count, which counts records when it has no input_field. */
  readonly needsInput: boolean;
  readonly init: () => S;
  /** Folds in one record's value; undefined when the record lacks the field. */
  readonly add: (state: S, value: Value | undefined) => S;
  readonly result: (state: S) => Value;
  /**
   * Folds in every record: for each r, `states[groupOf[r]] = add(that state,
   * valueAt(rows[r], field))`. Each module writes this loop out itself so
   * its `add` is inlined there; a shared loop calling `add` through the
   * table would be a polymorphic call per record and function.
   */
  readonly addColumn: (states: S[], rows: readonly Fields[], groupOf: Int32Array, field: string | undefined) => void;
}

/**
 * A Float output: a whole float is tagged so it stays Float on the way out
 * (tagged.ts); a non-finite result (an overflowed sum) is null, which JSON
 * can carry.
 */
export function floatValue(n: number): Value {
  if (!Number.isFinite(n)) return null;
  return Number.isSafeInteger(n) ? new Tagged('Float', n) : n;
}

/**
 * The numeric value of a number-typed value as a float: Integer (number or
 * bigint), Float, Number and Decimal; undefined for anything else (text,
 * booleans, null, DateTimes, Durations are not averaged).
 */
export function numericValue(v: Value | undefined): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof Tagged) {
    if (v.type === 'Float' || v.type === 'Number') return v.value as number;
    if (v.type === 'Decimal') {
      const n = Number(v.value as string);
      return Number.isFinite(n) ? n : undefined;
    }
  }
  return undefined;
}
