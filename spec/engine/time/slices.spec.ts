/**
 * yieldToLoop lets the event loop go round before long work resumes, also
 * when it is called from an I/O callback (the poll phase, where a request's
 * body arrives): there one setImmediate would resume in the same turn's
 * check phase, before the loop polls again, and requests that arrived
 * meanwhile would still wait behind the next slice.
 */
import { stat } from 'node:fs';
import { expect } from 'chai';
import { whileSlicedWorkRuns, yieldSlicedWork, yieldToLoop } from '../../../lib/engine/index.js';
import { Slicer, SLICE_MS } from '../../../lib/engine/time/slices.js';
import { decodeLargeBody } from '../../../lib/http/wire/codec.js';

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
        void yieldToLoop().then(() => {
          order.push('resumed');
          done();
        });
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
        void yieldToLoop().then(() => {
          order.push('resumed');
          done();
        });
      });
    });
    expect(order).to.deep.equal(['timers phase', 'resumed']);
  });
});

describe('sliced work and its hooks (whileSlicedWorkRuns)', () => {
  // Hooks stay registered for the process: this one only counts.
  let runs = 0;
  before(() =>
    whileSlicedWorkRuns(() => {
      runs++;
    }),
  );

  it('runs the hooks when a Slicer yields or a large body decodes, and not on a plain yieldToLoop', async () => {
    const at = runs;
    await yieldToLoop();
    expect(runs, 'a plain turn (the write queue between groups)').to.equal(at);
    await yieldSlicedWork();
    expect(runs).to.equal(at + 1);
    const slicer = new Slicer();
    await slicer.pause();
    expect(runs, 'a slice not yet used up does not yield').to.equal(at + 1);
    busy(SLICE_MS + 1);
    await slicer.pause();
    expect(runs).to.equal(at + 2);
    await decodeLargeBody(Buffer.from(JSON.stringify({ inserts: [{ data: { a: 1 } }] })), 'application/json');
    expect(runs, 'a large body decodes over turns of its own').to.equal(at + 3);
  });
});
