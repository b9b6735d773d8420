/**
 * Warnings for what an operator must act on, each logged
 * once per transition rather than per event: token exchange throttling
 * kicking in for an address, a ripple peer that stops (and starts again)
 * accepting batches, and a snapshot that fails in the background (with its
 * cause). Real servers, captured through ServerConfig.logger. The slow
 * consumer warning is checked beside the slow consumer spec (spec/http/ws.spec.ts).
 */
import { expect } from 'chai';
import { createServer } from 'node:net';
import { ADMIN_KEY, TestServer, type LoggedLine } from '../helpers/test-server.js';
import { FaultyFs } from '../helpers/faulty-fs.js';

type Config = NonNullable<Parameters<typeof TestServer.start>[0]>;

async function logged(config: Config = {}): Promise<{ t: TestServer; lines: LoggedLine[] }> {
  const lines: LoggedLine[] = [];
  const t = await TestServer.start({ ...config, logger: (level, msg, extra) => lines.push({ level, msg, extra }) });
  return { t, lines };
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

async function eventually(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const matching = (lines: LoggedLine[], re: RegExp) => lines.filter((l) => re.test(l.msg));

describe('warnings an operator must act on', function () {
  this.timeout(30_000);

  it('warns once when a client address reaches the failed token request limit, naming the address', async () => {
    const { t, lines } = await logged({ authFailureLimit: 3 });
    try {
      for (let i = 0; i < 5; i++)
        await t.request('POST', '/api/auth/token', { api_key: `wrong-${i}` }, { token: null });
      const warned = matching(lines, /failed token requests/);
      expect(warned).to.have.length(1);
      expect(warned[0]!.level).to.equal('warn');
      expect(warned[0]!.msg).to.contain('client 127.0.0.1 made 3 failed token requests within 60 s');
      expect(warned[0]!.extra).to.include({ client: '127.0.0.1', failures: 3, windowSecs: 60 });
      expect(JSON.stringify(lines)).to.not.contain('wrong-');
    } finally {
      await t.stop();
    }
  });

  it('warns when a ripple peer stops accepting batches and when it accepts them again, not on every retry', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const { t: a, lines } = await logged({ ripplePeers: [{ url, key: ADMIN_KEY }], rippleMaxBackoffMs: 50 });
    let b: TestServer | undefined;
    try {
      await a.request('POST', '/api/insert/users', { name: 'ann' });
      await eventually(() => matching(lines, /ripple peer/).length > 0, 'the first warning');
      // Several retries go by (backoff capped at 50 ms) without another line.
      await new Promise((r) => setTimeout(r, 400));
      const down = matching(lines, /ripple peer/);
      expect(down).to.have.length(1);
      expect(down[0]!.level).to.equal('warn');
      expect(down[0]!.msg).to.match(
        new RegExp(
          `^ripple peer ${url} is not accepting batches \\(.+\\); retrying with backoff up to 50 ms, nothing is ` +
            `dropped$`,
        ),
      );
      expect(down[0]!.extra).to.have.property('peer', url);
      expect((down[0]!.extra as { lag: number }).lag).to.be.at.least(1);
      b = await TestServer.start({ port });
      await eventually(() => matching(lines, /accepts batches again/).length > 0, 'the recovery line');
      const back = matching(lines, /ripple peer/);
      expect(back).to.have.length(2);
      expect(back[1]!.msg).to.match(
        new RegExp(`^ripple peer ${url} accepts batches again after [\\d.]+ s and \\d+ failed attempt\\(s\\)$`),
      );
      expect(JSON.stringify(lines)).to.not.contain(ADMIN_KEY);
    } finally {
      await a.stop();
      await b?.stop();
    }
  });

  it('logs a snapshot that fails in the background at error level with its cause', async () => {
    const fs = new FaultyFs();
    const { t, lines } = await logged({ fs, snapshotBytes: 1 });
    try {
      // The snapshot is written, then fails verification when read back: the previous generation stays whole.
      fs.failReadsOf = '.snap';
      await t.request('POST', '/api/insert/users', { name: 'ann' });
      await eventually(() => matching(lines, /failed/).length > 0, 'the snapshot failure');
      const [line, ...more] = matching(lines, /failed/);
      expect(more).to.deep.equal([]);
      expect(line!.level).to.equal('error');
      expect(line!.msg).to.match(
        /^snapshot \(log segment full\) failed: snapshot snapshot-\d+\.snap failed verification .*; the log keeps growing until a snapshot succeeds$/,
      );
      expect((line!.extra as Error).cause)
        .to.be.instanceOf(Error)
        .with.property('message')
        .that.contains('EIO');
    } finally {
      fs.failReadsOf = undefined;
      await t.stop();
    }
  });
});
