/**
 * The failed-exchange limiter and the client address it counts by (pure
 * cores), and how a real server counts IPv6 and IPv4-mapped clients (the
 * rest of the HTTP behaviour is in spec/regression/auth-throttle).
 */
import { expect } from 'chai';
import { RateLimited } from '../../../lib/errors.js';
import { AuthFailureLimiter } from '../../../lib/http/auth/auth-failures.js';
import { clientAddress, throttleKey } from '../../../lib/http/auth/client-address.js';
import { httpRequest, type RawReply } from '../../helpers/raw-http.js';
import { ADMIN_KEY, TestServer } from '../../helpers/test-server.js';

describe('AuthFailureLimiter', () => {
  it('blocks an address at the limit until its window, opened by the first failure, closes', () => {
    const l = new AuthFailureLimiter({ limit: 3, windowSecs: 60 });
    l.fail('a', 0);
    l.fail('a', 10_000);
    l.check('a', 10_000);
    l.fail('a', 20_000);
    const err = (() => {
      try {
        l.check('a', 20_500);
      } catch (e) {
        return e;
      }
    })();
    expect(err).to.be.instanceOf(RateLimited);
    expect((err as RateLimited).retryAfter).to.equal(40);
    expect(() => l.check('a', 59_999))
      .to.throw(RateLimited)
      .with.property('retryAfter', 1);
    l.check('a', 60_000);
    l.fail('a', 60_000);
    l.check('a', 60_000);
  });

  it('does nothing with a limit of 0', () => {
    const l = new AuthFailureLimiter({ limit: 0, windowSecs: 60 });
    for (let i = 0; i < 100; i++) l.fail('a', i);
    l.check('a', 100);
    expect(l.size).to.equal(0);
  });

  it('tracks at most maxAddresses, dropping expired windows first and then the oldest', () => {
    const l = new AuthFailureLimiter({ limit: 1, windowSecs: 10, maxAddresses: 3 });
    l.fail('old', 0);
    l.fail('b', 5_000);
    l.fail('c', 6_000);
    l.fail('d', 11_000);
    expect(l.size).to.equal(3);
    l.check('old', 11_000);
    expect(() => l.check('b', 11_000)).to.throw(RateLimited);
    for (let i = 0; i < 1000; i++) l.fail(`x${i}`, 12_000);
    expect(l.size).to.equal(3);
    expect(() => l.check('x999', 12_000)).to.throw(RateLimited);
  });
});

describe('clientAddress', () => {
  it('is the socket address unless the proxy is trusted', () => {
    expect(clientAddress('10.0.0.1', '1.2.3.4', false)).to.equal('10.0.0.1');
    expect(clientAddress(undefined, undefined, false)).to.equal('unknown');
  });

  it('takes the last X-Forwarded-For entry behind a trusted proxy, across repeated headers', () => {
    expect(clientAddress('10.0.0.1', '1.2.3.4, 5.6.7.8', true)).to.equal('5.6.7.8');
    expect(clientAddress('10.0.0.1', ['1.2.3.4', '9.9.9.9 ,'], true)).to.equal('9.9.9.9');
    expect(clientAddress('10.0.0.1', ' , ', true)).to.equal('10.0.0.1');
    expect(clientAddress('10.0.0.1', 'x'.repeat(1000), true)).to.have.length(64);
  });
});

