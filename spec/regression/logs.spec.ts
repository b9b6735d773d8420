/**
 * Logs people can use. Nothing was logged by default and
 * 4xx lines had no latency. Now one pino logger per server: a startup
 * summary, an optional access line per request (route pattern, status,
 * latency, request id, bytes), levels, JSON or text lines. Checked on the
 * captured log of real servers: through ServerConfig.logger (the sink gets
 * the calls) and through ServerConfig.logStream (the lines pino writes).
 */
import { expect } from 'chai';
import { ADMIN_KEY, TestServer, type LoggedLine } from '../helpers/test-server.js';
import { FaultyFs } from '../helpers/faulty-fs.js';
import { tempDir, removeDir } from '../helpers/temp-dir.js';
import { VERSION } from '../../lib/http/index.js';

type Fields = Record<string, unknown>;
type Config = NonNullable<Parameters<typeof TestServer.start>[0]>;

/** A server whose log lines (at its level) are collected. */
async function logged(config: Config = {}): Promise<{ t: TestServer; lines: LoggedLine[] }> {
  const lines: LoggedLine[] = [];
  const t = await TestServer.start({ ...config, logger: (level, msg, extra) => lines.push({ level, msg, extra }) });
  return { t, lines };
}

/** A server writing pino's output to a string array, one entry per line (not quiet, unlike other test servers). */
async function streamed(config: Config = {}): Promise<{ t: TestServer; out: string[] }> {
  const out: string[] = [];
  const t = await TestServer.start({
    quiet: false,
    ...config,
    logger: undefined,
    logStream: { write: (s: string) => out.push(s) },
  });
  return { t, out };
}

const everything = (lines: LoggedLine[]) => lines.map((l) => `${l.msg} ${JSON.stringify(l.extra ?? null)}`).join('\n');

