/**
 * Step members that several families read the same way, checked at save
 * and resolved per call:
 *
 * - `collection` of a read step: a template (`"{{table}}"` works); a literal
 *   name is checked at save with the engine's naming rule, so a misspelt
 *   name is a 400 naming the member, not a call failure.
 * - counts (`limit`, `skip`): a literal non-negative integer, or a template
 *   checked when the call resolves it; both end in the same rule, so a
 *   literal and a parameter fail alike.
 * - filters (`filter` of Query, Filter, Delete...): a QueryExpression parsed
 *   at save when it holds no placeholders; with placeholders its skeleton
 *   (each placeholder replaced by a value its operator accepts) must parse
 *   at save, so a misspelt operator or a bad shape is a 400 then, and the
 *   filter itself is parsed after each call resolves it.
 * - literal choices (an algorithm, an encoding) from a closed list.
 * - keys and secrets of the crypto steps: `strictSecret` (JwtSign,
 *   JwtVerify: product.md) is a literal or exactly `{{env.NAME}}`, never a
 *   call parameter or a field; `keyMaterial` (HMAC, AES, TOTP) is any
 *   template, since such keys are often per record (a user's TOTP secret, a
 *   tenant's signing key), `{{env.NAME}}` being the usual form for a
 *   server-wide key. Messages name the member, never the secret's value.
 */
import { isTypedWrapper, parseFilter, validateCollectionName, type Filter } from '../../engine/index.js';
import { atPath, invalidAt } from '../definition-path.js';
import { isConstant, isEnvTemplate, type Template } from '../template.js';
import type { Execution, MemberNames, MemberReader, Row } from './step.js';

/** The first of `names` present and not null. */
function presentName(members: MemberReader, names: MemberNames): string | undefined {
  const list = typeof names === 'string' ? [names] : names;
  return list.find((name) => members.raw(name) !== undefined && members.raw(name) !== null);
}

function canonical(names: MemberNames): string {
  return typeof names === 'string' ? names : names[0]!;
}

/* Collections */

export function collectionMember(members: MemberReader): Template {
  const template = members.template('collection');
  checkCollection(template, `${members.path}.collection`);
  return template;
}

/** Checks a literal collection name found at `path`; templates with placeholders are checked when resolved. */
export function checkCollection(template: Template, path: string): void {
  if (isConstant(template)) atPath(path, () => validateCollectionName(template.value));
}

/* Counts */

/** Largest count accepted: beyond the working-record bound anyway, and exact as a double. */
const MAX_COUNT = Number.MAX_SAFE_INTEGER;

/** A count as compiled: its template and the member name it came under (for messages). */
export interface CountMember {
  readonly template: Template;
  readonly name: string;
}

/**
 * The member as a count, undefined when absent or null. A literal that is not a count fails the save naming the path.
 */
export function optionalCount(members: MemberReader, names: MemberNames): CountMember | undefined {
  const name = presentName(members, names);
  if (name === undefined) return undefined;
  const template = members.optionalTemplate(name)!;
  if (isConstant(template)) toCount(template.value, `${members.path}.${name}`);
  return { template, name };
}

/** The member's value for this call. A value that is not a count is a 400 naming the member. */
export function resolveCount(count: CountMember, run: Execution, row: Row | undefined): number {
  return isConstant(count.template)
    ? (count.template.value as number)
    : toCount(run.resolve(count.template, row), count.name);
}

function toCount(given: unknown, where: string): number {
  // Integer typed wrappers and numeric text from a text placeholder are counts too.
  const raw = isTypedWrapper(given) ? given.value : given;
  const text = typeof raw === 'string' ? raw.trim() : undefined;
  const count =
    text !== undefined && /^\d{1,15}$/.test(text) ? Number(text) : typeof raw === 'bigint' ? Number(raw) : raw;
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0 || count > MAX_COUNT) {
    throw invalidAt(where, `expected a non-negative integer, got ${describe(given)}`);
  }
  return count;
}

