/**
 * Answers computed in one turn of the event loop are written together in
 * the next check phase (transport/answer-batch.ts). A real node:http server
 * on an ephemeral port: every answer arrives, in order on a pipelined
 * connection, and one answer node refuses to write closes only its own
 * connection, logged, without reaching the process as an exception. Each
 * answer's head and body go out in one socket write (node's own `end(body)`
 * gathers them with an empty chunk into a writev); the writes are counted
 * on the server's socket.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { expect } from 'chai';
import { sendSoon } from '../../../lib/http/transport/answer-batch.js';
import { yieldToLoop } from '../../../lib/engine/index.js';
import type { LogLevel } from '../../../lib/http/log/server-log.js';
import { socketRequest } from '../../helpers/raw-http.js';

describe('answers written in one burst per loop turn', () => {
  let server: http.Server;
  let url: string;
  const logged: Array<{ level: LogLevel; msg: string }> = [];
  const log = (level: LogLevel, msg: string) => {
    logged.push({ level, msg });
  };
  let writtenBeforeResume: boolean | undefined;
  let longWorkResumed: Promise<void> | undefined;
  /** The socket writes node made for each answer to /counted/... (write: one chunk; writev: a gathered write). */
  const writes: Record<string, { write: number; writev: number }> = {};
  const BIG = 'x'.repeat(4 * 1024 * 1024);

  function countWrites(socket: Socket, path: string): void {
    const counts = (writes[path] = { write: 0, writev: 0 });
    const s = socket as unknown as Record<'_write' | '_writev', (...args: unknown[]) => unknown>;
    const write = s._write;
    const writev = s._writev;
    s._write = function (this: unknown, ...args: unknown[]) {
      counts.write++;
      return write.apply(this, args);
    };
    s._writev = function (this: unknown, ...args: unknown[]) {
      counts.writev++;
      return writev.apply(this, args);
    };
  }

  before(async () => {
    server = http.createServer((req, res) => {
      const path = req.url ?? '/';
      if (path === '/during-long-work') {
        // Long work yielded just before this answer was queued: its turn comes first in the check phase,
        // and the answer must still be written before the work's next slice runs.
        const resumed = yieldToLoop();
        sendSoon(res, 200, { 'X-Request-Id': 'r-long' }, 'answered', log);
        longWorkResumed = resumed.then(() => {
          writtenBeforeResume = res.writableEnded;
        });
        return;
      }
      if (path.startsWith('/counted/')) {
        countWrites(req.socket, path);
        // With its length, as the server's transport sends every answer (node-server.ts).
        const send = (status: number, body: string | Buffer) =>
          sendSoon(
            res,
            status,
            { 'X-Request-Id': `r${path}`, 'Content-Type': 'text/plain', 'Content-Length': String(body.length) },
            body,
            log,
          );
        if (path === '/counted/bytes') send(200, Buffer.from('answer in bytes'));
        else if (path === '/counted/empty') send(204, '');
        else send(200, path === '/counted/big' ? BIG : `answer ${path}`);
        return;
      }
      // A value node refuses to write as a header: writeHead throws.
      if (path === '/bad') sendSoon(res, 200, { 'X-Request-Id': 'r-bad', 'X-Bad': 'a\nb' }, 'never', log);
      else sendSoon(res, 200, { 'X-Request-Id': `r${path}`, 'Content-Type': 'text/plain' }, `answer ${path}`, log);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('answers many concurrent requests, each with its own body', async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => fetch(`${url}/${i}`).then((r) => r.text())));
    expect(answers).to.deep.equal(Array.from({ length: 50 }, (_, i) => `answer /${i}`));
  });

  it('keeps the order of pipelined requests on one connection', async () => {
    const raw = await socketRequest(
      url,
      'GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\nGET /c HTTP/1.1\r\nHost: ' +
        'x\r\nConnection: close\r\n\r\n',
    );
    expect(raw.indexOf('answer /a')).to.be.greaterThan(0);
    expect(raw.indexOf('answer /a')).to.be.lessThan(raw.indexOf('answer /b'));
    expect(raw.indexOf('answer /b')).to.be.lessThan(raw.indexOf('answer /c'));
  });

  it('writes an answer queued while long work was away before that work resumes', async () => {
    expect(await (await fetch(`${url}/during-long-work`)).text()).to.equal('answered');
    await longWorkResumed;
    expect(writtenBeforeResume).to.equal(true);
  });

  it('closes only the connection whose answer cannot be written, and logs it', async () => {
    const [bad, good] = await Promise.allSettled([fetch(`${url}/bad`), fetch(`${url}/fine`).then((r) => r.text())]);
    expect(bad.status).to.equal('rejected');
    expect(good).to.deep.equal({ status: 'fulfilled', value: 'answer /fine' });
    expect(logged.some((l) => l.level === 'error' && l.msg.includes('r-bad'))).to.equal(true);
  });

  it('writes a text answer, head and body, in one socket write', async () => {
    const r = await fetch(`${url}/counted/text`);
    expect(await r.text()).to.equal('answer /counted/text');
    expect(r.headers.get('x-request-id')).to.equal('r/counted/text');
    expect(writes['/counted/text']).to.deep.equal({ write: 1, writev: 0 });
  });

  it('still answers without a Content-Length, in chunks', async () => {
    const r = await fetch(`${url}/chunked`);
    expect(r.headers.get('transfer-encoding')).to.equal('chunked');
    expect(await r.text()).to.equal('answer /chunked');
  });

  it('answers HEAD, a 204 and a bytes body whole, and keeps the connection for the next request', async () => {
    const raw = await socketRequest(
      url,
      'HEAD /counted/head HTTP/1.1\r\nHost: x\r\n\r\nGET /counted/empty HTTP/1.1\r\nHost: x\r\n\r\n' +
        'GET /counted/bytes HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    );
    const answers = raw.split(/(?=HTTP\/1\.1 )/);
    expect(answers).to.have.length(3);
    expect(answers[0]).to.match(/^HTTP\/1\.1 200 OK\r\n/);
    expect(answers[0]).to.match(/\r\n\r\n$/);
    expect(answers[1]).to.match(/^HTTP\/1\.1 204 No Content\r\n[^]*\r\n\r\n$/);
    expect(answers[2]).to.match(/^HTTP\/1\.1 200 OK\r\n[^]*\r\n\r\nanswer in bytes$/);
  });

  it('sends a body larger than the socket takes at once whole, then answers the next request', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const get = (path: string) =>
        new Promise<string>((resolve, reject) => {
          http
            .get(`${url}${path}`, { agent }, (res) => {
              const chunks: Buffer[] = [];
              res.on('data', (c: Buffer) => chunks.push(c));
              res.on('end', () => resolve(Buffer.concat(chunks).toString()));
            })
            .on('error', reject);
        });
      const [big, next] = await Promise.all([get('/counted/big'), get('/counted/after-big')]);
      expect(big.length).to.equal(BIG.length);
      expect(big === BIG).to.equal(true);
      expect(next).to.equal('answer /counted/after-big');
    } finally {
      agent.destroy();
    }
  });
});