describe('throttleKey', () => {
  it('counts IPv4 addresses one by one, and an IPv4-mapped IPv6 address as its IPv4', () => {
    expect(throttleKey('198.51.100.7')).to.equal('198.51.100.7');
    expect(throttleKey('::ffff:198.51.100.7')).to.equal('198.51.100.7');
    expect(throttleKey('::ffff:c633:6407')).to.equal('198.51.100.7');
    expect(throttleKey('::FFFF:127.0.0.2')).to.equal('127.0.0.2');
  });

  it('counts IPv6 addresses by their /64, whatever their spelling or zone', () => {
    expect(throttleKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).to.equal('2001:db8:1:2::/64');
    expect(throttleKey('2001:0DB8:0001:0002::1')).to.equal('2001:db8:1:2::/64');
    expect(throttleKey('2001:db8:1:3::1')).to.equal('2001:db8:1:3::/64');
    expect(throttleKey('fe80::1%eth0')).to.equal('fe80::/64');
    expect(throttleKey('::1')).to.equal('::/64');
  });

  it('keeps anything that is not an address as written', () => {
    expect(throttleKey('unknown')).to.equal('unknown');
    expect(throttleKey('x'.repeat(64))).to.equal('x'.repeat(64));
  });

  it('makes the limiter block a whole /64 at once, and name it in its warning', () => {
    const logged: string[] = [];
    const l = new AuthFailureLimiter({ limit: 2, windowSecs: 60 }, (_level, msg) => {
      logged.push(msg);
    });
    l.fail('2001:db8:1:2::1', 0);
    l.fail('2001:db8:1:2::ffff', 0);
    expect(() => l.check('2001:db8:1:2:dead:beef:0:1', 0)).to.throw(RateLimited);
    l.check('2001:db8:1:3::1', 0);
    expect(l.size).to.equal(1);
    expect(logged).to.have.length(1);
    expect(logged[0]).to.match(/^client 2001:db8:1:2::\/64 made 2 failed token requests/);
  });
});

function exchange(base: string, apiKey: string, from: string, headers: Record<string, string> = {}): Promise<RawReply> {
  return httpRequest(base, {
    method: 'POST',
    path: '/api/auth/token',
    localAddress: from,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ api_key: apiKey }),
  });
}

describe('the failed-exchange limit through a real server: IPv6 per /64, IPv4 per address', () => {
  it('counts IPv6 clients behind a trusted proxy by their /64, and a mapped IPv4 as that IPv4', async () => {
    const t = await TestServer.start({ trustProxy: true, authFailureLimit: 2, authFailureWindowSecs: 60 });
    try {
      const via = (forwarded: string, key: string) =>
        exchange(t.url, key, '127.0.0.1', { 'X-Forwarded-For': forwarded });
      expect((await via('2001:db8:1:2::1', 'wrong')).status).to.equal(401);
      expect((await via('2001:db8:1:2::2', 'wrong')).status).to.equal(401);
      const sameNet = await via('2001:db8:1:2:ffff:ffff:ffff:ffff', ADMIN_KEY);
      expect(sameNet.status, 'another address of the same /64').to.equal(429);
      expect(sameNet.body.message).to.match(/retry after 60 s/);
      expect((await via('2001:db8:1:3::1', ADMIN_KEY)).status, 'the next /64').to.equal(200);
      expect((await via('::ffff:198.51.100.7', 'wrong')).status).to.equal(401);
      expect((await via('198.51.100.7', 'wrong')).status).to.equal(401);
      expect((await via('198.51.100.7', ADMIN_KEY)).status, 'mapped and plain IPv4 are one client').to.equal(429);
      expect((await via('198.51.100.8', ADMIN_KEY)).status, 'the next IPv4 address').to.equal(200);
    } finally {
      await t.stop();
    }
  });

  it('counts IPv4 clients of a dual-stack socket (seen as ::ffff:127.0.0.x) one address at a time', async () => {
    const t = await TestServer.start({ host: '::', authFailureLimit: 2, authFailureWindowSecs: 60 });
    try {
      expect((await exchange(t.url, 'wrong', '127.0.0.8')).status).to.equal(401);
      expect((await exchange(t.url, 'wrong', '127.0.0.8')).status).to.equal(401);
      expect((await exchange(t.url, ADMIN_KEY, '127.0.0.8')).status).to.equal(429);
      expect((await exchange(t.url, ADMIN_KEY, '127.0.0.9')).status, 'not one ::/64 for every IPv4 client').to.equal(
        200,
      );
      expect(t.logged.map((l) => l.msg).join('\n')).to.match(/client 127\.0\.0\.8 made 2 failed token requests/);
    } finally {
      await t.stop();
    }
  });
});
