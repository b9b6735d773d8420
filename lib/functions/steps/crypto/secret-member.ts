/**
 * Key and secret members of the crypto steps.
 *
 * - `strictSecret` (JwtSign, JwtVerify: product.md): a literal or exactly
 *   `{{env.NAME}}`, never a call parameter or a field, refused at save
 *   otherwise; a literal is checked at save by `check`.
 * - `keyMaterial` (HMAC, AES, TOTP): any template, since such keys are often
 *   per record (a user's TOTP secret, a tenant's signing key); an
 *   `{{env.NAME}}` placeholder is the usual form for a server-wide key.
 *
 * Error messages name the member, never the secret's value.
 */
import { InvalidInput } from '../../../errors.js';
import { isEnvTemplate, type Template } from '../../template.js';
import type { Execution, MemberNames, MemberReader, Row } from '../step.js';
import { textInput } from '../field-output.js';

export function strictSecret(m: MemberReader, names: MemberNames): Template {
  const member = typeof names === 'string' ? names : names[0]!;
  const raw = m.raw(names);
  if (typeof raw !== 'string' || raw === '') {
    m.fail("must be a literal string or '{{env.NAME}}' (never a call parameter)", member);
  }
  const t = m.template(names);
  if (t.k !== 'const' && !isEnvTemplate(t)) {
    m.fail("must be a literal or exactly '{{env.NAME}}': a call parameter or a field cannot be a secret", member);
  }
  return t;
}

export function keyMaterial(m: MemberReader, names: MemberNames): Template {
  return m.template(names);
}

/** The secret's text for this call; InvalidInput naming `what` when empty (never echoing it). */
export function secretText(x: Execution, t: Template, row: Row | undefined, what: string): string {
  const text = textInput(x, t, row, what);
  if (text === '') throw new InvalidInput(`'${what}' must not be empty`);
  return text;
}
