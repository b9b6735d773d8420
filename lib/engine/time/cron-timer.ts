/**
 * Runs a job at each run of a cron schedule (the server's trash purge and
 * snapshots), on an injectable clock. `tick()` runs the job when the clock
 * has reached the next run, then takes the run after the later of now and
 * that run, so runs missed while the process was busy or asleep make one
 * run, not a burst. A real timer calls `tick()` at the next run, and at least
 * every MAX_WAIT_MS: the clock may move other than with real time (a
 * ManualClock in specs, a system clock set by hand), and a long wait
 * re-reads it. A run still going when the next comes due skips that one.
 */
import type { CronSchedule } from './cron.js';

/** Longest real wait between two looks at the clock. */
const MAX_WAIT_MS = 60_000;

export class CronTimer {
  private due: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly schedule: CronSchedule,
    private readonly now: () => number,
    private readonly job: () => Promise<unknown>,
    private readonly onError: (err: unknown) => void,
  ) {
    this.due = schedule.next(now());
  }

  /** The next run (epoch ms), or undefined when the expression has none within its horizon. */
  get nextRun(): number | undefined {
    return this.due;
  }

  /** Arms the real timer. */
  start(): void {
    this.stopped = false;
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** Runs the job when the clock has reached the next run; resolves when that run (or the one still going) ends. */
  tick(): Promise<void> {
    const now = this.now();
    if (this.due === undefined || now < this.due) return this.running ?? Promise.resolve();
    this.due = this.schedule.next(Math.max(now, this.due));
    if (this.running) return this.running;
    const run = this.job()
      .then(() => undefined, this.onError)
      .finally(() => {
        this.running = undefined;
      });
    this.running = run;
    return run;
  }

  private arm(): void {
    if (this.stopped) return;
    const wait = this.due === undefined ? MAX_WAIT_MS : Math.min(Math.max(this.due - this.now(), 0), MAX_WAIT_MS);
    this.timer = setTimeout(() => {
      void this.tick();
      this.arm();
    }, wait);
    this.timer.unref();
  }
}
