/**
 * Cron expressions and their next run time. node-cron (which the server
 * uses to run its own maintenance) fires callbacks on the real clock and
 * exposes no "next time after t", so this module computes it, for tasks
 * (and anything else on the engine's injectable clock).
 *
 * Syntax, as node-cron accepts it: five fields (minute hour day month
 * weekday) or six with seconds first; each field `*`, a number, a range
 * `a-b`, a step `*\/n` or `a-b/n` (counted from the range's start), or a
 * comma list of those; month names (`jan`, `January`) and weekday names
 * (`mon`, `Monday`), weekday 7 = Sunday. Aliases `@yearly` (`@annually`),
 * `@monthly`, `@weekly`, `@daily` (`@midnight`), `@hourly`, with or without
 * the `@`. Day-of-month and weekday must both match (node-cron's rule).
 *
 * Times are matched on the wall clock of `timezone` (an IANA name; UTC when
 * absent). A wall time that a DST change skips never fires; one it repeats
 * fires at its first instant after the given time.
 */
import { InvalidInput } from '../errors.js';

const ALIASES: Readonly<Record<string, string>> = {
  yearly: '0 0 1 1 *', annually: '0 0 1 1 *', monthly: '0 0 1 * *', weekly: '0 0 * * 0',
  daily: '0 0 * * *', midnight: '0 0 * * *', hourly: '0 * * * *',
};
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const FULL_MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const FULL_WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

interface FieldSpec { readonly name: string; readonly min: number; readonly max: number; readonly names?: readonly (readonly string[])[] }
const FIELDS: readonly FieldSpec[] = [
  { name: 'second', min: 0, max: 59 }, { name: 'minute', min: 0, max: 59 }, { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 }, { name: 'month', min: 1, max: 12, names: [MONTHS, FULL_MONTHS] },
  { name: 'weekday', min: 0, max: 7, names: [WEEKDAYS, FULL_WEEKDAYS] },
];

/** How far ahead a next run is looked for (covers leap days on a given weekday). */
const SEARCH_DAYS = 366 * 60;
const HOUR = 3_600_000;

export class CronSchedule {
  private constructor(
    readonly expression: string,
    readonly timezone: string | undefined,
    private readonly seconds: readonly number[], private readonly minutes: readonly number[], private readonly hours: readonly number[],
    private readonly days: ReadonlySet<number>, private readonly months: ReadonlySet<number>, private readonly weekdays: ReadonlySet<number>,
    private readonly wall: WallClock,
  ) {}

  /** Parses `expression` (400 naming the field at fault), checking `timezone` too. */
  static parse(expression: string, timezone?: string): CronSchedule {
    const trimmed = expression.trim();
    const alias = ALIASES[trimmed.replace(/^@/, '').toLowerCase()];
    const parts = (alias ?? trimmed).split(/\s+/);
    if (parts.length === 5) parts.unshift('0');
    if (parts.length !== 6) throw new InvalidInput(`Cron expression '${expression}' must have 5 or 6 fields`);
    const sets = parts.map((p, i) => parseField(p, FIELDS[i]!, expression));
    const weekdays = new Set([...sets[5]!].map((d) => d % 7));
    const s = new CronSchedule(expression, timezone, [...sets[0]!].sort(num), [...sets[1]!].sort(num), [...sets[2]!].sort(num),
      sets[3]!, sets[4]!, weekdays, wallClock(timezone));
    if (s.next(0) === undefined) throw new InvalidInput(`Cron expression '${expression}' never fires`);
    return s;
  }

  /** The first run strictly after `afterMs` (whole seconds), or undefined when none comes within sixty years. */
  next(afterMs: number): number | undefined {
    const after = Math.floor(afterMs / 1000) * 1000;
    if (!this.wall.zoned) return this.nextWall(after + 1000);
    // Start an hour early in wall time: a wall time repeated by a DST change may still be ahead as an instant.
    let from = this.wall.toWall(after) - 3 * HOUR;
    for (let guard = 0; guard < 100_000; guard++) {
      const w = this.nextWall(from);
      if (w === undefined) return undefined;
      const instants = this.wall.instantsOf(w).filter((t) => t > after);
      if (instants.length > 0) return this.earliestNear(w, Math.min(...instants), after);
      from = w + 1000;
    }
    return undefined;
  }

