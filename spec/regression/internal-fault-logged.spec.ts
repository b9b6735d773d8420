/**
 * A 500 is only for a real internal fault, and it is always
 * logged at error level with its cause, whichever path answers it. Faults
 * are real ones, injected with the fault-injecting file system; the log is
 * captured through ServerConfig.logger.
 */
import { expect } from 'chai';
import WebSocket from 'ws';
import { TestServer } from '../helpers/test-server.js';
import { FaultyFs } from '../helpers/faulty-fs.js';
import { socketRequest } from '../helpers/raw-http.js';

interface Line {
  level: string;
  msg: string;
  extra: unknown;
}

/** The messages of an error and its causes. */
function causeChain(e: unknown): string[] {
  const out: string[] = [];
  for (let c = e; c instanceof Error && out.length < 5; c = c.cause) out.push(c.message);
  return out;
}

describe('internal faults are logged with their cause', () => {
  let t: TestServer;
  let fs: FaultyFs;
  let lines: Line[];

  beforeEach(async () => {
    lines = [];
    fs = new FaultyFs();
    t = await TestServer.start({
      fs,
      logLevel: 'debug',
      logger: (level, msg, extra) => lines.push({ level, msg, extra }),
    });
    await t.adminToken();
  });
  afterEach(async () => {
    fs.failWrites = false;
    await t.stop();
  });

  it('logs a 500 from a route at error level with the failing read as its cause and the request id of the answer', async () => {
    fs.failReadsOf = 'audit.log';
    const r = await t.request('GET', '/api/admin/audit');
    expect(r.status).to.equal(500);
    expect(r.body.message).to.match(/^Internal server error \(request [0-9a-f-]{36}\)$/);
    expect(r.body.message).to.not.contain('EIO');
    const errors = lines.filter((l) => l.level === 'error');
    expect(errors).to.have.length(1);
    const [line] = errors;
    expect(line!.msg).to.contain('GET /api/admin/audit failed with 500');
    expect(line!.msg).to.contain(r.headers.get('x-request-id')!);
    expect(line!.extra).to.be.instanceOf(Error);
    expect(causeChain(line!.extra).join(' | ')).to.contain('EIO');
    expect((line!.extra as Error).stack)
      .to.be.a('string')
      .and.contain('at ');
  });

  it('answers a snapshot that fails on a full disk with 503 and logs the storage failure once, not as a 500', async () => {
    await t.request('POST', '/api/insert/faults', { a: 1 });
    fs.failWrites = true;
    const r = await t.request('POST', '/api/admin/snapshot', {});
    expect(r.status).to.equal(503);
    const errors = lines.filter((l) => l.level === 'error');
    expect(errors).to.have.length(1);
    expect(errors[0]!.msg).to.match(/^storage failure: .*ENOSPC/);
  });

  it('answers a write refused on a WebSocket frame after a storage failure with a 503 Error, the cause logged once', async () => {
    const ws = new WebSocket(t.url.replace('http', 'ws') + '/api/ws', {
      headers: { authorization: `Bearer ${await t.adminToken()}` },
    });
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    fs.failWrites = true;
    const replies: Array<Record<string, any>> = [];
    const got = (n: number) =>
      new Promise<void>((resolve) => {
        const on = (d: unknown) => {
          replies.push(JSON.parse(String(d)));
          if (replies.length >= n) {
            ws.off('message', on);
            resolve();
          }
        };
        ws.on('message', on);
      });
    const two = got(2);
    ws.send(JSON.stringify({ type: 'Insert', payload: { collection: 'faults', record: { a: 1 } }, messageId: 'm1' }));
    ws.send(JSON.stringify({ type: 'Insert', payload: { collection: 'faults', record: { a: 2 } }, messageId: 'm2' }));
    await two;
    ws.close();
    for (const frame of replies) {
      expect(frame.type).to.equal('Error');
      expect(frame.code).to.equal(503);
    }
    const errors = lines.filter((l) => l.level === 'error');
    expect(errors).to.have.length(1);
    expect(errors[0]!.msg).to.match(/^storage failure: .*ENOSPC/);
  });

  it('logs a 4xx at debug only, without a stack', async () => {
    await t.request('GET', '/api/find/faults/missing');
    expect(lines.filter((l) => l.level === 'error')).to.have.length(0);
    const info = lines.filter((l) => l.level === 'debug' && l.msg === 'GET /api/find/faults/missing -> 404');
    expect(info).to.have.length(1);
    expect(info[0]!.extra).to.equal(undefined);
  });

  it('logs a request node cannot parse at debug, as a 400', async () => {
    await socketRequest(t.url, 'GET /api/health HTTP/1.1\r\nHost: x\r\nAccept: \x01\r\nConnection: close\r\n\r\n');
    expect(lines.some((l) => l.level === 'debug' && l.msg === 'unparsable request -> 400')).to.equal(true);
    expect(lines.filter((l) => l.level === 'error')).to.have.length(0);
  });
});
