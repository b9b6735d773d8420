/**
 * The ClientToolBroker with a fake clock: an answer unblocks the wait, a
 * keep-alive restarts the timeout, a timeout and an abort are unsuccessful
 * outcomes, and a late answer is reported as not delivered.
 */
import { expect } from 'chai';
import { ClientToolBroker, type BrokerClock } from '../../../lib/chat/index.js';

class FakeClock implements BrokerClock {
  now = 0;
  private timers = new Map<number, { at: number; fn: () => void }>();
  private next = 1;
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.next++;
    this.timers.set(id, { at: this.now + ms, fn });
    return id;
  }
  clearTimeout(h: unknown): void {
    this.timers.delete(h as number);
  }
  advance(ms: number): void {
    this.now += ms;
    for (const [id, t] of [...this.timers])
      if (t.at <= this.now) {
        this.timers.delete(id);
        t.fn();
      }
  }
}

describe('ClientToolBroker', () => {
  it('delivers an answer to the waiting call, once', async () => {
    const b = new ClientToolBroker(new FakeClock());
    const id = b.newCallId();
    const wait = b.wait('c', id, 1000);
    expect(b.deliver('other-chat', { kind: 'result', callId: id, success: true })).to.equal(false);
    expect(b.deliver('c', { kind: 'result', callId: id, success: true, result: { ok: 1 } })).to.equal(true);
    expect(await wait).to.deep.equal({ success: true, result: { ok: 1 } });
    expect(b.deliver('c', { kind: 'result', callId: id, success: true })).to.equal(false);
    expect(b.size).to.equal(0);
  });

  it('times out without news, and a keep-alive restarts the clock', async () => {
    const clock = new FakeClock();
    const b = new ClientToolBroker(clock);
    const wait = b.wait('c', 'k', 1000);
    clock.advance(900);
    expect(b.deliver('c', { kind: 'keepalive', callId: 'k' })).to.equal(true);
    clock.advance(900);
    expect(b.size).to.equal(1);
    clock.advance(100);
    expect(await wait).to.deep.equal({ success: false, error: 'The client did not answer within 1 s', timedOut: true });
    expect(b.deliver('c', { kind: 'result', callId: 'k', success: true })).to.equal(false);
  });

  it('ends the wait when the turn is aborted', async () => {
    const b = new ClientToolBroker(new FakeClock());
    const ac = new AbortController();
    const wait = b.wait('c', 'k', 1000, ac.signal);
    ac.abort();
    expect((await wait).success).to.equal(false);
    expect(b.size).to.equal(0);
  });
});
