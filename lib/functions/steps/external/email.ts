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
 *
 * The providers, this step's alone:
 * - `smtp` through nodemailer (MIME, STARTTLS, auth and header encoding are
 *   its job). The server is the settings' (`smtp_host`, `smtp_port`,
 *   `smtp_secure`, `smtp_user`, `smtp_password`; env EDDYDB_SMTP_* at
 *   start): an administrator's choice, so the outbound host policy does not
 *   apply to it.
 * - `sendgrid`: its v3 mail/send HTTP API through lib/outbound (host policy
 *   and proxies apply). The base URL is the `sendgrid_api_url` setting
 *   (tests point it at a local server); the API key is sent only in the
 *   Authorization header.
 */
import nodemailer from 'nodemailer';
import { fromJson, isTypedWrapper } from '../../../engine/index.js';
import { InvalidInput, Timeout, UpstreamFailed } from '../../../errors.js';
import { outboundFetch, type OutboundPolicy } from '../../../outbound/index.js';
import type { Template } from '../../template.js';
import { DEFAULT_STEP_TIMEOUT_SECONDS, MAX_STEP_TIMEOUT_SECONDS } from './http.js';
import { step, type Execution, type Row } from '../step.js';
import { writeOutput } from '../working-records.js';

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

/** An e-mail to send, whichever provider carries it. */
interface MailMessage {
  readonly to: readonly string[];
  readonly from: string;
  readonly subject: string;
  /** The plain-text part and the HTML part; at least one is present. */
  readonly text?: string;
  readonly html?: string;
  readonly replyTo?: string;
}

/** The EmailSend output: the provider's status (SMTP reply code or HTTP status; null when none) and message. */
interface MailResult {
  readonly provider: string;
  readonly provider_status: number | null;
  readonly provider_message: string;
}

const MAX_RECIPIENTS = 50;
const MAX_ADDRESS = 320;
const MAX_PROVIDER_MESSAGE = 500;
/** SendGrid's answers are small; a larger one is not a SendGrid answer. */
const MAX_SENDGRID_ANSWER_BYTES = 64 * 1024;

export const emailSend = step<EmailConfig>({
  type: 'EmailSend',
  secretMembers: ['api_key'],
  access: 'outside',
  compile: (members) => {
    const provider = (members.optionalString('provider') ?? 'smtp').toLowerCase();
    if (!(PROVIDERS as readonly string[]).includes(provider))
      members.fail(`must be one of ${PROVIDERS.join(', ')}`, 'provider');
    const apiKey = members.optionalTemplate('api_key');
    if (provider === 'sendgrid' && !apiKey) members.fail("the sendgrid provider needs 'api_key'", 'api_key');
    const replyTo = members.optionalTemplate('reply_to');
    const html = members.optionalTemplate('html');
    const timeoutSeconds = members.optionalInteger(['timeout_seconds', 'timeout_secs'], 1, MAX_STEP_TIMEOUT_SECONDS);
    return {
      to: members.template('to'),
      subject: members.template('subject'),
      body: members.template('body'),
      from: members.template('from'),
      ...(replyTo ? { replyTo } : {}),
      ...(html ? { html } : {}),
      ...(apiKey ? { apiKey } : {}),
      provider: provider as Provider,
      timeoutSeconds: timeoutSeconds ?? DEFAULT_STEP_TIMEOUT_SECONDS,
      output: members.optionalFieldPath('output_field') ?? ['email_send'],
    };
  },
  run: async (config, rows, run) => {
    const row = rows[0];
    const message = mailMessage(config, row, run);
    const result = await deliver(config, message, row, run);
    return writeOutput(rows, config.output, { ...result });
  },
});

function mailMessage(config: EmailConfig, row: Row | undefined, run: Execution): MailMessage {
  const body = run.text(config.body, row, 'body');
  const html = config.html ? unwrap(run.resolve(config.html, row)) : undefined;
  if (html !== undefined && html !== null && typeof html !== 'boolean' && typeof html !== 'string') {
    throw new InvalidInput("EmailSend 'html' must be a boolean (body is HTML) or the HTML part");
  }
  const replyTo = config.replyTo ? run.text(config.replyTo, row, 'reply_to') : '';
  return {
    to: checkRecipients(unwrap(run.resolve(config.to, row))),
    from: checkAddress(run.text(config.from, row, 'from'), 'from'),
    subject: oneLine(run.text(config.subject, row, 'subject')),
    ...(html === true ? { html: body } : typeof html === 'string' ? { text: body, html } : { text: body }),
    ...(replyTo !== '' ? { replyTo: checkAddress(replyTo, 'reply_to') } : {}),
  };
}

function deliver(config: EmailConfig, message: MailMessage, row: Row | undefined, run: Execution): Promise<MailResult> {
  const settings = run.settings();
  const timeoutMs = Math.max(1, Math.min(config.timeoutSeconds * 1000, run.remainingMs()));
  if (config.provider === 'sendgrid') {
    const key = run.resolve(config.apiKey!, row);
    if (typeof key !== 'string' || key === '')
      throw new InvalidInput("EmailSend 'api_key' must resolve to a non-empty string");
    return sendSendgrid(message, key, settings.sendgrid_api_url, run.outbound(), timeoutMs);
  }
  const smtp: SmtpConfig = {
    host: settings.smtp_host,
    port: settings.smtp_port,
    secure: settings.smtp_secure,
    user: settings.smtp_user,
    pass: settings.smtp_password,
  };
  return sendSmtp(message, smtp, timeoutMs);
}

