/**
 * The Group step's core (protocol.md 4.3): `compileGroup` checks its
 * members at save time (`by_fields` [string], `functions` [{output_field,
 * operation, input_field?}]; field names are literal, no placeholders;
 * unknown members, operations and hostile names fail with the definition
 * path), and `groupRows` groups the working records at run time.
 *
 * Records are grouped by the values of `by_fields` under the engine's
 * `hashKey` (1, 1.0 and Decimal "1" are one group; a DateTime and text
 * spelling the same instant are two: records hold DateTimes for bare RFC
 * 3339 text anyway). A missing or null by-field groups under the string
 * "null" (protocol.md 4.3), as does the string "null" itself. Each group
 * becomes one record holding the by-fields (named as written, a dotted
 * by-field becomes a flat key; the value is the first record's) and one
 * member per function. Groups come out in order of first appearance; no
 * records, no groups.
 *
 * Linear in records x functions, in two passes: the first gives each record
 * its group number (grouping by one text field builds no key string), the
 * second folds each function's column in with the operation's own loop
 * (group-operations.ts `addColumn`), so per record and function there is no
 * polymorphic call and no allocation.
 */
import {
  assertSafeKey,
  checkLimit,
  hashKey,
  isPlainObject,
  parseFieldPath,
  type Fields,
  type Value,
} from '../../engine/index.js';
import { InvalidInput } from '../../errors.js';
import { atPath, invalidAt, kindOfRaw } from '../definition-path.js';
import {
  GROUP_OPERATION_TABLE,
  isGroupOperationName,
  valueAt,
  type GroupOperation,
  type GroupOperationName,
} from './group-operations.js';

/** Fields one Group may group by. */
export const MAX_GROUP_BY_FIELDS = 32;
/** Output functions in one Group. */
export const MAX_GROUP_FUNCTIONS = 256;

export interface GroupFunction {
  readonly output_field: string;
  readonly operation: GroupOperationName;
  /** Absent only for Count (which then counts records). */
  readonly input_field?: string;
}

export interface GroupSpec {
  readonly by_fields: readonly string[];
  readonly functions: readonly GroupFunction[];
}

const STEP_MEMBERS = ['type', 'by_fields', 'functions'];
const FUNCTION_MEMBERS = ['output_field', 'operation', 'input_field'];

/**
 * Checks a Group step (`type`, if present, is not checked here: the step
 * table routes by it) and returns its frozen spec for `groupRows`.
 * Throws InvalidInput whose message starts with the offending member's path,
 * e.g. "functions[3].functions[0].operation: unknown Group operation 'Avg'".
 */
export function compileGroup(raw: unknown, path: string): GroupSpec {
  if (!isPlainObject(raw)) throw invalidAt(path, `expected a Group step object, got ${kindOfRaw(raw)}`);
  for (const key of Object.keys(raw)) {
    if (!STEP_MEMBERS.includes(key))
      throw invalidAt(path, `unknown member '${key}' in Group; expected by_fields, functions`);
  }
  const byFields = fieldList(raw.by_fields, `${path}.by_fields`);
  const functions = raw.functions;
  if (!Array.isArray(functions))
    throw invalidAt(
      `${path}.functions`,
      `expected an array of {output_field, operation, input_field?}, got ${kindOfRaw(functions)}`,
    );
  atPath(`${path}.functions`, () => checkLimit(functions.length, MAX_GROUP_FUNCTIONS, 'functions', 'functions'));
  const outputs = new Set(byFields);
  const compiled = functions.map((fn, i) => groupFunction(fn, `${path}.functions[${i}]`, outputs));
  return Object.freeze({ by_fields: byFields, functions: Object.freeze(compiled) });
}

function fieldList(raw: unknown, path: string): readonly string[] {
  if (!Array.isArray(raw)) throw invalidAt(path, `expected an array of field names, got ${kindOfRaw(raw)}`);
  atPath(path, () => checkLimit(raw.length, MAX_GROUP_BY_FIELDS, 'by_fields', 'fields'));
  const fields = raw.map((field, i) => literalField(field, `${path}[${i}]`));
  const repeated = fields.find((field, i) => fields.indexOf(field) !== i);
  if (repeated !== undefined) throw invalidAt(path, `'${repeated}' is listed twice`);
  return Object.freeze(fields);
}

