/** An e-mail to send and what the provider said, whichever provider carries it. */
import { InvalidInput } from '../../../../errors.js';

export interface MailMessage {
  readonly to: readonly string[];
  readonly from: string;
  readonly subject: string;
  /** The plain-text part and the HTML part; at least one is present. */
  readonly text?: string;
  readonly html?: string;
  readonly replyTo?: string;
}

/** The EmailSend output: the provider's status (SMTP reply code or HTTP status; null when none) and message. */
export interface MailResult {
  readonly provider: string;
  readonly provider_status: number | null;
  readonly provider_message: string;
}

export const MAX_RECIPIENTS = 50;
const MAX_ADDRESS = 320;
const MAX_PROVIDER_MESSAGE = 500;

/**
 * An address as a function wrote it (`a@b.c` or `Name <a@b.c>`): one line,
 * bounded, with an `@`. Providers parse it further; this keeps header
 * injection and junk out before they do.
 */
export function checkAddress(raw: unknown, member: string): string {
  // eslint-disable-next-line no-control-regex
  if (typeof raw !== 'string' || raw.trim() === '' || raw.length > MAX_ADDRESS || /[\u0000-\u001f\u007f]/.test(raw) || !raw.includes('@')) {
    throw new InvalidInput(`EmailSend '${member}' must be an e-mail address`);
  }
  return raw.trim();
}

/** `to` as one address, a comma separated list, or an array of them. */
export function checkRecipients(raw: unknown): string[] {
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : [raw];
  const out = list.map((a) => checkAddress(typeof a === 'string' ? a.trim() : a, 'to'));
  if (out.length === 0 || out.length > MAX_RECIPIENTS) throw new InvalidInput(`EmailSend 'to' must name 1 to ${MAX_RECIPIENTS} recipients`);
  return out;
}

export function providerMessage(text: string): string {
  return text.length > MAX_PROVIDER_MESSAGE ? `${text.slice(0, MAX_PROVIDER_MESSAGE)}...` : text;
}
