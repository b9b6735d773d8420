/**
 * Every FunctionCondition type (protocol.md 4.4, adjacently tagged
 * `{type, value}`; unit variants have no `value`) as a row of one table,
 * typed so a missing type does not compile (each row's `type` equals its
 * key: spec/functions/conditions.spec.ts), and the compiler and evaluator
 * over it.
 *
 * - Field* conditions test the FIRST working record (none means false:
 *   there is no record to test). They follow steps that leave one record
 *   (FindById, KvGet, IdempotencyClaim, LockAcquire write their output into
 *   it), and protocol.md's examples test those (`claim.claimed`,
 *   `lock.acquired`); "some record" or "every record" would need a
 *   quantifier the wire form does not have.
 * - Count* and HasRecords test the number of working records.
 * - And, Or and Not combine nested conditions.
 *
 * Unknown types and members, bad field paths, hostile names and bad
 * constants fail at save with the definition path; the size of one
 * condition tree is bounded in depth and in nodes, like a query filter's.
 */
import {
  compareValues,
  equalValues,
  getPath,
  isPlainObject,
  Tagged,
  type Fields,
  type Value,
} from '../../engine/index.js';
import { invalidAt, kindOfRaw } from '../definition-path.js';
import {
  compileOperand,
  conditionField,
  conditionMembers,
  holdsPlaceholder,
  makeCondition,
  NO_RESOLVE,
  type CompileContext,
  type Condition,
  type ConditionKind,
  type ConditionType,
  type Operand,
  type ResolveValue,
} from './condition.js';

/** Nesting of one condition tree, counting the root as 1 (as MAX_FILTER_DEPTH for filters). */
export const MAX_CONDITION_DEPTH = 32;
/** Conditions in one tree, And/Or/Not nodes included (as MAX_FILTER_EXPRESSIONS for filters). */
export const MAX_CONDITION_NODES = 1_000;

/* Field conditions: `{field, value}`, `field` a dotted path read from the first working record. */

interface FieldOperand {
  readonly field: string;
  readonly operand: Operand;
}

/** Compiles `{field, value}`; `value` is required (it may be null). */
function compileFieldOperand(value: unknown, path: string, context: CompileContext): FieldOperand {
  const members = conditionMembers(value, path, ['field', 'value'], ['field', 'value']);
  return {
    field: conditionField(members.field, path),
    operand: compileOperand(members.value, `${path}.value`, context),
  };
}

/** The tested field's value in the first record; undefined when absent or when there is no record. */
function firstRecordField(rows: readonly Fields[], field: string): Value | undefined {
  return rows.length === 0 ? undefined : getPath(rows[0]!, field);
}

/**
 * A range comparison (the query engine's ordering: numbers across Integer,
 * Float and Decimal, DateTimes by instant, also against RFC 3339 text).
 * False when the field is absent, null, or of a kind the value does not
 * order with. A constant null value is refused at save time.
 */
function fieldComparison(type: ConditionType, accept: (order: number) => boolean): ConditionKind {
  return {
    type,
    unit: false,
    compile: (value, path, context) => {
      const { field, operand } = compileFieldOperand(value, path, context);
      if (operand.constant && operand.get(NO_RESOLVE) === null) {
        throw invalidAt(`${path}.value`, `${type} needs a non-null value to compare with`);
      }
      return makeCondition(type, ({ rows, resolve }) => {
        const actual = firstRecordField(rows, field);
        if (actual === undefined || actual === null) return false;
        const order = compareValues(actual, operand.get(resolve));
        return order !== undefined && accept(order);
      });
    },
  };
}

/* Count conditions: `{count}`, a non-negative integer compared with the number of working records. */

/**
 * A constant count is checked at save time; a placeholder count when it is
 * resolved. The condition tests `accept(rows.length, count)`.
 */
