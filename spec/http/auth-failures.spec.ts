/** The failed-exchange limiter and the client address it counts by (pure cores; HTTP is in spec/regression/issue-8-auth-throttle). */
import { expect } from 'chai';
import { RateLimited } from '../../lib/errors.js';
import { AuthFailureLimiter } from '../../lib/http/auth-failures.js';
import { clientAddress } from '../../lib/http/client-address.js';

describe('AuthFailureLimiter', () => {
  it('blocks an address at the limit until its window, opened by the first failure, closes', () => {
    const l = new AuthFailureLimiter({ limit: 3, windowSecs: 60 });
    l.fail('a', 0);
    l.fail('a', 10_000);
    l.check('a', 10_000);
    l.fail('a', 20_000);
    const err = (() => { try { l.check('a', 20_500); } catch (e) { return e; } })();
    expect(err).to.be.instanceOf(RateLimited);
    expect((err as RateLimited).retryAfter).to.equal(40);
    expect(() => l.check('a', 59_999)).to.throw(RateLimited).with.property('retryAfter', 1);
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
