/**
 * Members the Chat and Embed steps share: optional values that may be
 * literals or placeholders (`model`, `provider`, `temperature`,
 * `max_tokens`). A literal is checked at save (a 400 naming the member); a
 * placeholder's value is checked with the same rule when the step runs.
 * Null or an empty string means "the default".
 */
import { isTypedWrapper } from '../../../engine/index.js';
import { InvalidInput } from '../../../errors.js';
import type { Template } from '../../template.js';
import type { Execution, MemberNames, MemberReader, Row } from '../step.js';

/** A member compiled as a template, with the rule its value must meet. */
export interface CheckedMember<T> {
  readonly template: Template;
  readonly check: (value: unknown) => T;
}

/** The check of a checked member: throws InvalidInput naming `what`, answers undefined for null. */
export type Check<T> = (value: unknown, what: string) => T;

export function checkedMember<T>(m: MemberReader, names: MemberNames, check: Check<T>): CheckedMember<T> | undefined {
  const template = m.optionalTemplate(names);
  if (!template) return undefined;
  const what = typeof names === 'string' ? names : names[0]!;
  if (template.k === 'const') {
    try {
      check(template.v, what);
    } catch (err) {
      if (err instanceof InvalidInput) m.fail(err.message, what);
      throw err;
    }
  }
  return { template, check: (v) => check(v, what) };
}

export function resolveMember<T>(x: Execution, member: CheckedMember<T> | undefined, row: Row | undefined): T | undefined {
  return member ? member.check(x.resolve(member.template, row)) : undefined;
}

/** A typed wrapper's value (`{type: "String", value: "x"}` reads as "x"). */
export function unwrap(v: unknown): unknown {
  return isTypedWrapper(v) ? v.value : v;
}

/** A name (model, provider): a string of at most 200 characters; null or "" is the default. */
export const optionalName: Check<string | undefined> = (raw, what) => {
  const v = unwrap(raw);
  if (v === null || v === undefined || v === '') return undefined;
  if (typeof v !== 'string' || v.length > 200) throw new InvalidInput(`'${what}' must be a name of at most 200 characters`);
  return v;
};

export const optionalTemperature: Check<number | undefined> = (raw, what) => {
  const v = unwrap(raw);
  if (v === null || v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 2) throw new InvalidInput(`'${what}' must be a number between 0 and 2`);
  return v;
};

export const MAX_COMPLETION_TOKENS = 1_000_000;

export const optionalMaxTokens: Check<number | undefined> = (raw, what) => {
  const v = unwrap(raw);
  if (v === null || v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_COMPLETION_TOKENS) {
    throw new InvalidInput(`'${what}' must be an integer between 1 and ${MAX_COMPLETION_TOKENS}`);
  }
  return v;
};
