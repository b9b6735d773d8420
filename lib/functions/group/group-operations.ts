/**
 * Every Group operation (protocol.md 4.3 `Group.functions[].operation`) as
 * a row of one table, typed so a missing operation does not compile (each
 * row's `name` equals its key: spec/functions/group.spec.ts).
 *
 * An operation folds the values of its `input_field` over a group's records:
 * `init` makes the state, `add` folds one value in and returns the state
 * (a number for Count, an object mutated in place for Sum...), `result`
 * reads the output. States live one per group and function; `addColumn`
 * is the inner loop, so `add` allocates nothing per value where it can.
 */
import { getPath, hashKey, integerValue, sortCompare, Tagged, type Fields, type Value } from '../../engine/index.js';
import { DecimalSum } from './decimal-sum.js';
import { DistinctCounter } from './distinct-counter.js';

export const GROUP_OPERATIONS = [
  'Count',
  'Sum',
  'Average',
  'Min',
  'Max',
  'First',
  'Last',
  'Push',
  'AddToSet',
  'StandardDeviation',
  'ApproxDistinct',
] as const;

export type GroupOperationName = (typeof GROUP_OPERATIONS)[number];

/** Declared with methods, so an operation over its own state type `S` fits the table's `GroupOperation<unknown>`. */
export interface GroupOperation<S = unknown> {
  readonly name: GroupOperationName;
  /** False only for Count, which counts records when it has no input_field. */
  readonly needsInput: boolean;
  init(): S;
  /** Folds in one record's value; undefined when the record lacks the field. */
  add(state: S, value: Value | undefined): S;
  result(state: S): Value;
  /**
   * Folds in every record: for each r, `states[groupOf[r]] = add(that state,
   * valueAt(rows[r], field))`. Each row of the table writes this loop out
   * itself so its `add` is inlined there; a shared loop calling `add`
   * through the table would be a polymorphic call per record and function.
   */
  addColumn(states: S[], rows: readonly Fields[], groupOf: Int32Array, field: string | undefined): void;
}

/** What a function without an input_field (Count) reads for each record. */
export const WHOLE_RECORD: Value = true;

/**
 * The value at `field` (getPath's rules: an exact top-level key first, then
 * the dotted path), read as a plain property first, the common case;
 * WHOLE_RECORD when `field` is undefined. Field names never reach
 * `__proto__` or `constructor` (compileGroup refuses them).
 */
export function valueAt(row: Fields, field: string | undefined): Value | undefined {
  if (field === undefined) return WHOLE_RECORD;
  const value = row[field];
  // A plain read may reach Object.prototype, whose members are all functions, and a field value never is one.
  if (value !== undefined) return typeof value === 'function' ? undefined : value;
  return field.includes('.') ? getPath(row, field) : undefined;
}

/**
 * A Float output: a whole float is tagged so it stays Float on the way out
 * (tagged.ts); a non-finite result (an overflowed sum) is null, which JSON
 * can carry.
 */
export function floatValue(float: number): Value {
  if (!Number.isFinite(float)) return null;
  return Number.isSafeInteger(float) ? new Tagged('Float', float) : float;
}

/**
 * The numeric value of a number-typed value as a float: Integer (number or
 * bigint), Float, Number and Decimal; undefined for anything else (text,
 * booleans, null, DateTimes, Durations are not averaged).
 */
export function numericValue(value: Value | undefined): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Tagged) {
    if (value.type === 'Float' || value.type === 'Number') return value.value as number;
    if (value.type === 'Decimal') {
      const parsed = Number(value.value as string);
      return Number.isFinite(parsed) ? parsed : undefined;
    }
  }
  return undefined;
}

/*
 * Count: an Integer. Without `input_field` it counts the group's records;
 * with one, the records whose field is present and not null (SQL's
 * COUNT(column)).
 */

function addCount(count: number, value: Value | undefined): number {
  return value === undefined || value === null ? count : count + 1;
}

const count: GroupOperation<number> = {
  name: 'Count',
  needsInput: false,
  init: () => 0,
  add: addCount,
  result: (total) => total,
  addColumn: (states, rows, groupOf, field) => {
    for (let i = 0; i < rows.length; i++) {
      const group = groupOf[i]!;
      states[group] = addCount(states[group]!, valueAt(rows[i]!, field));
    }
  },
};

/*
 * Sum of the number-typed values (others are skipped), exact where the
 * inputs are:
 * - only Integers: an Integer, exact past 2^53 (a bigint); a total beyond
 *   the 64-bit range is given as a Float;
 * - Decimals (with or without Integers): a Decimal, summed exactly
 *   (decimal-sum.ts);
 * - any Float or Number: a Float.
 * No numeric value at all: the Integer 0.
 */

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

