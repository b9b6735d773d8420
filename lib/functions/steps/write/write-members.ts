/**
 * Members every write step shares: the target `collection` (a template),
 * `bypass_ripple` (literal, default false), `record_id`, and a record body
 * (`record` / `updates`: an object with placeholders or a Parameter
 * reference) with the optional `ttl` (seconds or a duration string) merged
 * in as the engine's `ttl` member.
 */
import { isPlainObject } from '../../../engine/index.js';
import { InvalidInput } from '../../../errors.js';
import type { Template } from '../../templates/index.js';
import type { Execution, MemberNames, MemberReader, Row } from '../step.js';

export interface WriteTarget {
  readonly collection: Template;
  readonly bypassRipple: boolean;
}

export function compileTarget(m: MemberReader): WriteTarget {
  return { collection: m.template('collection'), bypassRipple: m.optionalBoolean('bypass_ripple') ?? false };
}

export function collectionOf(target: WriteTarget, x: Execution, row: Row | undefined): string {
  return x.text(target.collection, row, 'collection');
}

/** A record body member and the step's `ttl`. */
export interface BodyMember {
  readonly body: Template;
  /** The member's canonical name, for messages. */
  readonly member: string;
  readonly ttl?: Template;
}

export function compileBody(m: MemberReader, names: MemberNames): BodyMember {
  const ttl = m.optionalTemplate('ttl');
  return { body: m.template(names), member: typeof names === 'string' ? names : names[0]!, ...(ttl ? { ttl } : {}) };
}

/** The body resolved against `row`: it must be a JSON object; `ttl` joins it. */
export function resolveBody(b: BodyMember, x: Execution, row: Row | undefined): Record<string, unknown> {
  const body = x.resolve(b.body, row);
  if (!isPlainObject(body)) throw new InvalidInput(`'${b.member}' must resolve to a JSON object`);
  return b.ttl ? { ...body, ttl: x.resolve(b.ttl, row) } : body;
}