  /** Near a DST change a later wall time can be an earlier instant: look two hours on when the offset moves. */
  private earliestNear(w: number, found: number, after: number): number {
    if (this.wall.offset(found - 3 * HOUR) === this.wall.offset(found + 3 * HOUR)) return found;
    let best = found;
    for (let from = w + 1000; from <= w + 3 * HOUR;) {
      const next = this.nextWall(from);
      if (next === undefined || next > w + 3 * HOUR) break;
      for (const t of this.wall.instantsOf(next)) if (t > after && t < best) best = t;
      from = next + 1000;
    }
    return best;
  }

  /** The first matching wall time at or after `fromWall` (wall times are ms as if the wall clock were UTC). */
  private nextWall(fromWall: number): number | undefined {
    const start = new Date(Math.ceil(fromWall / 1000) * 1000);
    let day = Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate());
    let h0 = start.getUTCHours(), m0 = start.getUTCMinutes(), s0 = start.getUTCSeconds();
    for (let i = 0; i < SEARCH_DAYS; i++, day += 24 * HOUR, h0 = m0 = s0 = 0) {
      const d = new Date(day);
      if (!this.months.has(d.getUTCMonth() + 1) || !this.days.has(d.getUTCDate()) || !this.weekdays.has(d.getUTCDay())) continue;
      const time = this.timeAtOrAfter(h0, m0, s0);
      if (time !== undefined) return day + time;
    }
    return undefined;
  }

  /** Milliseconds into the day of the first matching time at or after h0:m0:s0. */
  private timeAtOrAfter(h0: number, m0: number, s0: number): number | undefined {
    for (const h of this.hours) {
      if (h < h0) continue;
      for (const m of this.minutes) {
        if (h === h0 && m < m0) continue;
        for (const s of this.seconds) {
          if (h === h0 && m === m0 && s < s0) continue;
          return ((h * 60 + m) * 60 + s) * 1000;
        }
      }
    }
    return undefined;
  }
}

const num = (a: number, b: number) => a - b;

function parseField(text: string, spec: FieldSpec, expression: string): Set<number> {
  const bad = () => new InvalidInput(`Cron expression '${expression}': '${text}' is not a valid ${spec.name}`);
  const out = new Set<number>();
  for (const item of text.split(',')) {
    const m = /^(\*|[A-Za-z0-9]+(?:-[A-Za-z0-9]+)?)(?:\/(\d+))?$/.exec(item);
    if (!m) throw bad();
    const [, range, stepText] = m;
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!(step >= 1)) throw bad();
    let lo = spec.min, hi = spec.max;
    if (range !== '*') {
      const [a, b] = range!.split('-');
      lo = value(a!, spec, bad);
      hi = b === undefined ? (stepText === undefined ? lo : spec.max) : value(b, spec, bad);
      if (hi < lo) throw bad();
    }
    for (let v = lo; v <= hi; v += step) out.add(v);
  }
  return out;
}

function value(text: string, spec: FieldSpec, bad: () => InvalidInput): number {
  const lower = text.toLowerCase();
  for (const list of spec.names ?? []) {
    const i = list.indexOf(lower);
    if (i >= 0) return list === MONTHS || list === FULL_MONTHS ? i + 1 : i;
  }
  if (!/^\d{1,2}$/.test(text)) throw bad();
  const n = Number(text);
  if (n < spec.min || n > spec.max) throw bad();
  return n;
}

/** Instants <-> wall times of one time zone (identity for UTC). */
interface WallClock {
  readonly zoned: boolean;
  toWall(t: number): number;
  /** The wall clock's offset from UTC at instant t, in ms. */
  offset(t: number): number;
  /** The instants (0, 1 or 2) showing wall time w. */
  instantsOf(w: number): number[];
}

function wallClock(timezone: string | undefined): WallClock {
  if (timezone === undefined || timezone === 'UTC') return { zoned: false, toWall: (t) => t, offset: () => 0, instantsOf: (w) => [w] };
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
  } catch {
    throw new InvalidInput(`Unknown time zone '${timezone}'`);
  }
  const toWall = (t: number): number => {
    const p: Record<string, number> = {};
    for (const part of format.formatToParts(new Date(t))) if (part.type !== 'literal') p[part.type] = Number(part.value);
    return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
  };
  const offset = (t: number) => toWall(Math.floor(t / 1000) * 1000) - Math.floor(t / 1000) * 1000;
  return {
    zoned: true, toWall, offset,
    instantsOf: (w) => [...new Set([w - offset(w - 12 * HOUR), w - offset(w + 12 * HOUR)])].filter((t) => toWall(t) === w).sort(num),
  };
}