describe('logs people can use', function () {
  this.timeout(20_000);
  let dir: string;
  beforeEach(() => {
    dir = tempDir('eddydb-logs-');
  });
  afterEach(() => removeDir(dir));

  describe('startup summary', () => {
    it(
      'logs exactly one info line at startup with version, address, data dir, durability, counts, recovery and ' +
        'where the admin key came from',
      async () => {
        const first = await TestServer.start({ dataDir: dir });
        for (const name of ['ann', 'bob', 'cy']) await first.request('POST', '/api/insert/people', { name });
        await first.request('POST', '/api/insert/pets', { name: 'rex' });
        await first.stop({ keepData: true });

        const { t, lines } = await logged({ dataDir: dir, settings: { durability: 'batch' } });
        try {
          const infos = lines.filter((l) => l.level === 'info');
          expect(infos.map((l) => l.msg)).to.deep.equal(['server started']);
          const s = infos[0]!.extra as Fields;
          expect(s).to.include({
            version: VERSION,
            address: t.url,
            dataDir: dir,
            durability: 'batch',
            collections: 2,
            records: 4,
            replayedBatches: 0,
            droppedFrames: 0,
            droppedBytes: 0,
            recoveryWarnings: 0,
            salvaged: false,
            adminKey: 'configured',
          });
          expect(s.snapshot).to.match(/^snapshot-\d+\.snap$/);
          expect(s.recoveryMs).to.be.a('number').within(0, 10_000);
        } finally {
          await t.stop({ keepData: true });
        }
      },
    );

    it('says a key was generated without ever logging the key, which is announced on its own', async () => {
      const announced: string[] = [];
      const { t, lines } = await logged({ dataDir: dir, adminKey: undefined, announce: (m) => announced.push(m) });
      await t.stop({ keepData: true });
      const key = /eddy_admin_\S+/.exec(announced.join('\n'))![0];
      expect((lines.find((l) => l.msg === 'server started')!.extra as Fields).adminKey).to.equal('generated');
      expect(everything(lines)).to.not.contain(key);
    });
  });

  describe('access log', () => {
    it('writes one info line per request with the route pattern, status, latency, request id and bytes out', async () => {
      const { t, lines } = await logged({ accessLog: true });
      try {
        const id = (await t.request('POST', '/api/insert/people', { name: 'ann' })).body.id;
        lines.length = 0;
        const r = await t.request('GET', `/api/find/people/${id}`);
        expect(r.status).to.equal(200);
        expect(lines).to.have.length(1);
        expect(lines[0]).to.include({ level: 'info', msg: 'request completed' });
        const a = lines[0]!.extra as Fields;
        expect(a).to.include({
          method: 'GET',
          route: '/api/find/:collection/:id',
          url: `/api/find/people/${id}`,
          status: 200,
          reqId: r.headers.get('x-request-id'),
          bytesOut: Number(r.headers.get('content-length')),
        });
        expect(a.latencyMs).to.be.a('number').within(0, 2000);
        expect(a).to.not.have.property('error');
      } finally {
        await t.stop();
      }
    });

    it('gives a failed request one line with its error code, a null route when none matched, and the URL redacted', async () => {
      const { t, lines } = await logged({ accessLog: true });
      try {
        await t.adminToken();
        lines.length = 0;
        const r = await t.request('GET', '/api/no/such/route?api_key=SECRET-K&limit=2');
        expect(r.status).to.equal(404);
        expect(lines).to.have.length(1);
        expect(lines[0]!.extra).to.include({
          route: null,
          url: '/api/no/such/route?api_key=[REDACTED]&limit=2',
          status: 404,
          error: 'NOT_FOUND',
          reqId: r.headers.get('x-request-id'),
        });
        expect(everything(lines)).to.not.contain('SECRET');
      } finally {
        await t.stop();
      }
    });

    it('logs the WebSocket upgrade and the start of an SSE stream under their routes', async () => {
      const { t, lines } = await logged({ accessLog: true });
      try {
        const token = await t.adminToken();
        lines.length = 0;
        const ac = new AbortController();
        const sse = await fetch(`${t.url}/api/subscribe/people?token=${token}`, { signal: ac.signal });
        expect(sse.status).to.equal(200);
        ac.abort();
        const { default: WebSocket } = await import('ws');
        const ws = new WebSocket(t.url.replace('http', 'ws') + '/api/ws', {
          headers: { authorization: `Bearer ${token}` },
        });
        await new Promise((resolve, reject) => {
          ws.once('open', resolve);
          ws.once('error', reject);
        });
        ws.close();
        const routes = lines.map((l) => l.extra as Fields).map((a) => [a.route, a.status]);
        expect(routes).to.deep.equal([
          ['/api/subscribe/:collection', 200],
          ['/api/ws', 101],
        ]);
        expect((lines[0]!.extra as Fields).reqId).to.equal(sse.headers.get('x-request-id'));
        expect((lines[0]!.extra as Fields).url).to.equal('/api/subscribe/people?token=[REDACTED]');
      } finally {
        await t.stop();
      }
    });
  });

  describe('levels', () => {
    it('logs nothing for a 404 at the default level without the access log', async () => {
      const { t, lines } = await logged();
      try {
        await t.adminToken();
        lines.length = 0;
        expect((await t.request('GET', '/api/find/people/missing')).status).to.equal(404);
        expect((await t.request('GET', '/api/nowhere')).status).to.equal(404);
        expect(lines).to.deep.equal([]);
      } finally {
        await t.stop();
      }
    });

    it('shows 4xx lines at debug, hides the summary at warn, and logs nothing when silent', async () => {
      const debug = await logged({ logLevel: 'debug' });
      await debug.t.request('GET', '/api/find/people/missing');
      await debug.t.stop();
      expect(debug.lines.some((l) => l.level === 'debug' && l.msg === 'GET /api/find/people/missing -> 404')).to.equal(
        true,
      );

      const warn = await logged({ logLevel: 'warn', authFailureLimit: 1 });
      await warn.t.request('POST', '/api/auth/token', { api_key: 'wrong' }, { token: null });
      await warn.t.stop();
      expect(warn.lines.map((l) => l.level)).to.deep.equal(['warn']);

      const silent = await logged({ logLevel: 'silent', authFailureLimit: 1 });
      await silent.t.request('POST', '/api/auth/token', { api_key: 'wrong' }, { token: null });
      await silent.t.stop();
      expect(silent.lines).to.deep.equal([]);
    });

    it('refuses an unknown level or format before opening anything', async () => {
      for (const bad of [{ logLevel: 'verbose' }, { logFormat: 'yaml' }] as unknown as Config[]) {
        let err: unknown;
        try {
          await TestServer.start({ dataDir: dir, ...bad });
        } catch (e) {
          err = e;
        }
        expect(String(err)).to.match(/log (level|format) must be/);
      }
    });
  });

  describe('output formats', () => {
    it('writes pino JSON lines by default, an error with its stack', async () => {
      const fs = new FaultyFs();
      const { t, out } = await streamed({ fs });
      try {
        fs.failReadsOf = 'audit.log';
        const r = await t.request('GET', '/api/admin/audit');
        expect(r.status).to.equal(500);
      } finally {
        fs.failReadsOf = undefined;
        await t.stop();
      }
      const entries = out.map((line) => JSON.parse(line) as Fields);
      const summary = entries.find((e) => e.msg === 'server started')!;
      expect(summary).to.include({ level: 30, version: VERSION });
      expect(summary.time).to.be.a('number');
      const error = entries.find((e) => e.level === 50)!;
      expect(error.msg).to.contain('GET /api/admin/audit failed with 500');
      const err = error.err as Fields;
      expect(err).to.include({ type: 'Error', code: 'EIO' });
      expect(err.stack).to.be.a('string').and.contain('EIO').and.contain('    at ');
      expect(JSON.stringify(entries)).to.not.contain(ADMIN_KEY);
    });

    it('writes readable text lines with logFormat text: time, level, message, fields, then the stack', async () => {
      const fs = new FaultyFs();
      const { t, out } = await streamed({ fs, logFormat: 'text', accessLog: true });
      try {
        fs.failReadsOf = 'audit.log';
        await t.request('GET', '/api/admin/audit?password=SECRET-P');
      } finally {
        fs.failReadsOf = undefined;
        await t.stop();
      }
      const text = out.join('');
      expect(text).to.match(
        /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z INFO {2}server started version=0\.1\.0 address=http:\/\/127\.0\.0\.1:\d+ /m,
      );
      expect(text).to.match(
        / INFO {2}request completed method=GET route=\/api\/admin\/audit url="\/api\/admin\/audit\?password=\[REDACTED\]" status=500 latencyMs=[\d.]+ reqId=[0-9a-f-]{36} bytesOut=\d+ error=INTERNAL$/m,
      );
      expect(text).to.match(
        / ERROR GET \/api\/admin\/audit\?password=\[REDACTED\] failed with 500 .*\nError: EIO: i\/o error, read\n {4}at /,
      );
      expect(text).to.not.contain('SECRET');
    });

    it('keeps warnings and errors only when quiet', async () => {
      const { t, out } = await streamed({ quiet: true, authFailureLimit: 1 });
      await t.request('POST', '/api/auth/token', { api_key: 'wrong' }, { token: null });
      await t.stop();
      expect(out.map((line) => (JSON.parse(line) as Fields).level)).to.deep.equal([40]);
    });
  });
});
