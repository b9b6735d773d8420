/**
 * A QueryExpression member (`filter` of Query, Filter, FindOne...): parsed
 * by the engine's query parser at save when it holds no placeholders; with
 * placeholders, its template is compiled at save and the filter parsed
 * after each call resolves it.
 *
 * A filter with placeholders is still checked at save: its skeleton (each
 * placeholder replaced by a value its operator accepts) must parse, so a
 * misspelt operator or a bad shape is a 400 at save, not at call time.
 */
import { parseFilter, type Filter } from '../../../engine/index.js';
import { atPath } from '../../definition-path.js';
import { isConstant, type Template } from '../../templates/index.js';
import type { Execution, MemberNames, MemberReader, Row } from '../step.js';

export type FilterMember =
  | { readonly parsed: Filter }
  | { readonly template: Template; readonly name: string };

/** The filter member, undefined when absent or null. */
export function optionalFilter(m: MemberReader, names: MemberNames): FilterMember | undefined {
  const list = typeof names === 'string' ? [names] : names;
  const name = list.find((n) => m.raw(n) !== undefined && m.raw(n) !== null);
  if (name === undefined) return undefined;
  const path = `${m.path}.${name}`;
  const template = m.optionalTemplate(name)!;
  if (isConstant(template)) return { parsed: atPath(path, () => parseFilter(template.v, name)) };
  const skeleton = skeletonOf(m.raw(name));
  if (skeleton !== undefined) atPath(path, () => parseFilter(skeleton, name));
  return { template, name };
}

/** A required filter member: a save-time 400 naming the member when absent. */
export function requiredFilter(m: MemberReader, names: MemberNames): FilterMember {
  const f = optionalFilter(m, names);
  if (f === undefined) m.fail(`missing required member '${typeof names === 'string' ? names : names[0]}'`);
  return f;
}

/** The filter for this call (placeholders resolved against the parameters and `row`). */
export function resolveFilter(f: FilterMember, x: Execution, row: Row | undefined): Filter {
  return 'parsed' in f ? f.parsed : parseFilter(x.resolve(f.template, row), f.name);
}

/** True when a definition value holds a placeholder or a Parameter reference. */
function holdsPlaceholder(v: unknown): boolean {
  if (typeof v === 'string') return v.includes('{{');
  if (Array.isArray(v)) return v.some(holdsPlaceholder);
  if (v === null || typeof v !== 'object') return false;
  const o = v as Record<string, unknown>;
  if (o.type === 'Parameter' && typeof o.name === 'string' && !('value' in o)) return true;
  return Object.values(o).some(holdsPlaceholder);
}

/** An operand each operator accepts, standing in for a placeholder. */
const STAND_IN: Readonly<Record<string, unknown>> = {
  Eq: null, Ne: null, Gt: 0, Gte: 0, Lt: 0, Lte: 0, In: [], NotIn: [], Contains: '', StartsWith: '', EndsWith: '', Exists: true,
};

/**
 * The filter with placeholders replaced by stand-ins, or undefined when a
 * placeholder stands for a whole expression (nothing to check before the call).
 */
function skeletonOf(raw: unknown): unknown {
  if (!holdsPlaceholder(raw)) return raw;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const node = raw as Record<string, unknown>;
  if (node.type === 'Condition' && node.content !== null && typeof node.content === 'object') {
    const content = conditionSkeleton(node.content as Record<string, unknown>);
    return content === undefined ? undefined : { ...node, content };
  }
  if (node.type === 'Logical' && node.content !== null && typeof node.content === 'object') {
    const content = node.content as Record<string, unknown>;
    if (holdsPlaceholder(content.operator) || !Array.isArray(content.expressions)) return undefined;
    const expressions = content.expressions.map(skeletonOf);
    return expressions.includes(undefined) ? undefined : { ...node, content: { ...content, expressions } };
  }
  if ('field' in node || 'operator' in node) return conditionSkeleton(node);
  for (const key of ['and', 'or'] as const) {
    if (key in node && Array.isArray(node[key])) {
      const list = (node[key] as unknown[]).map(skeletonOf);
      return list.includes(undefined) ? undefined : { ...node, [key]: list };
    }
  }
  if ('not' in node) {
    const inner = skeletonOf(node.not);
    return inner === undefined ? undefined : { ...node, not: inner };
  }
  return undefined;
}

function conditionSkeleton(c: Record<string, unknown>): Record<string, unknown> | undefined {
  if (holdsPlaceholder(c.operator)) return undefined;
  const out: Record<string, unknown> = { ...c };
  if (holdsPlaceholder(c.field)) out.field = 'placeholder';
  if (holdsPlaceholder(c.value)) {
    out.value = typeof c.operator === 'string' && Object.hasOwn(STAND_IN, c.operator) ? STAND_IN[c.operator] : null;
  }
  return out;
}