function addInteger(state: SumState, value: number): void {
  const total = state.int + value;
  if (Number.isSafeInteger(total)) {
    state.int = total;
  } else {
    state.big += BigInt(state.int) + BigInt(value);
    state.int = 0;
  }
}

function addFloat(state: SumState, value: number): void {
  state.float += value;
  state.hasFloat = true;
}

function addTagged(state: SumState, value: Tagged): void {
  if (value.type === 'Float' || value.type === 'Number') addFloat(state, value.value as number);
  else if (value.type === 'Decimal' && !(state.decimal ??= new DecimalSum()).add(value.value as string)) {
    addFloat(state, Number(value.value));
  }
}

function integerTotal(state: SumState): bigint {
  return state.big + BigInt(state.int);
}

function addSum(state: SumState, value: Value | undefined): SumState {
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) addInteger(state, value);
    else addFloat(state, value);
  } else if (typeof value === 'bigint') {
    state.big += value;
  } else if (value instanceof Tagged) {
    addTagged(state, value);
  }
  return state;
}

const sum: GroupOperation<SumState> = {
  name: 'Sum',
  needsInput: true,
  init: () => new SumState(),
  add: addSum,
  result: (state): Value => {
    if (state.hasFloat) return floatValue(state.float + Number(integerTotal(state)) + (state.decimal?.toNumber() ?? 0));
    if (state.decimal !== undefined) return new Tagged('Decimal', state.decimal.toText(integerTotal(state)));
    if (state.big === 0n) return state.int;
    const total = integerTotal(state);
    if (total < INT64_MIN || total > INT64_MAX) return floatValue(Number(total));
    return integerValue(total);
  },
  addColumn: (states, rows, groupOf, field) => {
    for (let i = 0; i < rows.length; i++) {
      const group = groupOf[i]!;
      states[group] = addSum(states[group]!, valueAt(rows[i]!, field));
    }
  },
};

/* Average: the mean of the number-typed values as a Float (60 is Float 60); null when there are none. */

interface Mean {
  total: number;
  count: number;
}

function addMean(state: Mean, value: Value | undefined): Mean {
  const number = numericValue(value);
  if (number !== undefined) {
    state.total += number;
    state.count++;
  }
  return state;
}

const average: GroupOperation<Mean> = {
  name: 'Average',
  needsInput: true,
  init: () => ({ total: 0, count: 0 }),
  add: addMean,
  result: (state) => (state.count === 0 ? null : floatValue(state.total / state.count)),
  addColumn: (states, rows, groupOf, field) => {
    for (let i = 0; i < rows.length; i++) {
      const group = groupOf[i]!;
      states[group] = addMean(states[group]!, valueAt(rows[i]!, field));
    }
  },
};

/*
 * Min and Max share the query engine's sort order (numbers across Integer,
 * Float and Decimal; DateTimes by instant; values of different kinds
 * ordered by kind, as a sort would), with fast paths for two numbers or two
 * strings. Null and missing values are skipped; the value kept has its own
 * input type; null when there are none.
 */

/** Negative when `a` sorts before `b`. */
function order(a: Value, b: Value): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return sortCompare(a, b);
}

/** Min or Max: keeps the value that `wins` against the one held (by `order`). */
function extremum(name: 'Min' | 'Max', wins: (ordered: number) => boolean): GroupOperation<Value | undefined> {
  const add = (held: Value | undefined, value: Value | undefined): Value | undefined =>
    value === undefined || value === null ? held : held === undefined || wins(order(value, held)) ? value : held;
  return {
    name,
    needsInput: true,
    init: () => undefined,
    add,
    result: (held) => held ?? null,
    addColumn: (states, rows, groupOf, field) => {
      for (let i = 0; i < rows.length; i++) {
        const group = groupOf[i]!;
        states[group] = add(states[group]!, valueAt(rows[i]!, field));
      }
    },
  };
}

/* First: the value in the group's first record (records in working order), null when that record lacks the field. */

const UNSET = Symbol('unset');

function addFirst(held: Value | typeof UNSET, value: Value | undefined): Value | typeof UNSET {
  return held === UNSET ? (value ?? null) : held;
}

const first: GroupOperation<Value | typeof UNSET> = {
  name: 'First',
  needsInput: true,
  init: () => UNSET,
  add: addFirst,
  result: (held) => (held === UNSET ? null : held),
  addColumn: (states, rows, groupOf, field) => {
    for (let i = 0; i < rows.length; i++) {
      const group = groupOf[i]!;
      states[group] = addFirst(states[group]!, valueAt(rows[i]!, field));
    }
  },
};

/* Last: the value in the group's last record, null when that record lacks the field. */

function addLast(_held: Value, value: Value | undefined): Value {
  return value ?? null;
}