function describe(raw: unknown): string {
  if (typeof raw === 'string') return `'${raw.slice(0, 40)}'`;
  if (typeof raw === 'number' || typeof raw === 'bigint' || typeof raw === 'boolean' || raw === null)
    return String(raw);
  return Array.isArray(raw) ? 'an array' : 'an object';
}

/* Filters */

export type FilterMember = { readonly parsed: Filter } | { readonly template: Template; readonly name: string };

/** The filter member, undefined when absent or null. */
export function optionalFilter(members: MemberReader, names: MemberNames): FilterMember | undefined {
  const name = presentName(members, names);
  if (name === undefined) return undefined;
  const path = `${members.path}.${name}`;
  const template = members.optionalTemplate(name)!;
  if (isConstant(template)) return { parsed: atPath(path, () => parseFilter(template.value, name)) };
  const skeleton = skeletonOf(members.raw(name));
  if (skeleton !== undefined) atPath(path, () => parseFilter(skeleton, name));
  return { template, name };
}

/** A required filter member: a save-time 400 naming the member when absent. */
export function requiredFilter(members: MemberReader, names: MemberNames): FilterMember {
  const filter = optionalFilter(members, names);
  if (filter === undefined) members.fail(`missing required member '${canonical(names)}'`);
  return filter;
}

/** The filter for this call (placeholders resolved against the parameters and `row`). */
export function resolveFilter(filter: FilterMember, run: Execution, row: Row | undefined): Filter {
  return 'parsed' in filter ? filter.parsed : parseFilter(run.resolve(filter.template, row), filter.name);
}

/** True when a definition value holds a placeholder or a Parameter reference. */
function holdsPlaceholder(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('{{');
  if (Array.isArray(value)) return value.some(holdsPlaceholder);
  if (value === null || typeof value !== 'object') return false;
  const node = value as Record<string, unknown>;
  if (node.type === 'Parameter' && typeof node.name === 'string' && !('value' in node)) return true;
  return Object.values(node).some(holdsPlaceholder);
}

/** An operand each operator accepts, standing in for a placeholder. */
const STAND_IN: Readonly<Record<string, unknown>> = {
  Eq: null,
  Ne: null,
  Gt: 0,
  Gte: 0,
  Lt: 0,
  Lte: 0,
  In: [],
  NotIn: [],
  Contains: '',
  StartsWith: '',
  EndsWith: '',
  Exists: true,
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

function conditionSkeleton(condition: Record<string, unknown>): Record<string, unknown> | undefined {
  if (holdsPlaceholder(condition.operator)) return undefined;
  const out: Record<string, unknown> = { ...condition };
  if (holdsPlaceholder(condition.field)) out.field = 'placeholder';
  if (holdsPlaceholder(condition.value)) {
    const operator = condition.operator;
    out.value = typeof operator === 'string' && Object.hasOwn(STAND_IN, operator) ? STAND_IN[operator] : null;
  }
  return out;
}

/* Literal choices */

/** A member that must be one literal of a closed list (an algorithm, an encoding): checked at save. */
export function literalChoice<T extends string>(
  members: MemberReader,
  names: MemberNames,
  allowed: readonly T[],
  fallback: T,
): T {
  const raw = members.raw(names);
  if (raw === undefined || raw === null) return fallback;
  if (typeof raw !== 'string' || !(allowed as readonly string[]).includes(raw)) {
    members.fail(`must be one of ${allowed.join(', ')} (a literal)`, canonical(names));
  }
  return raw as T;
}

/* Keys and secrets */

export function strictSecret(members: MemberReader, names: MemberNames): Template {
  const member = canonical(names);
  const raw = members.raw(names);
  if (typeof raw !== 'string' || raw === '') {
    members.fail("must be a literal string or '{{env.NAME}}' (never a call parameter)", member);
  }
  const template = members.template(names);
  if (template.kind !== 'const' && !isEnvTemplate(template)) {
    members.fail("must be a literal or exactly '{{env.NAME}}': a call parameter or a field cannot be a secret", member);
  }
  return template;
}

export function keyMaterial(members: MemberReader, names: MemberNames): Template {
  return members.template(names);
}
