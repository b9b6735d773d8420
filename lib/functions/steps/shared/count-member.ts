/**
 * A count member (`limit`, `skip`): a literal non-negative integer, checked
 * at save, or a template (`"{{page_size}}"`) checked when the call resolves
 * it. Both end in the same rule, so a literal and a parameter fail alike.
 */
import { isTypedWrapper } from '../../../engine/index.js';
import { invalidAt } from '../../definition-path.js';
import { isConstant, type Template } from '../../templates/index.js';
import type { Execution, MemberNames, MemberReader, Row } from '../step.js';

/** Largest count accepted: beyond the working-record bound anyway, and exact as a double. */
const MAX_COUNT = Number.MAX_SAFE_INTEGER;

/** A count as compiled: its template and the name it was given under (for messages). */
export interface CountMember {
  readonly template: Template;
  readonly name: string;
}

/** The member as a count, undefined when absent or null. A literal that is not a count fails the save naming the path. */
export function optionalCount(m: MemberReader, names: MemberNames): CountMember | undefined {
  const list = typeof names === 'string' ? [names] : names;
  const name = list.find((n) => m.raw(n) !== undefined && m.raw(n) !== null);
  if (name === undefined) return undefined;
  const template = m.optionalTemplate(name)!;
  if (isConstant(template)) toCount(template.v, `${m.path}.${name}`);
  return { template, name };
}

/** The member's value for this call. A value that is not a count is a 400 naming the member. */
export function resolveCount(c: CountMember, x: Execution, row: Row | undefined): number {
  return isConstant(c.template) ? (c.template.v as number) : toCount(x.resolve(c.template, row), c.name);
}

function toCount(given: unknown, where: string): number {
  // Integer typed wrappers and numeric text from a text placeholder are counts too.
  const raw = isTypedWrapper(given) ? given.value : given;
  const v = typeof raw === 'string' && /^\d{1,15}$/.test(raw.trim()) ? Number(raw.trim()) : typeof raw === 'bigint' ? Number(raw) : raw;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0 || v > MAX_COUNT) {
    throw invalidAt(where, `expected a non-negative integer, got ${describe(given)}`);
  }
  return v;
}

function describe(raw: unknown): string {
  if (typeof raw === 'string') return `'${raw.slice(0, 40)}'`;
  if (typeof raw === 'number' || typeof raw === 'bigint' || typeof raw === 'boolean' || raw === null) return String(raw);
  return Array.isArray(raw) ? 'an array' : 'an object';
}
