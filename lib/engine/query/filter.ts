/**
 * Parsing of query filters (protocol.md 2.4 QueryExpression) into a
 * validated, frozen AST.
 *
 * Accepts the canonical adjacently-tagged form (`{type: "Condition" |
 * "Logical", content}`) and the flat back-compat forms (`{field, operator,
 * value}`, `{and: [...]}`, `{or: [...]}`, `{not: {...}}`). Everything else is
 * rejected with InvalidInput: nothing is ignored. Size is bounded (depth,
 * expressions and In/NotIn values, see limits.ts) and checked as parsing
 * goes, so recursion never passes the depth limit and an oversized filter
 * is refused before it is read whole. Operand rules live in operators.ts;
 * evaluation against a record lives in match.ts.
 */
import { InvalidInput } from '../../errors.js';
import { checkLimit, MAX_FILTER_DEPTH, MAX_FILTER_EXPRESSIONS, MAX_FILTER_VALUES } from '../input/limits.js';
import { isPlainObject, type Value } from '../values/index.js';
import { kindOf, shown } from './describe-input.js';
import { parseFieldPath } from './field-path.js';
import { parseOperand, parseOperator, type Operator } from './operators.js';
import { ValueSet } from './value-set.js';

export interface ConditionFilter {
  readonly kind: 'condition';
  /** A validated dotted path. */
  readonly field: string;
  readonly op: Operator;
  /** The converted operand; an array of values for In/NotIn. */
  readonly value: Value;
  /** For In/NotIn: `value` as a hash set, for O(1) membership tests. */
  readonly members?: ValueSet;
}

export interface LogicalFilter {
  readonly kind: 'and' | 'or';
  /** At least one sub-filter. */
  readonly filters: readonly Filter[];
}

export interface NotFilter {
  readonly kind: 'not';
  readonly filter: Filter;
}

export type Filter = ConditionFilter | LogicalFilter | NotFilter;

/** What a filter has used so far of its size limits. */
interface Budget {
  expressions: number;
  values: number;
}

const FLAT_FORMS = '{type, content}, {field, operator, value}, {and: [...]}, {or: [...]} or {not: {...}}';

/**
 * Parses and validates a wire filter. `path` names the filter in messages.
 * Throws InvalidInput for a non-object, an unknown `type` or operator, a
 * missing or hostile field name, an operand of the wrong type, an empty
 * And/Or, a Not without exactly one expression, unknown keys, nesting
 * deeper than MAX_FILTER_DEPTH, more than MAX_FILTER_EXPRESSIONS expressions
 * or more than MAX_FILTER_VALUES In/NotIn values. The result is deeply frozen
 * (an In/NotIn `members` set has no way to change).
 */
export function parseFilter(raw: unknown, path = 'filter'): Filter {
  return parseNode(raw, path, 1, { expressions: 0, values: 0 });
}

function parseNode(raw: unknown, path: string, depth: number, budget: Budget): Filter {
  if (depth > MAX_FILTER_DEPTH) {
    throw new InvalidInput(`Filter nested deeper than ${MAX_FILTER_DEPTH} levels at ${path}`);
  }
  if (++budget.expressions > MAX_FILTER_EXPRESSIONS) {
    throw new InvalidInput(`Filter has more than ${MAX_FILTER_EXPRESSIONS} expressions (at ${path})`);
  }
  if (!isPlainObject(raw)) {
    throw new InvalidInput(`Invalid filter at ${path}: expected an object, got ${kindOf(raw)}`);
  }
  if ('type' in raw) return parseCanonical(raw, path, depth, budget);
  if ('field' in raw || 'operator' in raw) return parseCondition(raw, path, budget);
  if ('and' in raw) return logical('and', flatList(raw, 'and', path), `${path}.and`, depth, budget);
  if ('or' in raw) return logical('or', flatList(raw, 'or', path), `${path}.or`, depth, budget);
  if ('not' in raw) return parseFlatNot(raw, path, depth, budget);
  throw new InvalidInput(`Invalid filter at ${path}: expected ${FLAT_FORMS}`);
}