function literalField(raw: unknown, path: string): string {
  const field = atPath(path, () => parseFieldPath(raw, path));
  if (field.includes('{{')) throw invalidAt(path, 'field names are literal; placeholders are not substituted here');
  return field;
}

function groupFunction(raw: unknown, path: string, outputs: Set<string>): GroupFunction {
  if (!isPlainObject(raw))
    throw invalidAt(path, `expected {output_field, operation, input_field?}, got ${kindOfRaw(raw)}`);
  for (const key of Object.keys(raw)) {
    if (!FUNCTION_MEMBERS.includes(key))
      throw invalidAt(path, `unknown member '${key}'; expected ${FUNCTION_MEMBERS.join(', ')}`);
  }
  const { operation, output_field: output, input_field: input } = raw;
  if (!isGroupOperationName(operation)) {
    throw invalidAt(
      `${path}.operation`,
      typeof operation === 'string'
        ? `unknown Group operation '${operation.slice(0, 60)}'; expected one of ` +
            `${Object.keys(GROUP_OPERATION_TABLE).join(', ')}`
        : `expected an operation name, got ${kindOfRaw(operation)}`,
    );
  }
  if (typeof output !== 'string' || output.length === 0)
    throw invalidAt(`${path}.output_field`, `expected a non-empty string, got ${kindOfRaw(output)}`);
  atPath(`${path}.output_field`, () => assertSafeKey(output, 'output_field'));
  if (outputs.has(output))
    throw invalidAt(`${path}.output_field`, `'${output}' is already a by_field or an earlier output_field`);
  outputs.add(output);
  if (input === undefined || input === null) {
    if (GROUP_OPERATION_TABLE[operation].needsInput) throw invalidAt(path, `${operation} needs an input_field`);
    return Object.freeze({ output_field: output, operation });
  }
  return Object.freeze({ output_field: output, operation, input_field: literalField(input, `${path}.input_field`) });
}

/** What a record lacking a by-field, or holding null there, groups under. */
export const MISSING_GROUP_VALUE = 'null';

const MISSING_KEY = hashKey(MISSING_GROUP_VALUE);

/**
 * One record per group: the by-fields, then each function's `output_field`.
 * REQUIRES: `byFields` and `functions` come from `compileGroup` (field paths
 * valid, output names safe and distinct). Throws InvalidInput for an
 * operation name it does not know. The records returned are frozen.
 */
export function groupRows(
  rows: readonly Fields[],
  byFields: readonly string[],
  functions: readonly GroupFunction[],
): Fields[] {
  const operations = functions.map((fn) => operationFor(fn.operation));
  const index = new GroupIndex(byFields);
  const groupOf = new Int32Array(rows.length);
  for (let i = 0; i < rows.length; i++) groupOf[i] = index.groupOf(rows[i]!);
  const firsts = index.firstRecords;
  const results = operations.map((operation, i) => {
    const states = firsts.map(() => operation.init());
    operation.addColumn(states, rows, groupOf, functions[i]!.input_field);
    return states.map((state) => operation.result(state));
  });
  return firsts.map((first, group) => {
    const record: Record<string, Value> = {};
    for (const field of byFields) record[field] = groupValue(valueAt(first, field));
    for (let i = 0; i < functions.length; i++) record[functions[i]!.output_field] = results[i]![group]!;
    return Object.freeze(record);
  });
}

function operationFor(name: string): GroupOperation<unknown> {
  if (!isGroupOperationName(name)) throw new InvalidInput(`unknown Group operation '${name.slice(0, 60)}'`);
  return GROUP_OPERATION_TABLE[name];
}

function groupValue(value: Value | undefined): Value {
  return value === undefined || value === null ? MISSING_GROUP_VALUE : value;
}

function valueKey(value: Value | undefined): string {
  return value === undefined || value === null ? MISSING_KEY : hashKey(value);
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
    let group = map.get(key);
    if (group === undefined) {
      group = this.firstRecords.length;
      this.firstRecords.push(row);
      map.set(key, group);
    }
    return group;
  }

  /** The single by-field's value when it is text (or missing or null), else undefined. */
  private textOf(row: Fields): string | undefined {
    if (this.byFields.length !== 1) return undefined;
    const value = valueAt(row, this.byFields[0]!);
    return typeof value === 'string' ? value : value === undefined || value === null ? MISSING_GROUP_VALUE : undefined;
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
