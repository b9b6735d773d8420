import { expect } from 'chai';
import { LeaseClock } from '../../lib/cluster/index.js';

describe('cluster/lease-clock', () => {
  it('counts the lease from when the renewal was sent, less a margin, so the holder stops before the key can expire', () => {
    let now = 1000;
    const clock = new LeaseClock(10_000, () => now);
    expect(clock.valid).to.equal(false);
    clock.renewed(1000);
    now = 1000 + 10_000 - clock.marginMs - 1;
    expect(clock.valid).to.equal(true);
    now += 1;
    expect(clock.valid).to.equal(false);
    expect(clock.remainingMs).to.equal(0);
  });

  it('renews three times a lease and polls often enough to take over within a fraction of it', () => {
    const clock = new LeaseClock(10_000, () => 0);
    expect(clock.renewEveryMs).to.equal(3333);
    expect(clock.marginMs).to.equal(1000);
    expect(clock.pollEveryMs).to.equal(1000);
    const short = new LeaseClock(1000, () => 0);
    expect(short.pollEveryMs).to.equal(125);
    expect(short.marginMs).to.equal(100);
  });

  it('forgets the lease once lost', () => {
    const clock = new LeaseClock(1000, () => 0);
    clock.renewed(0);
    expect(clock.valid).to.equal(true);
    clock.lost();
    expect(clock.valid).to.equal(false);
  });
});
