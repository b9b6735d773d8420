/**
 * EmailSend's `sendgrid` provider: its v3 mail/send HTTP API, through
 * outboundFetch (host policy and proxies apply). The base URL is the
 * `sendgrid_api_url` setting (tests point it at a local server). Any HTTP
 * answer is the result (202 when accepted; the provider's error messages
 * otherwise); the API key is sent only in the Authorization header and
 * never appears in the result or an error.
 */
import { fromJson } from '../../../../engine/index.js';
import { outboundFetch, type OutboundPolicy } from '../../../../outbound/index.js';
import { providerMessage, type MailMessage, type MailResult } from './mail-message.js';

/** Provider answers are small; a larger one is not a SendGrid answer. */
const MAX_ANSWER_BYTES = 64 * 1024;

export async function sendSendgrid(msg: MailMessage, apiKey: string, baseUrl: string, policy: OutboundPolicy, timeoutMs: number): Promise<MailResult> {
  const payload = {
    personalizations: [{ to: msg.to.map((email) => ({ email })) }],
    from: { email: msg.from },
    ...(msg.replyTo ? { reply_to: { email: msg.replyTo } } : {}),
    subject: msg.subject,
    // SendGrid wants text/plain before text/html.
    content: [
      ...(msg.text !== undefined ? [{ type: 'text/plain', value: msg.text }] : []),
      ...(msg.html !== undefined ? [{ type: 'text/html', value: msg.html }] : []),
    ],
  };
  const res = await outboundFetch(`${baseUrl.replace(/\/+$/, '')}/v3/mail/send`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(payload), timeoutMs, maxBytes: MAX_ANSWER_BYTES, maxRedirects: 0,
  }, policy);
  return { provider: 'sendgrid', provider_status: res.status, provider_message: providerMessage(answerText(res.status, res.body.toString('utf8'), apiKey)) };
}

/** `Accepted`, or the provider's error messages, with the key blanked should an answer echo it. */
function answerText(status: number, text: string, apiKey: string): string {
  let message = status >= 200 && status < 300 ? 'Accepted' : text.trim() || `HTTP ${status}`;
  try {
    const body = fromJson(text) as { errors?: Array<{ message?: unknown }> } | null;
    const errors = body?.errors?.map((e) => e.message).filter((m): m is string => typeof m === 'string');
    if (errors && errors.length > 0) message = errors.join('; ');
  } catch {
    // not JSON: the text as it is
  }
  return apiKey === '' ? message : message.split(apiKey).join('[redacted]');
}
