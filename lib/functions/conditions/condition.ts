/**
 * The compiled form of a FunctionCondition (protocol.md 4.4) and the shape of
 * one condition type's module.
 *
 * A definition's `{type, value}` is compiled once, at save time, into a
 * `Condition`: a frozen object with the wire type name and a `test` over the
 * working records. Values that hold placeholders (`{{name}}` text or
 * `{type: "Parameter", name}` references) are not resolved here: `test`
 * hands them to the caller's `resolve` callback at evaluation time (see
 * operand.ts). Placeholder-free values are converted once, at compile time.
 */
import type { Fields } from '../../engine/index.js';

export const CONDITION_TYPES = [
  'HasRecords', 'FieldEquals', 'FieldExists',
  'FieldGreaterThan', 'FieldLessThan', 'FieldGreaterThanOrEqual', 'FieldLessThanOrEqual',
  'CountEquals', 'CountGreaterThan', 'CountLessThan',
  'And', 'Or', 'Not',
] as const;

export type ConditionType = (typeof CONDITION_TYPES)[number];

/**
 * Resolves a definition value that holds placeholders into the value to test
 * with, in wire form (typed wrappers allowed) or as an engine value. It gets
 * the value exactly as the definition spelled it (or as `prepareValue`
 * returned it at compile time, see compile-condition.ts).
 */
export type ResolveValue = (raw: unknown) => unknown;

/** What a condition is evaluated against. */
export interface ConditionInput {
  /** The working records; Field* conditions look at the first one. */
  readonly rows: readonly Fields[];
  readonly resolve: ResolveValue;
}

/** A compiled condition. `test` may throw InvalidInput when a resolved placeholder is not a usable value. */
export interface Condition {
  readonly type: ConditionType;
  readonly test: (input: ConditionInput) => boolean;
}

/** Compiles a nested condition (And, Or, Not), one level deeper. */
export type CompileChild = (raw: unknown, path: string) => Condition;

/** Options of compileCondition that reach every condition module. */
export interface CompileContext {
  readonly child: CompileChild;
  /** Applied once, at compile time, to each value that holds placeholders; its result is what `resolve` receives. */
  readonly prepareValue: (raw: unknown, path: string) => unknown;
}

/**
 * One condition type: its wire name, whether it is a unit variant (no
 * `value`), and how its `value` compiles. `compile` throws InvalidInput
 * whose message starts with `path`.
 */
export interface ConditionKind {
  readonly type: ConditionType;
  readonly unit: boolean;
  readonly compile: (value: unknown, path: string, ctx: CompileContext) => Condition;
}

/** A frozen Condition. */
export function makeCondition(type: ConditionType, test: (input: ConditionInput) => boolean): Condition {
  return Object.freeze({ type, test });
}
