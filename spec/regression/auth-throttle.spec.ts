/**
 * The token exchange (POST /api/auth/token) was not
 * rate-limited, so an API key could be guessed at full speed. Failed
 * exchanges are now counted per client address (the socket's; X-Forwarded-For
 * only with trustProxy), and past the limit the address gets 429 with
 * Retry-After until its window closes, even with the correct key. Clients
 * bind 127.0.0.x to act as different addresses; time is a ManualClock.
 */
import { expect } from 'chai';
import { ADMIN_KEY, TestServer, withoutRequestId } from '../helpers/test-server.js';
import { httpRequest, startExpress, type RawReply } from '../helpers/raw-http.js';

function exchange(
  base: string,
  apiKey: unknown,
  from: string,
  headers: Record<string, string> = {},
): Promise<RawReply> {
  return httpRequest(base, {
    method: 'POST',
    path: '/api/auth/token',
    localAddress: from,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ api_key: apiKey }),
  });
}

async function failTimes(base: string, n: number, from: string, headers: Record<string, string> = {}): Promise<void> {
  for (let i = 0; i < n; i++) {
    const r = await exchange(base, `wrong-${i}`, from, headers);
    expect(r.status, `failure ${i + 1}: ${r.text}`).to.equal(401);
  }
}

describe('failed token exchanges are limited per client address', () => {
  let t: TestServer;
  before(async () => {
    t = await TestServer.start();
  });
  after(async () => {
    await t.stop();
  });

  it('answers 429 {code, message} with Retry-After after 10 failures, even for the correct key', async () => {
    await failTimes(t.url, 10, '127.0.0.2');
    const wrong = await exchange(t.url, 'wrong-again', '127.0.0.2');
    expect(wrong.status).to.equal(429);
    expect(wrong.body).to.include({ code: 429 });
    expect(wrong.body.message).to.match(/retry after 60 s/);
    expect(wrong.headers['retry-after']).to.equal('60');
    const right = await exchange(t.url, ADMIN_KEY, '127.0.0.2');
    expect(right.status).to.equal(429);
    expect(right.body).to.not.have.property('token');
  });

  it('leaves other addresses alone', async () => {
    expect((await exchange(t.url, ADMIN_KEY, '127.0.0.3')).status).to.equal(200);
    expect((await exchange(t.url, 'wrong', '127.0.0.3')).status).to.equal(401);
  });

  it('answers the blocked address exactly so through the express adapter', async () => {
    const express = await startExpress(t.server.dispatcher);
    try {
      const viaExpress = await exchange(express.url, ADMIN_KEY, '127.0.0.2');
      const viaFastify = await exchange(t.url, ADMIN_KEY, '127.0.0.2');
      expect(viaExpress.status).to.equal(429);
      expect(withoutRequestId(viaExpress.text)).to.deep.equal(withoutRequestId(viaFastify.text));
      expect(viaExpress.headers['retry-after']).to.equal(viaFastify.headers['retry-after']);
    } finally {
      await express.close();
    }
  });

  it('counts Retry-After down with the clock and lets the address in once the window has passed', async () => {
    t.clock.advance(45_000);
    const waiting = await exchange(t.url, ADMIN_KEY, '127.0.0.2');
    expect(waiting.status).to.equal(429);
    expect(waiting.headers['retry-after']).to.equal('15');
    t.clock.advance(15_000);
    const r = await exchange(t.url, ADMIN_KEY, '127.0.0.2');
    expect(r.status, r.text).to.equal(200);
    expect(r.body.token).to.be.a('string');
  });

  it('does not count successful exchanges or malformed bodies', async () => {
    await failTimes(t.url, 9, '127.0.0.4');
    for (let i = 0; i < 5; i++) expect((await exchange(t.url, ADMIN_KEY, '127.0.0.4')).status).to.equal(200);
    for (let i = 0; i < 5; i++) expect((await exchange(t.url, undefined, '127.0.0.4')).status).to.equal(400);
    await failTimes(t.url, 1, '127.0.0.4');
    expect((await exchange(t.url, ADMIN_KEY, '127.0.0.4')).status).to.equal(429);
  });

  it('ignores X-Forwarded-For when trustProxy is off, so a blocked client cannot claim another address', async () => {
    await failTimes(t.url, 10, '127.0.0.5');
    const spoofed = await exchange(t.url, ADMIN_KEY, '127.0.0.5', { 'X-Forwarded-For': '203.0.113.9' });
    expect(spoofed.status).to.equal(429);
  });
});

describe('the failed-exchange limit behind a trusted proxy', () => {
  let t: TestServer;
  before(async () => {
    t = await TestServer.start({ trustProxy: true, authFailureLimit: 2, authFailureWindowSecs: 10 });
  });
  after(async () => {
    await t.stop();
  });

  it('counts by the last X-Forwarded-For entry, with the configured limit and window', async () => {
    const proxy = '127.0.0.6';
    await failTimes(t.url, 2, proxy, { 'X-Forwarded-For': '198.51.100.7' });
    const blocked = await exchange(t.url, ADMIN_KEY, proxy, { 'X-Forwarded-For': '198.51.100.7' });
    expect(blocked.status).to.equal(429);
    expect(blocked.headers['retry-after']).to.equal('10');
    // A client-written first entry does not help: the proxy appends the address it saw.
    expect((await exchange(t.url, ADMIN_KEY, proxy, { 'X-Forwarded-For': '192.0.2.1, 198.51.100.7' })).status).to.equal(
      429,
    );
    expect((await exchange(t.url, ADMIN_KEY, proxy, { 'X-Forwarded-For': '198.51.100.8' })).status).to.equal(200);
  });
});