const last: GroupOperation<Value> = {
  name: 'Last',
  needsInput: true,
  init: () => null,
  add: addLast,
  result: (held) => held,
  addColumn: (states, rows, groupOf, field) => {
    for (let i = 0; i < rows.length; i++) {
      const group = groupOf[i]!;
      states[group] = addLast(states[group]!, valueAt(rows[i]!, field));
    }
  },
};

/* Push: an Array of the group's values in record order; records lacking the field add nothing, a null value is kept. */

function addPush(items: Value[], value: Value | undefined): Value[] {
  if (value !== undefined) items.push(value);
  return items;
}

const push: GroupOperation<Value[]> = {
  name: 'Push',
  needsInput: true,
  init: () => [],
  add: addPush,
  result: (items) => Object.freeze(items),
  addColumn: (states, rows, groupOf, field) => {
    for (let i = 0; i < rows.length; i++) {
      const group = groupOf[i]!;
      states[group] = addPush(states[group]!, valueAt(rows[i]!, field));
    }
  },
};

/*
 * AddToSet: an Array of the group's distinct values (the engine's equality:
 * 1 and 1.0 are one value, objects compare member by member), in order of
 * first appearance; records lacking the field add nothing.
 */

interface Distinct {
  seen: Set<string>;
  items: Value[];
}

function addDistinct(state: Distinct, value: Value | undefined): Distinct {
  if (value === undefined) return state;
  const key = hashKey(value);
  if (!state.seen.has(key)) {
    state.seen.add(key);
    state.items.push(value);
  }
  return state;
}

const addToSet: GroupOperation<Distinct> = {
  name: 'AddToSet',
  needsInput: true,
  init: () => ({ seen: new Set(), items: [] }),
  add: addDistinct,
  result: (state) => Object.freeze(state.items),
  addColumn: (states, rows, groupOf, field) => {
    for (let i = 0; i < rows.length; i++) {
      const group = groupOf[i]!;
      states[group] = addDistinct(states[group]!, valueAt(rows[i]!, field));
    }
  },
};

/*
 * StandardDeviation: the POPULATION standard deviation (divide by n, like
 * MongoDB's $stdDevPop) of the number-typed values, as a Float; one value
 * gives 0, none gives null. Population rather than sample because a group of
 * one record has a defined answer. Welford's update keeps it stable in one
 * pass.
 */

interface Welford {
  count: number;
  mean: number;
  m2: number;
}

function addWelford(state: Welford, value: Value | undefined): Welford {
  const number = numericValue(value);
  if (number !== undefined) {
    state.count++;
    const delta = number - state.mean;
    state.mean += delta / state.count;
    state.m2 += delta * (number - state.mean);
  }
  return state;
}

const standardDeviation: GroupOperation<Welford> = {
  name: 'StandardDeviation',
  needsInput: true,
  init: () => ({ count: 0, mean: 0, m2: 0 }),
  add: addWelford,
  result: (state) => (state.count === 0 ? null : floatValue(Math.sqrt(state.m2 / state.count))),
  addColumn: (states, rows, groupOf, field) => {
    for (let i = 0; i < rows.length; i++) {
      const group = groupOf[i]!;
      states[group] = addWelford(states[group]!, valueAt(rows[i]!, field));
    }
  },
};

/*
 * ApproxDistinct: an Integer estimate of the number of distinct values
 * (engine equality), records lacking the field skipped. Exact up to 256
 * distinct values, then HyperLogLog with at most 4 KiB per group
 * (distinct-counter.ts).
 */

function addHashed(counter: DistinctCounter, value: Value | undefined): DistinctCounter {
  if (value !== undefined) counter.add(hashKey(value));
  return counter;
}

const approxDistinct: GroupOperation<DistinctCounter> = {
  name: 'ApproxDistinct',
  needsInput: true,
  init: () => new DistinctCounter(),
  add: addHashed,
  result: (counter) => counter.estimate(),
  addColumn: (states, rows, groupOf, field) => {
    for (let i = 0; i < rows.length; i++) {
      const group = groupOf[i]!;
      states[group] = addHashed(states[group]!, valueAt(rows[i]!, field));
    }
  },
};

export const GROUP_OPERATION_TABLE: Readonly<Record<GroupOperationName, GroupOperation<unknown>>> = Object.freeze({
  Count: count,
  Sum: sum,
  Average: average,
  Min: extremum('Min', (ordered) => ordered < 0),
  Max: extremum('Max', (ordered) => ordered > 0),
  First: first,
  Last: last,
  Push: push,
  AddToSet: addToSet,
  StandardDeviation: standardDeviation,
  ApproxDistinct: approxDistinct,
});

export function isGroupOperationName(name: unknown): name is GroupOperationName {
  return typeof name === 'string' && Object.hasOwn(GROUP_OPERATION_TABLE, name);
}
