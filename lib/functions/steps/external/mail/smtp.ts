/**
 * EmailSend's default provider: SMTP through nodemailer (MIME, STARTTLS,
 * auth and header encoding are its job). The server is the settings'
 * (`smtp_host`, `smtp_port`, `smtp_secure`, `smtp_user`, `smtp_password`; env
 * EDDYDB_SMTP_* at start): an administrator's choice, so the outbound host
 * policy does not apply to it. A reply from the server, accepting or
 * refusing, is the result; only not reaching it (or a timeout) throws.
 */
import nodemailer from 'nodemailer';
import { InvalidInput, Timeout, UpstreamFailed } from '../../../../errors.js';
import { providerMessage, type MailMessage, type MailResult } from './mail-message.js';

export interface SmtpConfig {
  readonly host: string | null;
  readonly port: number;
  readonly secure: boolean;
  readonly user: string | null;
  readonly pass: string | null;
}

export async function sendSmtp(msg: MailMessage, cfg: SmtpConfig, timeoutMs: number): Promise<MailResult> {
  if (!cfg.host) throw new InvalidInput('EmailSend: no SMTP server configured (set smtp_host, or use provider sendgrid)');
  const transport = nodemailer.createTransport({
    host: cfg.host, port: cfg.port, secure: cfg.secure,
    ...(cfg.user ? { auth: { user: cfg.user, pass: cfg.pass ?? '' } } : {}),
    connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs,
    disableFileAccess: true, disableUrlAccess: true,
  });
  try {
    const info = await transport.sendMail({
      from: msg.from, to: [...msg.to], subject: msg.subject,
      ...(msg.text !== undefined ? { text: msg.text } : {}),
      ...(msg.html !== undefined ? { html: msg.html } : {}),
      ...(msg.replyTo ? { replyTo: msg.replyTo } : {}),
    });
    const response = String(info.response ?? '');
    const code = Number(/^\d{3}/.exec(response)?.[0]);
    return { provider: 'smtp', provider_status: Number.isFinite(code) ? code : null, provider_message: providerMessage(response) };
  } catch (err) {
    const e = err as { responseCode?: number; response?: string; code?: string; message?: string };
    if (typeof e.responseCode === 'number') {
      return { provider: 'smtp', provider_status: e.responseCode, provider_message: providerMessage(e.response ?? e.message ?? '') };
    }
    if (e.code === 'ETIMEDOUT') throw new Timeout(`EmailSend: SMTP server '${cfg.host}' timed out after ${timeoutMs} ms`);
    throw new UpstreamFailed(`EmailSend: SMTP server '${cfg.host}' failed: ${e.code ?? 'connection error'}`, { cause: err });
  } finally {
    transport.close();
  }
}