function countComparison(type: ConditionType, accept: (length: number, count: number) => boolean): ConditionKind {
  return {
    type,
    unit: false,
    compile: (value, path, context) => {
      const members = conditionMembers(value, path, ['count'], ['count']);
      const where = `${path}.count`;
      const operand = compileOperand(members.count, where, context);
      if (operand.constant) {
        const count = countOf(operand.get(NO_RESOLVE), where);
        return makeCondition(type, ({ rows }) => accept(rows.length, count));
      }
      return makeCondition(type, ({ rows, resolve }) => accept(rows.length, countOf(operand.get(resolve), where)));
    },
  };
}

/** A count as a number; bigints are beyond any record count and compare as such. */
function countOf(given: Value, where: string): number {
  const count = given instanceof Tagged && (given.type === 'Float' || given.type === 'Number') ? given.value : given;
  if (typeof count === 'bigint' && count > 0n) return Number.MAX_SAFE_INTEGER;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) {
    throw invalidAt(
      where,
      `expected a non-negative integer, got ${kindOfRaw(count)}${typeof count === 'number' ? ` ${count}` : ''}`,
    );
  }
  return count;
}

/* Logic: And and Or take `{conditions: [...]}` (bounded by the node budget), Not `{condition}`. */

function compileConditionList(value: unknown, path: string, context: CompileContext): readonly Condition[] {
  const list = conditionMembers(value, path, ['conditions'], ['conditions']).conditions;
  if (!Array.isArray(list))
    throw invalidAt(`${path}.conditions`, `expected an array of conditions, got ${kindOfRaw(list)}`);
  return Object.freeze(list.map((raw, i) => context.child(raw, `${path}.conditions[${i}]`)));
}

export const CONDITIONS: Readonly<Record<ConditionType, ConditionKind>> = Object.freeze({
  /** A unit variant (no `value`): true when there is at least one working record. */
  HasRecords: {
    type: 'HasRecords',
    unit: true,
    compile: () => makeCondition('HasRecords', ({ rows }) => rows.length > 0),
  },
  /**
   * True when the first record's field equals the value with the query
   * engine's equality (Eq): numbers across types, DateTimes by instant,
   * objects and arrays member by member. A null value tests null or missing.
   */
  FieldEquals: {
    type: 'FieldEquals',
    unit: false,
    compile: (value, path, context) => {
      const { field, operand } = compileFieldOperand(value, path, context);
      return makeCondition(
        'FieldEquals',
        ({ rows, resolve }) => rows.length > 0 && equalValues(firstRecordField(rows, field), operand.get(resolve)),
      );
    },
  },
  /**
   * `{field}`: true when the first record has the field (a null value counts
   * as present, as the query engine's Exists). The spec groups it with
   * `{field, value}`, so a `value` member is accepted and ignored
   * (protocol.md 5.3).
   */
  FieldExists: {
    type: 'FieldExists',
    unit: false,
    compile: (value, path) => {
      const members = conditionMembers(value, path, ['field', 'value'], ['field']);
      // Ignored, but still held to the rules every definition value follows (no hostile names).
      holdsPlaceholder(members.value, `${path}.value`);
      const field = conditionField(members.field, path);
      return makeCondition('FieldExists', ({ rows }) => firstRecordField(rows, field) !== undefined);
    },
  },
  FieldGreaterThan: fieldComparison('FieldGreaterThan', (order) => order > 0),
  FieldLessThan: fieldComparison('FieldLessThan', (order) => order < 0),
  FieldGreaterThanOrEqual: fieldComparison('FieldGreaterThanOrEqual', (order) => order >= 0),
  FieldLessThanOrEqual: fieldComparison('FieldLessThanOrEqual', (order) => order <= 0),
  CountEquals: countComparison('CountEquals', (length, count) => length === count),
  CountGreaterThan: countComparison('CountGreaterThan', (length, count) => length > count),
  CountLessThan: countComparison('CountLessThan', (length, count) => length < count),
  /** True when every condition holds (an empty list holds), left to right, stopping at the first false. */
  And: {
    type: 'And',
    unit: false,
    compile: (value, path, context) => {
      const conditions = compileConditionList(value, path, context);
      return makeCondition('And', (input) => conditions.every((condition) => condition.test(input)));
    },
  },
  /** True when some condition holds (an empty list does not), left to right, stopping at the first true. */
  Or: {
    type: 'Or',
    unit: false,
    compile: (value, path, context) => {
      const conditions = compileConditionList(value, path, context);
      return makeCondition('Or', (input) => conditions.some((condition) => condition.test(input)));
    },
  },
  /** True when the nested condition does not hold. */
  Not: {
    type: 'Not',
    unit: false,
    compile: (value, path, context) => {
      const members = conditionMembers(value, path, ['condition'], ['condition']);
      const condition = context.child(members.condition, `${path}.condition`);
      return makeCondition('Not', (input) => !condition.test(input));
    },
  },
});

