/** E-mail providers for EmailSend: SMTP (default) and SendGrid's HTTP API. */
export { checkAddress, checkRecipients, MAX_RECIPIENTS, type MailMessage, type MailResult } from './mail-message.js';
export { sendSmtp, type SmtpConfig } from './smtp.js';
export { sendSendgrid } from './sendgrid.js';
