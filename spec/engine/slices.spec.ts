/**
 * yieldToLoop lets the event loop go round before long work resumes, also
 * when it is called from an I/O callback (the poll phase, where a request's
 * body arrives): there one setImmediate would resume in the same turn's
 * check phase, before the loop polls again, and requests that arrived
 * meanwhile would still wait behind the next slice.
 */
import { stat } from 'node:fs';
import { expect } from 'chai';
import { yieldToLoop } from '../../lib/engine/index.js';

function busy(ms: number): void {
  const t = performance.now();
  while (performance.now() - t < ms);
}

describe('yieldToLoop', () => {
  it('resumes after a full turn of the loop when called from an I/O callback', async () => {
    const order: string[] = [];
    await new Promise<void>((done) => {
      stat('.', () => {
        setTimeout(() => order.push('timers phase'), 0);
        busy(3); // the timer is due
        void yieldToLoop().then(() => { order.push('resumed'); done(); });
      });
    });
    expect(order).to.deep.equal(['timers phase', 'resumed']);
  });

  it('resumes after a full turn of the loop when called from a check-phase callback', async () => {
    const order: string[] = [];
    await new Promise<void>((done) => {
      setImmediate(() => {
        setTimeout(() => order.push('timers phase'), 0);
        busy(3);
        void yieldToLoop().then(() => { order.push('resumed'); done(); });
      });
    });
    expect(order).to.deep.equal(['timers phase', 'resumed']);
  });
});
