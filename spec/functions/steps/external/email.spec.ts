import { expect } from 'chai';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { closeOutboundPools } from '../../../../lib/outbound/index.js';
import { FunctionHarness, rejection } from '../../../helpers/function-harness.js';
import { startLocalHttp, type LocalHttp } from '../../../helpers/local-http.js';

interface Received {
  from: string;
  to: string[];
  raw: string;
}

/** A real SMTP server on 127.0.0.1 (no TLS), keeping what it received. */
async function startSmtp(
  options: Partial<SMTPServerOptions> = {},
): Promise<{ port: number; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      let raw = '';
      stream.on('data', (c: Buffer) => {
        raw += c.toString('utf8');
      });
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
        });
        callback(null);
      });
    },
    ...options,
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.server.address() as AddressInfo;
  return { port, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const mail = (extra: Record<string, unknown> = {}) => ({
  type: 'EmailSend',
  to: '{{email}}',
  from: 'noreply@example.com',
  subject: 'Welcome {{name}}',
  body: 'Hello {{name}}!',
  ...extra,
});

describe('functions: EmailSend step over SMTP', () => {
  let h: FunctionHarness;
  beforeEach(async () => {
    h = await FunctionHarness.open();
  });
  afterEach(async () => {
    await h.close();
  });

  it('sends through the configured SMTP server and writes the reply to email_send', async () => {
    const smtp = await startSmtp();
    try {
      await h.db.updateSettings({ smtp_host: '127.0.0.1', smtp_port: smtp.port });
      const r = await h.run([mail({ reply_to: 'support@example.com' })], { email: 'ann@example.org', name: 'Ann' });
      expect(r.records[0]!.email_send).to.deep.include({ provider: 'smtp', provider_status: 250 });
      expect((r.records[0]!.email_send as any).provider_message).to.match(/^250/);
      expect(smtp.received).to.have.length(1);
      expect(smtp.received[0]).to.deep.include({ from: 'noreply@example.com', to: ['ann@example.org'] });
      expect(smtp.received[0]!.raw)
        .to.match(/Subject: Welcome Ann/)
        .and.match(/Hello Ann!/)
        .and.match(/Reply-To: support@example.com/);
    } finally {
      await smtp.close();
    }
  });

  it('logs in with smtp_user and smtp_password; a refusal is an answer and never shows the password', async () => {
    const smtp = await startSmtp({
      authOptional: false,
      allowInsecureAuth: true,
      onAuth(auth, _session, callback) {
        if (auth.username === 'mailer' && auth.password === 'pa55-secret') callback(null, { user: 'mailer' });
        else callback(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
      },
    });
    try {
      await h.db.updateSettings({
        smtp_host: '127.0.0.1',
        smtp_port: smtp.port,
        smtp_user: 'mailer',
        smtp_password: 'pa55-secret',
      });
      const ok = await h.run([mail()], { email: 'a@example.org', name: 'A' });
      expect((ok.records[0]!.email_send as any).provider_status).to.equal(250);
      await h.db.updateSettings({ smtp_password: 'wrong-pass' });
      const refused = await h.run([mail()], { email: 'a@example.org', name: 'A' });
      expect((refused.records[0]!.email_send as any).provider_status).to.equal(535);
      expect(JSON.stringify(refused.records)).not.to.include('wrong-pass');
      expect(smtp.received).to.have.length(1);
    } finally {
      await smtp.close();
    }
  });

  it('reports a refused recipient as the provider status', async () => {
    const smtp = await startSmtp({
      onRcptTo(address, _session, callback) {
        if (address.address.endsWith('@blocked.example'))
          callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }));
        else callback();
      },
    });
    try {
      await h.db.updateSettings({ smtp_host: '127.0.0.1', smtp_port: smtp.port });
      const r = await h.run([mail()], { email: 'x@blocked.example', name: 'X' });
      expect((r.records[0]!.email_send as any).provider_status).to.equal(550);
    } finally {
      await smtp.close();
    }
  });

  it('fails without an SMTP server configured, or when it cannot be reached', async () => {
    const none = await rejection(h.run([mail()], { email: 'a@example.org', name: 'A' }));
    expect(none.status).to.equal(400);
    expect(none.message).to.match(/no SMTP server configured/);
    const smtp = await startSmtp();
    const port = smtp.port;
    await smtp.close();
    await h.db.updateSettings({ smtp_host: '127.0.0.1', smtp_port: port });
    const down = await rejection(h.run([mail()], { email: 'a@example.org', name: 'A' }));
    expect(down.status).to.equal(502);
    expect(down.type).to.equal('EmailSend');
  });

  it('refuses header injection, bad providers, a sendgrid step without api_key and transactional use', async () => {
    await h.db.updateSettings({ smtp_host: '127.0.0.1', smtp_port: 1 });
    expect(
      (await rejection(h.run([mail()], { email: 'a@example.org\r\nBcc: evil@example.com', name: 'A' }))).message,
    ).to.match(/'to' must be an e-mail address/);
    expect(
      (await rejection(h.run([mail({ from: 'not-an-address' })], { email: 'a@example.org', name: 'A' }))).message,
    ).to.match(/'from'/);
    expect(() => h.define({ label: 'p', functions: [mail({ provider: 'mailgun' })] })).to.throw(
      /provider: must be one of smtp, sendgrid/,
    );
    expect(() => h.define({ label: 'k', functions: [mail({ provider: 'sendgrid' })] })).to.throw(/api_key/);
    expect(() =>
      h.define({ label: 't', transaction_config: { enabled: true, auto_rollback: true }, functions: [mail()] }),
    ).to.throw(/cannot take part/);
  });
});