export interface CompileConditionOptions {
  /**
   * Called once per value that holds placeholders (condition.ts says what
   * counts as one), with the value and its definition path; what it returns
   * is what the evaluation's `resolve` receives. Default: the value itself.
   * Lets the caller compile placeholders into its own nodes at save time.
   */
  readonly prepareValue?: (raw: unknown, path: string) => unknown;
}

/**
 * Compiles `raw`, found at `path` in the definition (e.g.
 * "functions[1].condition"). The result is frozen and may be evaluated any
 * number of times, concurrently.
 * Throws InvalidInput whose message starts with the path of the offending
 * member, e.g. "functions[1].condition.value.conditions[0]: unknown
 * condition type 'FieldEqual'".
 */
export function compileCondition(raw: unknown, path: string, options: CompileConditionOptions = {}): Condition {
  let nodes = 0;
  const prepareValue = options.prepareValue ?? ((value: unknown) => value);
  const compileAt = (node: unknown, where: string, depth: number): Condition => {
    if (depth > MAX_CONDITION_DEPTH)
      throw invalidAt(where, `conditions nested deeper than ${MAX_CONDITION_DEPTH} levels`);
    if (++nodes > MAX_CONDITION_NODES)
      throw invalidAt(where, `more than ${MAX_CONDITION_NODES} conditions in one condition`);
    const context: CompileContext = {
      child: (child, childPath) => compileAt(child, childPath, depth + 1),
      prepareValue,
    };
    return compileNode(node, where, context);
  };
  return compileAt(raw, path, 1);
}

function compileNode(raw: unknown, path: string, context: CompileContext): Condition {
  if (!isPlainObject(raw)) throw invalidAt(path, `expected a condition object {type, value}, got ${kindOfRaw(raw)}`);
  for (const key of Object.keys(raw)) {
    if (key !== 'type' && key !== 'value')
      throw invalidAt(path, `unknown member '${key}' in a condition; expected type, value`);
  }
  const type = raw.type;
  if (typeof type !== 'string') throw invalidAt(path, `a condition needs a string 'type', got ${kindOfRaw(type)}`);
  if (!Object.hasOwn(CONDITIONS, type)) throw invalidAt(path, `unknown condition type '${type.slice(0, 60)}'`);
  const kind = CONDITIONS[type as keyof typeof CONDITIONS];
  if (kind.unit) {
    // Serde and the Go client write unit variants without `value`; a null one is the same thing.
    if (raw.value !== undefined && raw.value !== null) throw invalidAt(`${path}.value`, `${type} takes no value`);
  } else if (!Object.hasOwn(raw, 'value')) {
    throw invalidAt(path, `${type} needs a 'value'`);
  }
  return kind.compile(raw.value, `${path}.value`, context);
}

const noPlaceholders: ResolveValue = (raw) => raw;

/**
 * True when `condition` holds for `rows`. `resolve` turns a value that holds
 * placeholders (as given to, or returned by, `prepareValue` at compile time)
 * into the value to compare with; it is called only for such values, at most
 * once per value per evaluation (And/Or stop early). Without `resolve`,
 * placeholder values are compared as the literal text the definition holds.
 * Throws InvalidInput (naming the definition path) when a resolved value is
 * not a usable value, e.g. a DateTime wrapper around a non-date or a
 * negative count.
 */
export function evaluateCondition(
  condition: Condition,
  rows: readonly Fields[],
  resolve: ResolveValue = noPlaceholders,
): boolean {
  return condition.test({ rows, resolve });
}