function unwrap(value: unknown): unknown {
  return isTypedWrapper(value) ? value.value : value;
}

/** A subject is one header line: line breaks become spaces (nodemailer encodes the rest). */
function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, ' ');
}

/**
 * An address as a function wrote it (`a@b.c` or `Name <a@b.c>`): one line,
 * bounded, with an `@`. Providers parse it further; this keeps header
 * injection and junk out before they do.
 */
function checkAddress(raw: unknown, member: string): string {
  if (typeof raw !== 'string' || !isAddressText(raw))
    throw new InvalidInput(`EmailSend '${member}' must be an e-mail address`);
  return raw.trim();
}

function isAddressText(text: string): boolean {
  // eslint-disable-next-line no-control-regex
  return text.trim() !== '' && text.length <= MAX_ADDRESS && !/[\u0000-\u001f\u007f]/.test(text) && text.includes('@');
}

/** `to` as one address, a comma separated list, or an array of them. */
function checkRecipients(raw: unknown): string[] {
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',') : [raw];
  const out = list.map((address) => checkAddress(typeof address === 'string' ? address.trim() : address, 'to'));
  if (out.length === 0 || out.length > MAX_RECIPIENTS) {
    throw new InvalidInput(`EmailSend 'to' must name 1 to ${MAX_RECIPIENTS} recipients`);
  }
  return out;
}

function providerMessage(text: string): string {
  return text.length > MAX_PROVIDER_MESSAGE ? `${text.slice(0, MAX_PROVIDER_MESSAGE)}...` : text;
}

interface SmtpConfig {
  readonly host: string | null;
  readonly port: number;
  readonly secure: boolean;
  readonly user: string | null;
  readonly pass: string | null;
}

/** A reply from the SMTP server, accepting or refusing, is the result; only not reaching it (or a timeout) throws. */
async function sendSmtp(message: MailMessage, smtp: SmtpConfig, timeoutMs: number): Promise<MailResult> {
  if (!smtp.host)
    throw new InvalidInput('EmailSend: no SMTP server configured (set smtp_host, or use provider sendgrid)');
  const transport = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    ...(smtp.user ? { auth: { user: smtp.user, pass: smtp.pass ?? '' } } : {}),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  try {
    const info = await transport.sendMail({
      from: message.from,
      to: [...message.to],
      subject: message.subject,
      ...(message.text !== undefined ? { text: message.text } : {}),
      ...(message.html !== undefined ? { html: message.html } : {}),
      ...(message.replyTo ? { replyTo: message.replyTo } : {}),
    });
    const response = String(info.response ?? '');
    const code = Number(/^\d{3}/.exec(response)?.[0]);
    return {
      provider: 'smtp',
      provider_status: Number.isFinite(code) ? code : null,
      provider_message: providerMessage(response),
    };
  } catch (err) {
    const failure = err as { responseCode?: number; response?: string; code?: string; message?: string };
    if (typeof failure.responseCode === 'number') {
      const text = failure.response ?? failure.message ?? '';
      return { provider: 'smtp', provider_status: failure.responseCode, provider_message: providerMessage(text) };
    }
    if (failure.code === 'ETIMEDOUT')
      throw new Timeout(`EmailSend: SMTP server '${smtp.host}' timed out after ${timeoutMs} ms`);
    throw new UpstreamFailed(`EmailSend: SMTP server '${smtp.host}' failed: ${failure.code ?? 'connection error'}`, {
      cause: err,
    });
  } finally {
    transport.close();
  }
}

/** Any HTTP answer is the result (202 when accepted; the provider's error messages otherwise). */
async function sendSendgrid(
  message: MailMessage,
  apiKey: string,
  baseUrl: string,
  policy: OutboundPolicy,
  timeoutMs: number,
): Promise<MailResult> {
  const payload = {
    personalizations: [{ to: message.to.map((email) => ({ email })) }],
    from: { email: message.from },
    ...(message.replyTo ? { reply_to: { email: message.replyTo } } : {}),
    subject: message.subject,
    // SendGrid wants text/plain before text/html.
    content: [
      ...(message.text !== undefined ? [{ type: 'text/plain', value: message.text }] : []),
      ...(message.html !== undefined ? [{ type: 'text/html', value: message.html }] : []),
    ],
  };
  const response = await outboundFetch(
    `${baseUrl.replace(/\/+$/, '')}/v3/mail/send`,
    {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(payload),
      timeoutMs,
      maxBytes: MAX_SENDGRID_ANSWER_BYTES,
      maxRedirects: 0,
    },
    policy,
  );
  const text = sendgridAnswer(response.status, response.body.toString('utf8'), apiKey);
  return { provider: 'sendgrid', provider_status: response.status, provider_message: providerMessage(text) };
}

/** `Accepted`, or the provider's error messages, with the key blanked should an answer echo it. */
function sendgridAnswer(status: number, text: string, apiKey: string): string {
  let message = status >= 200 && status < 300 ? 'Accepted' : text.trim() || `HTTP ${status}`;
  try {
    const body = fromJson(text) as { errors?: Array<{ message?: unknown }> } | null;
    const errors = body?.errors
      ?.map((error) => error.message)
      .filter((item): item is string => typeof item === 'string');
    if (errors && errors.length > 0) message = errors.join('; ');
  } catch {
    // not JSON: the text as it is
  }
  return apiKey === '' ? message : message.split(apiKey).join('[redacted]');
}