function assertKeys(obj: Record<string, unknown>, allowed: readonly string[], path: string): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) {
      throw new InvalidInput(`Unknown key ${shown(key)} in filter at ${path}; expected ${allowed.join(', ')}`);
    }
  }
}

function parseCanonical(raw: Record<string, unknown>, path: string, depth: number, budget: Budget): Filter {
  assertKeys(raw, ['type', 'content'], path);
  const where = `${path}.content`;
  if (raw.type !== 'Condition' && raw.type !== 'Logical') {
    throw new InvalidInput(`Unknown filter type ${shown(raw.type)} at ${path}; expected Condition or Logical`);
  }
  if (!isPlainObject(raw.content)) {
    throw new InvalidInput(`Invalid ${raw.type} at ${where}: expected an object, got ${kindOf(raw.content)}`);
  }
  if (raw.type === 'Condition') return parseCondition(raw.content, where, budget);
  const content = raw.content;
  assertKeys(content, ['operator', 'expressions'], where);
  const list = content.expressions;
  if (!Array.isArray(list)) {
    throw new InvalidInput(`Invalid Logical at ${where}: 'expressions' must be an array, got ${kindOf(list)}`);
  }
  switch (content.operator) {
    case 'And':
      return logical('and', list, `${where}.expressions`, depth, budget);
    case 'Or':
      return logical('or', list, `${where}.expressions`, depth, budget);
    case 'Not':
      if (list.length !== 1) {
        throw new InvalidInput(`Logical Not at ${where} needs exactly one expression, got ${list.length}`);
      }
      return not(parseNode(list[0], `${where}.expressions[0]`, depth + 1, budget));
    default:
      throw new InvalidInput(
        `Unknown logical operator ${shown(content.operator)} at ${where}; expected And, Or or Not`,
      );
  }
}

function parseCondition(raw: Record<string, unknown>, path: string, budget: Budget): ConditionFilter {
  assertKeys(raw, ['field', 'operator', 'value'], path);
  const field = parseFieldPath(raw.field, path);
  const op = parseOperator(raw.operator, path);
  const value = parseOperand(op, raw.value, field, path);
  if (op !== 'In' && op !== 'NotIn') return Object.freeze({ kind: 'condition', field, op, value });
  const list = value as readonly Value[];
  budget.values += list.length;
  if (budget.values > MAX_FILTER_VALUES) {
    throw new InvalidInput(`Filter has more than ${MAX_FILTER_VALUES} In/NotIn values in all (at ${path})`);
  }
  return Object.freeze({ kind: 'condition', field, op, value, members: new ValueSet(list) });
}

function logical(
  kind: 'and' | 'or',
  list: readonly unknown[],
  path: string,
  depth: number,
  budget: Budget,
): LogicalFilter {
  if (list.length === 0) {
    const name = kind === 'and' ? 'And' : 'Or';
    throw new InvalidInput(`Logical ${name} at ${path} has no expressions; it needs at least one`);
  }
  checkLimit(list.length, MAX_FILTER_EXPRESSIONS, path, 'expressions');
  const filters = list.map((item, i) => parseNode(item, `${path}[${i}]`, depth + 1, budget));
  return Object.freeze({ kind, filters: Object.freeze(filters) });
}

function flatList(raw: Record<string, unknown>, key: 'and' | 'or', path: string): readonly unknown[] {
  assertKeys(raw, [key], path);
  const list = raw[key];
  if (!Array.isArray(list)) {
    throw new InvalidInput(`Invalid filter at ${path}: '${key}' must be an array, got ${kindOf(list)}`);
  }
  return list;
}

function parseFlatNot(raw: Record<string, unknown>, path: string, depth: number, budget: Budget): NotFilter {
  assertKeys(raw, ['not'], path);
  const inner = raw.not;
  if (Array.isArray(inner)) {
    if (inner.length !== 1) {
      throw new InvalidInput(`Invalid filter at ${path}: 'not' needs exactly one expression, got ${inner.length}`);
    }
    return not(parseNode(inner[0], `${path}.not[0]`, depth + 1, budget));
  }
  return not(parseNode(inner, `${path}.not`, depth + 1, budget));
}

function not(filter: Filter): NotFilter {
  return Object.freeze({ kind: 'not', filter });
}
