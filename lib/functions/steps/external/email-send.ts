/**
 * EmailSend: one e-mail. Members: `to` (an address, a comma separated list
 * or an array, at most 50), `subject`, `body`, `from`, `reply_to?`,
 * `html?` (true: `body` is HTML; a string: the HTML part, `body` the text
 * part), `provider?` (`smtp`, the default, or `sendgrid`), `api_key`
 * (needed by `sendgrid`; write it as `{{env.NAME}}`), `timeout_seconds?`
 * (default 30, at most 300), `output_field?` (default `email_send`).
 *
 * The output field gets `{provider_status, provider_message, provider}`
 * (the SMTP reply code or the HTTP status), added to every working record
 * (one record when there is none). A provider's answer, accepting or
 * refusing, is the output, so a function can branch on it; not reaching
 * the provider, or a timeout, fails the step. The api_key is never in the
 * output or an error. It reaches outside, so a transactional function
 * refuses it.
 */
import { isTypedWrapper } from '../../../engine/index.js';
import { InvalidInput } from '../../../errors.js';
import { checkAddress, checkRecipients, sendSendgrid, sendSmtp, type MailMessage, type MailResult } from './mail/index.js';
import type { Template } from '../../template.js';
import { step, type Execution, type Row } from '../step.js';
import { addToRows, DEFAULT_STEP_TIMEOUT_SECONDS, MAX_STEP_TIMEOUT_SECONDS } from './request-members.js';

const PROVIDERS = ['smtp', 'sendgrid'] as const;
type Provider = (typeof PROVIDERS)[number];

interface EmailConfig {
  readonly to: Template;
  readonly subject: Template;
  readonly body: Template;
  readonly from: Template;
  readonly replyTo?: Template;
  readonly html?: Template;
  readonly apiKey?: Template;
  readonly provider: Provider;
  readonly timeoutSeconds: number;
  readonly output: readonly string[];
}

export const emailSend = step<EmailConfig>({
  type: 'EmailSend',
  secretMembers: ['api_key'],
  access: 'outside',
  compile: (m) => {
    const provider = (m.optionalString('provider') ?? 'smtp').toLowerCase();
    if (!(PROVIDERS as readonly string[]).includes(provider)) m.fail(`must be one of ${PROVIDERS.join(', ')}`, 'provider');
    const apiKey = m.optionalTemplate('api_key');
    if (provider === 'sendgrid' && !apiKey) m.fail("the sendgrid provider needs 'api_key'", 'api_key');
    const replyTo = m.optionalTemplate('reply_to');
    const html = m.optionalTemplate('html');
    return {
      to: m.template('to'), subject: m.template('subject'), body: m.template('body'), from: m.template('from'),
      ...(replyTo ? { replyTo } : {}), ...(html ? { html } : {}), ...(apiKey ? { apiKey } : {}),
      provider: provider as Provider,
      timeoutSeconds: m.optionalInteger(['timeout_seconds', 'timeout_secs'], 1, MAX_STEP_TIMEOUT_SECONDS) ?? DEFAULT_STEP_TIMEOUT_SECONDS,
      output: m.optionalFieldPath('output_field') ?? ['email_send'],
    };
  },
  run: async (cfg, rows, x) => {
    const row = rows[0];
    const msg = message(cfg, row, x);
    const result = await deliver(cfg, msg, row, x);
    return addToRows(rows, cfg.output, { ...result });
  },
});

function message(cfg: EmailConfig, row: Row | undefined, x: Execution): MailMessage {
  const body = x.text(cfg.body, row, 'body');
  const html = cfg.html ? unwrap(x.resolve(cfg.html, row)) : undefined;
  if (html !== undefined && html !== null && typeof html !== 'boolean' && typeof html !== 'string') {
    throw new InvalidInput("EmailSend 'html' must be a boolean (body is HTML) or the HTML part");
  }
  const replyTo = cfg.replyTo ? x.text(cfg.replyTo, row, 'reply_to') : '';
  return {
    to: checkRecipients(unwrap(x.resolve(cfg.to, row))),
    from: checkAddress(x.text(cfg.from, row, 'from'), 'from'),
    subject: oneLine(x.text(cfg.subject, row, 'subject')),
    ...(html === true ? { html: body } : typeof html === 'string' ? { text: body, html } : { text: body }),
    ...(replyTo !== '' ? { replyTo: checkAddress(replyTo, 'reply_to') } : {}),
  };
}

function deliver(cfg: EmailConfig, msg: MailMessage, row: Row | undefined, x: Execution): Promise<MailResult> {
  const s = x.settings();
  const timeoutMs = Math.max(1, Math.min(cfg.timeoutSeconds * 1000, x.remainingMs()));
  if (cfg.provider === 'sendgrid') {
    const key = x.resolve(cfg.apiKey!, row);
    if (typeof key !== 'string' || key === '') throw new InvalidInput("EmailSend 'api_key' must resolve to a non-empty string");
    return sendSendgrid(msg, key, s.sendgrid_api_url, x.outbound(), timeoutMs);
  }
  return sendSmtp(msg, { host: s.smtp_host, port: s.smtp_port, secure: s.smtp_secure, user: s.smtp_user, pass: s.smtp_password }, timeoutMs);
}

function unwrap(v: unknown): unknown {
  return isTypedWrapper(v) ? v.value : v;
}

/** A subject is one header line: line breaks become spaces (nodemailer encodes the rest). */
function oneLine(s: string): string {
  return s.replace(/[\r\n]+/g, ' ');
}
