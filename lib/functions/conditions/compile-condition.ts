/**
 * compileCondition: a definition's FunctionCondition (protocol.md 4.4,
 * adjacently tagged `{type, value}`; unit variants have no `value`) into a
 * `Condition`, at save time. Unknown types and members, bad field paths,
 * hostile names and bad constants fail here with the definition path; the
 * size of one condition tree is bounded in depth and in nodes, like a query
 * filter's.
 */
import { isPlainObject } from '../../engine/index.js';
import { invalidAt, kindOfRaw } from '../definition-path.js';
import type { CompileContext, Condition } from './condition.js';
import { CONDITIONS } from './condition-table.js';

/** Nesting of one condition tree, counting the root as 1 (as MAX_FILTER_DEPTH for filters). */
export const MAX_CONDITION_DEPTH = 32;
/** Conditions in one tree, And/Or/Not nodes included (as MAX_FILTER_EXPRESSIONS for filters). */
export const MAX_CONDITION_NODES = 1_000;

export interface CompileConditionOptions {
  /**
   * Called once per value that holds placeholders (operand.ts says what
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
    if (depth > MAX_CONDITION_DEPTH) throw invalidAt(where, `conditions nested deeper than ${MAX_CONDITION_DEPTH} levels`);
    if (++nodes > MAX_CONDITION_NODES) throw invalidAt(where, `more than ${MAX_CONDITION_NODES} conditions in one condition`);
    const ctx: CompileContext = { child: (child, childPath) => compileAt(child, childPath, depth + 1), prepareValue };
    return compileNode(node, where, ctx);
  };
  return compileAt(raw, path, 1);
}

function compileNode(raw: unknown, path: string, ctx: CompileContext): Condition {
  if (!isPlainObject(raw)) throw invalidAt(path, `expected a condition object {type, value}, got ${kindOfRaw(raw)}`);
  for (const key of Object.keys(raw)) {
    if (key !== 'type' && key !== 'value') throw invalidAt(path, `unknown member '${key}' in a condition; expected type, value`);
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
  return kind.compile(raw.value, `${path}.value`, ctx);
}
