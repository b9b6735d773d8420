/**
 * groupRows: the Group step's work over the working records.
 *
 * Records are grouped by the values of `by_fields` under the engine's
 * equality (`hashKey`: 1, 1.0 and Decimal "1" are one group; a DateTime is
 * not the same group as text spelling it, as in a hash index); a missing or null by-field groups under the string
 * "null" (protocol.md 4.3), as does the string "null" itself. Each group
 * becomes one record holding the by-fields (named as written, a dotted
 * by-field becomes a flat key; the value is the first record's) and one
 * member per function. Groups come out in order of first appearance; no
 * records, no groups.
 *
 * Linear in records x functions, in two passes: the first gives each record
 * its group number (grouping by one text field builds no key string), the
 * second folds each function's column in with the operation's own loop
 * (group-operation.ts `addColumn`), so per record and function there is no
 * polymorphic call and no allocation.
 */
import { hashKey, type Fields, type Value } from '../../engine/index.js';
import { InvalidInput } from '../../errors.js';
import type { GroupFunction } from './compile-group.js';
import { valueAt } from './field-value.js';
import type { GroupOperation } from './group-operation.js';
import { GROUP_OPERATION_TABLE, isGroupOperationName } from './operation-table.js';

/** What a record lacking a by-field, or holding null there, groups under. */
export const MISSING_GROUP_VALUE = 'null';

const MISSING_KEY = hashKey(MISSING_GROUP_VALUE);

/**
 * One record per group: the by-fields, then each function's `output_field`.
 * REQUIRES: `byFields` and `functions` come from `compileGroup` (field paths
 * valid, output names safe and distinct). Throws InvalidInput for an
 * operation name it does not know. The records returned are frozen.
 */
export function groupRows(rows: readonly Fields[], byFields: readonly string[], functions: readonly GroupFunction[]): Fields[] {
  const operations = functions.map((fn) => operationFor(fn.operation));
  const index = new GroupIndex(byFields);
  const groupOf = new Int32Array(rows.length);
  for (let r = 0; r < rows.length; r++) groupOf[r] = index.groupOf(rows[r]!);
  const firsts = index.firstRecords;
  const results = operations.map((op, i) => {
    const states = firsts.map(() => op.init());
    op.addColumn(states, rows, groupOf, functions[i]!.input_field);
    return states.map((state) => op.result(state));
  });
  return firsts.map((first, g) => {
    const record: Record<string, Value> = {};
    for (const field of byFields) record[field] = groupValue(valueAt(first, field));
    for (let i = 0; i < functions.length; i++) record[functions[i]!.output_field] = results[i]![g]!;
    return Object.freeze(record);
  });
}

function operationFor(name: string): GroupOperation<unknown> {
  if (!isGroupOperationName(name)) throw new InvalidInput(`unknown Group operation '${name.slice(0, 60)}'`);
  return GROUP_OPERATION_TABLE[name];
}

function groupValue(v: Value | undefined): Value {
  return v === undefined || v === null ? MISSING_GROUP_VALUE : v;
}

function valueKey(v: Value | undefined): string {
  return v === undefined || v === null ? MISSING_KEY : hashKey(v);
}

/**
 * Groups by key, in order of appearance. With one by-field, a string value
 * is looked up by the string itself (a separate map, so no key string is
 * built per record: the common case of grouping by a text field costs one
 * lookup); other values by their `hashKey`. A missing or null value goes
 * with the string "null". Several by-fields: their keys length-prefixed.
 */
class GroupIndex {
  /** The first record of each group, by group number (order of appearance). */
  readonly firstRecords: Fields[] = [];
  private readonly byText = new Map<string, number>();
  private readonly byKey = new Map<string, number>();

  constructor(private readonly byFields: readonly string[]) {}

  /** The record's group number, opening a new group for a new key. */
  groupOf(row: Fields): number {
    const text = this.textOf(row);
    const map = text === undefined ? this.byKey : this.byText;
    const key = text ?? this.keyOf(row);
    let g = map.get(key);
    if (g === undefined) {
      g = this.firstRecords.length;
      this.firstRecords.push(row);
      map.set(key, g);
    }
    return g;
  }

  /** The single by-field's value when it is text (or missing or null), else undefined. */
  private textOf(row: Fields): string | undefined {
    if (this.byFields.length !== 1) return undefined;
    const v = valueAt(row, this.byFields[0]!);
    return typeof v === 'string' ? v : v === undefined || v === null ? MISSING_GROUP_VALUE : undefined;
  }

  private keyOf(row: Fields): string {
    if (this.byFields.length === 1) return valueKey(valueAt(row, this.byFields[0]!));
    let key = '';
    for (const field of this.byFields) {
      const part = valueKey(valueAt(row, field));
      key += `${part.length}:${part}`;
    }
    return key;
  }
}
