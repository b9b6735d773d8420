/** A member that must be one literal of a closed list (an algorithm, an encoding): checked at save. */
import type { MemberNames, MemberReader } from './step.js';

export function literalChoice<T extends string>(m: MemberReader, names: MemberNames, allowed: readonly T[], fallback: T): T {
  const raw = m.raw(names);
  const member = typeof names === 'string' ? names : names[0]!;
  if (raw === undefined || raw === null) return fallback;
  if (typeof raw !== 'string' || !(allowed as readonly string[]).includes(raw)) {
    m.fail(`must be one of ${allowed.join(', ')} (a literal)`, member);
  }
  return raw as T;
}
