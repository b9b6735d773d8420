/**
 * compileGroup: the members of a Group step (protocol.md 4.3: `by_fields`
 * [string], `functions` [{output_field, operation, input_field?}]) checked
 * at save time. Field names are literal (no placeholders). Unknown members,
 * operations and hostile names fail with the definition path.
 */
import { assertSafeKey, checkLimit, isPlainObject, parseFieldPath } from '../../engine/index.js';
import { atPath, invalidAt, kindOfRaw } from '../definition-path.js';
import type { GroupOperationName } from './group-operation.js';
import { GROUP_OPERATION_TABLE, isGroupOperationName } from './operation-table.js';

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
    if (!STEP_MEMBERS.includes(key)) throw invalidAt(path, `unknown member '${key}' in Group; expected by_fields, functions`);
  }
  const byFields = fieldList(raw.by_fields, `${path}.by_fields`);
  const functions = raw.functions;
  if (!Array.isArray(functions)) throw invalidAt(`${path}.functions`, `expected an array of {output_field, operation, input_field?}, got ${kindOfRaw(functions)}`);
  atPath(`${path}.functions`, () => checkLimit(functions.length, MAX_GROUP_FUNCTIONS, 'functions', 'functions'));
  const outputs = new Set(byFields);
  const compiled = functions.map((fn, i) => groupFunction(fn, `${path}.functions[${i}]`, outputs));
  return Object.freeze({ by_fields: byFields, functions: Object.freeze(compiled) });
}

function fieldList(raw: unknown, path: string): readonly string[] {
  if (!Array.isArray(raw)) throw invalidAt(path, `expected an array of field names, got ${kindOfRaw(raw)}`);
  atPath(path, () => checkLimit(raw.length, MAX_GROUP_BY_FIELDS, 'by_fields', 'fields'));
  const fields = raw.map((f, i) => literalField(f, `${path}[${i}]`));
  const repeated = fields.find((f, i) => fields.indexOf(f) !== i);
  if (repeated !== undefined) throw invalidAt(path, `'${repeated}' is listed twice`);
  return Object.freeze(fields);
}

function literalField(raw: unknown, path: string): string {
  const field = atPath(path, () => parseFieldPath(raw, path));
  if (field.includes('{{')) throw invalidAt(path, 'field names are literal; placeholders are not substituted here');
  return field;
}

function groupFunction(raw: unknown, path: string, outputs: Set<string>): GroupFunction {
  if (!isPlainObject(raw)) throw invalidAt(path, `expected {output_field, operation, input_field?}, got ${kindOfRaw(raw)}`);
  for (const key of Object.keys(raw)) {
    if (!FUNCTION_MEMBERS.includes(key)) throw invalidAt(path, `unknown member '${key}'; expected ${FUNCTION_MEMBERS.join(', ')}`);
  }
  const { operation, output_field: output, input_field: input } = raw;
  if (!isGroupOperationName(operation)) {
    throw invalidAt(`${path}.operation`, typeof operation === 'string'
      ? `unknown Group operation '${operation.slice(0, 60)}'; expected one of ${Object.keys(GROUP_OPERATION_TABLE).join(', ')}`
      : `expected an operation name, got ${kindOfRaw(operation)}`);
  }
  if (typeof output !== 'string' || output.length === 0) throw invalidAt(`${path}.output_field`, `expected a non-empty string, got ${kindOfRaw(output)}`);
  atPath(`${path}.output_field`, () => assertSafeKey(output, 'output_field'));
  if (outputs.has(output)) throw invalidAt(`${path}.output_field`, `'${output}' is already a by_field or an earlier output_field`);
  outputs.add(output);
  if (input === undefined || input === null) {
    if (GROUP_OPERATION_TABLE[operation].needsInput) throw invalidAt(path, `${operation} needs an input_field`);
    return Object.freeze({ output_field: output, operation });
  }
  return Object.freeze({ output_field: output, operation, input_field: literalField(input, `${path}.input_field`) });
}
