/**
 * groupRows: the Group step's work over the working records, in one pass.
 *
 * Records are grouped by the values of `by_fields` under the engine's
 * equality (`hashKey`: 1 and 1.0 are one group, a DateTime and the same
 * instant as text too); a missing or null by-field groups under the string
 * "null" (protocol.md 4.3), as does the string "null" itself. Each group
 * becomes one record holding the by-fields (named as written, a dotted
 * by-field becomes a flat key; the value is the first record's) and one
 * member per function. Groups come out in order of first appearance; no
 * records, no groups.
 *
 * Linear in records x functions; per record it computes one key string and
 * calls each operation's `add`, allocating no closure.
 */
import { getPath, hashKey, type Fields, type Value } from '../../engine/index.js';
import { InvalidInput } from '../../errors.js';
import type { GroupFunction } from './compile-group.js';
import type { GroupOperation } from './group-operation.js';
import { GROUP_OPERATION_TABLE, isGroupOperationName } from './operation-table.js';

/** What a record lacking a by-field, or holding null there, groups under. */
export const MISSING_GROUP_VALUE = 'null';

const MISSING_KEY = hashKey(MISSING_GROUP_VALUE);
/** What a function without an input_field (Count) folds in for each record. */
const WHOLE_RECORD: Value = true;

interface Group {
  readonly first: Fields;
  readonly states: unknown[];
}

/**
 * One record per group: the by-fields, then each function's `output_field`.
 * REQUIRES: `byFields` and `functions` come from `compileGroup` (field paths
 * valid, output names safe and distinct). Throws InvalidInput for an
 * operation name it does not know. The records returned are frozen.
 */
export function groupRows(rows: readonly Fields[], byFields: readonly string[], functions: readonly GroupFunction[]): Fields[] {
  const operations = functions.map((fn) => operationFor(fn.operation));
  const inputs = functions.map((fn) => fn.input_field);
  const groups = new Map<string, Group>();
  for (const row of rows) {
    const key = groupKey(row, byFields);
    let group = groups.get(key);
    if (group === undefined) {
      group = { first: row, states: operations.map((op) => op.init()) };
      groups.set(key, group);
    }
    const states = group.states;
    for (let i = 0; i < operations.length; i++) {
      const input = inputs[i];
      states[i] = operations[i]!.add(states[i], input === undefined ? WHOLE_RECORD : getPath(row, input));
    }
  }
  const out: Fields[] = [];
  for (const group of groups.values()) {
    const record: Record<string, Value> = {};
    for (const field of byFields) record[field] = groupValue(getPath(group.first, field));
    for (let i = 0; i < operations.length; i++) record[functions[i]!.output_field] = operations[i]!.result(group.states[i]);
    out.push(Object.freeze(record));
  }
  return out;
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

/** One field: its value's key. Several: the keys length-prefixed, so no two lists of keys join alike. */
function groupKey(row: Fields, byFields: readonly string[]): string {
  if (byFields.length === 1) return valueKey(getPath(row, byFields[0]!));
  let key = '';
  for (const field of byFields) {
    const part = valueKey(getPath(row, field));
    key += `${part.length}:${part}`;
  }
  return key;
}
