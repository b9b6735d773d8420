/**
 * The clock of a test server: real time by default, moved by hand when a
 * test needs it. `advance('10m')` and `set(date)` move it at once (reads see
 * TTLs expired and tokens out of date immediately), then run what the new
 * time makes due (TTL sweeps, maintenance, schedules and task due times)
 * before the returned promise resolves, so a test of time-based behaviour
 * never sleeps. `freeze()` stops it; a frozen clock moves only by hand.
 */
import type { Clock } from '../engine/index.js';
import type { Restorable } from '../http/index.js';

/** A length of time: milliseconds, or text such as `'500ms'`, `'30s'`, `'10m'`, `'1h30m'`, `'2d'`, `'1w'`. */
export type Duration = number | string;

/** A moment: a Date, epoch milliseconds, or an ISO 8601 text. */
export type Moment = Date | number | string;

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** Milliseconds of a Duration; throws a TypeError saying what is accepted. */
export function parseDuration(duration: Duration): number {
  if (typeof duration === 'number') {
    if (Number.isFinite(duration) && duration >= 0) return duration;
    throw new TypeError(`a duration must be a finite number of milliseconds, 0 or more (got ${duration})`);
  }
  const text = typeof duration === 'string' ? duration.trim() : '';
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)/g)];
  if (
    typeof duration !== 'string' ||
    parts.length === 0 ||
    parts.map((p) => p[0]).join('') !== text.replace(/\s+/g, '')
  )
    throw new TypeError(
      `cannot read the duration ${JSON.stringify(duration)}: use milliseconds or text such as '500ms', '30s', ` +
        `'10m', '1h30m', '2d'`,
    );
  return parts.reduce((sum, [, amount, unit]) => sum + Number(amount) * UNIT_MS[unit!]!, 0);
}

/** Epoch milliseconds of a Moment; throws a TypeError for an invalid date. */
export function parseMoment(moment: Moment): number {
  const ms = moment instanceof Date ? moment.getTime() : typeof moment === 'number' ? moment : Date.parse(moment);
  if (!Number.isFinite(ms))
    throw new TypeError(`cannot read the moment ${String(moment)}: use a Date, epoch ms or ISO text`);
  return ms;
}

export interface TestClockOptions {
  /** Where the clock starts (default: the real time). */
  readonly start?: Moment;
  /** Start frozen: time moves only through advance and set. */
  readonly frozen?: boolean;
}

interface SavedClock {
  readonly offset: number;
  readonly frozenAt: number | undefined;
}

export class TestClock implements Clock, Restorable {
  /** Added to the real time while the clock runs. */
  private offset: number;
  /** The time while frozen. */
  private frozenAt: number | undefined;
  /** Runs what the time makes due; set by the test server once it is up. */
  catchUp: () => Promise<void> = () => Promise.resolve();

  constructor(
    options: TestClockOptions = {},
    private readonly realNow: () => number = Date.now,
  ) {
    const start = options.start === undefined ? this.realNow() : parseMoment(options.start);
    this.offset = start - this.realNow();
    this.frozenAt = options.frozen ? start : undefined;
  }

  now(): number {
    return this.frozenAt ?? this.realNow() + this.offset;
  }

  /** The current time as a Date. */
  date(): Date {
    return new Date(this.now());
  }

  get frozen(): boolean {
    return this.frozenAt !== undefined;
  }

  /** Moves time forward by `duration`, then runs what became due. */
  advance(duration: Duration): Promise<void> {
    return this.moveTo(this.now() + parseDuration(duration));
  }

  /** Moves time to `moment` (forward or back), then runs what became due. */
  set(moment: Moment): Promise<void> {
    return this.moveTo(parseMoment(moment));
  }

  /** Stops time where it is. */
  freeze(): void {
    this.frozenAt ??= this.now();
  }

  /** Lets time run again from where it stands. */
  resume(): void {
    if (this.frozenAt === undefined) return;
    this.offset = this.frozenAt - this.realNow();
    this.frozenAt = undefined;
  }

  save(): SavedClock {
    return { offset: this.offset, frozenAt: this.frozenAt };
  }

  load(saved: unknown): void {
    const clock = saved as SavedClock;
    this.offset = clock.offset;
    this.frozenAt = clock.frozenAt;
  }

  private moveTo(ms: number): Promise<void> {
    if (this.frozenAt !== undefined) this.frozenAt = ms;
    else this.offset = ms - this.realNow();
    return this.catchUp();
  }
}