describe('functions: EmailSend step over the sendgrid provider', () => {
  let h: FunctionHarness;
  let srv: LocalHttp;
  beforeEach(async () => {
    h = await FunctionHarness.open();
    srv = await startLocalHttp();
    await h.db.updateSettings({ sendgrid_api_url: srv.url, outbound_allow_hosts: ['127.0.0.1'] });
  });
  afterEach(async () => {
    await srv.close();
    await h.close();
  });
  after(async () => {
    await closeOutboundPools();
  });

  it('posts to /v3/mail/send with the key as a bearer token and writes 202 Accepted', async () => {
    srv.handler = (_req, res) => {
      res.writeHead(202);
      res.end();
    };
    const r = await h.run(
      [
        mail({
          provider: 'sendgrid',
          api_key: 'SG.test-key-123',
          html: true,
          body: '<p>Hi {{name}}</p>',
          reply_to: 'help@example.com',
        }),
      ],
      { email: 'ann@example.org, bob@example.org', name: 'Ann' },
    );
    expect(r.records[0]!.email_send).to.deep.equal({
      provider: 'sendgrid',
      provider_status: 202,
      provider_message: 'Accepted',
    });
    const seen = srv.seen[0]!;
    expect(seen).to.deep.include({ method: 'POST', url: '/v3/mail/send' });
    expect(seen.headers.authorization).to.equal('Bearer SG.test-key-123');
    expect(JSON.parse(seen.body)).to.deep.equal({
      personalizations: [{ to: [{ email: 'ann@example.org' }, { email: 'bob@example.org' }] }],
      from: { email: 'noreply@example.com' },
      reply_to: { email: 'help@example.com' },
      subject: 'Welcome Ann',
      content: [{ type: 'text/html', value: '<p>Hi Ann</p>' }],
    });
    expect(JSON.stringify(r)).not.to.include('SG.test-key-123');
  });

  it('writes a refusal as the provider status and message, with the key never echoed', async () => {
    srv.handler = (_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          errors: [{ message: 'The provided authorization grant is invalid: SG.bad-key', field: null }],
        }),
      );
    };
    const r = await h.run([mail({ provider: 'sendgrid', api_key: 'SG.bad-key' })], {
      email: 'a@example.org',
      name: 'A',
    });
    expect(r.records[0]!.email_send).to.deep.equal({
      provider: 'sendgrid',
      provider_status: 401,
      provider_message: 'The provided authorization grant is invalid: [redacted]',
    });
  });

  it('obeys the host policy: a loopback provider URL is denied without the allow-list', async () => {
    await h.db.updateSettings({ outbound_allow_hosts: [] });
    const err = await rejection(
      h.run([mail({ provider: 'sendgrid', api_key: 'k' })], { email: 'a@example.org', name: 'A' }),
    );
    expect(err.status).to.equal(400);
    expect(err.message).to.match(/denied/);
    expect(srv.seen).to.have.length(0);
  });
});
