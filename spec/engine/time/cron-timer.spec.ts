/**
 * A job on a cron schedule (lib/engine/time/cron-timer.ts), driven by a ManualClock: due runs, missed runs, overlap,
 * errors.
 */
import { expect } from 'chai';
import { CronSchedule, CronTimer, ManualClock } from '../../../lib/engine/index.js';

const T0 = Date.parse('2026-01-01T08:00:00Z');
const iso = (t: number | undefined) => (t === undefined ? undefined : new Date(t).toISOString());

describe('CronTimer', () => {
  let clock: ManualClock;
  let ran: string[];
  beforeEach(() => {
    clock = new ManualClock(T0);
    ran = [];
  });
  const timer = (expr: string, job?: () => Promise<unknown>, onError: (e: unknown) => void = () => {}) =>
    new CronTimer(
      CronSchedule.parse(expr),
      () => clock.now(),
      job ??
        (async () => {
          ran.push(iso(clock.now())!);
        }),
      onError,
    );

  it('runs the job when the clock reaches the next run, then waits for the following one', async () => {
    const t = timer('0 * * * *');
    expect(iso(t.nextRun)).to.equal('2026-01-01T09:00:00.000Z');
    clock.advance(59 * 60_000);
    await t.tick();
    expect(ran).to.deep.equal([]);
    clock.advance(60_000);
    await t.tick();
    await t.tick();
    expect(ran).to.deep.equal(['2026-01-01T09:00:00.000Z']);
    expect(iso(t.nextRun)).to.equal('2026-01-01T10:00:00.000Z');
  });

  it('makes one run of the runs missed while it was not ticked, and goes on from now', async () => {
    const t = timer('*/10 * * * * *');
    clock.advance(3_600_000 + 5_000);
    await t.tick();
    expect(ran).to.have.length(1);
    expect(iso(t.nextRun)).to.equal('2026-01-01T09:00:10.000Z');
  });

  it('skips a run that comes due while the previous one is still going', async () => {
    let release!: () => void;
    let started = 0;
    const t = timer('* * * * * *', () => {
      started++;
      return new Promise<void>((r) => {
        release = r;
      });
    });
    clock.advance(1000);
    const first = t.tick();
    clock.advance(1000);
    const second = t.tick();
    expect(started).to.equal(1);
    expect(iso(t.nextRun)).to.equal('2026-01-01T08:00:03.000Z');
    release();
    await Promise.all([first, second]);
    clock.advance(1000);
    void t.tick();
    expect(started).to.equal(2);
    release();
  });

  it('hands a failed run to its error handler and keeps its schedule', async () => {
    const errors: unknown[] = [];
    const t = timer(
      '* * * * * *',
      async () => {
        throw new Error('disk full');
      },
      (e) => errors.push(e),
    );
    clock.advance(1000);
    await t.tick();
    expect(errors.map((e) => (e as Error).message)).to.deep.equal(['disk full']);
    expect(iso(t.nextRun)).to.equal('2026-01-01T08:00:02.000Z');
  });

  it('fires from its real timer too, and stops', async () => {
    const t = timer('* * * * * *');
    clock.advance(1000);
    // The run is due already: the real timer's first wait is zero.
    t.start();
    await new Promise((r) => setTimeout(r, 50));
    t.stop();
    expect(ran).to.deep.equal(['2026-01-01T08:00:01.000Z']);
  });
});
