/**
 * Answers computed in one turn of the event loop are written together in
 * the next check phase (transport/answer-batch.ts). A real node:http server
 * on an ephemeral port: every answer arrives, in order on a pipelined
 * connection, and one answer node refuses to write closes only its own
 * connection, logged, without reaching the process as an exception.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
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
});
