/**
 * The server's one cron dialect, on croner: an expression and a time zone
 * checked once (`CronSchedule.parse`, a 400 naming what is wrong), then the
 * next run after any instant the caller gives, which is the engine's
 * injectable clock for tasks, schedules and the maintenance timers
 * (cron-timer.ts).
 *
 * Dialect (croner's, with the spellings clients already send): five fields
 * (minute hour day-of-month month weekday) or six with seconds first; each
 * `*`, a number, a range `a-b`, a step `*\/n`, `a-b/n` or `a/n` (a to the
 * field's end), or a comma list of those; month and weekday names (`JAN`,
 * `mon`; full names such as `January` or `Monday` too), weekday 0 or 7 =
 * Sunday; croner's `L` (last day, last weekday `5L`), `nW` (nearest weekday),
 * `d#n` (nth weekday) and `?` (same as `*`); the aliases `@yearly`
 * (`@annually`), `@monthly`, `@weekly`, `@daily` (`@midnight`), `@hourly`,
 * with or without the `@`. When both day of month and weekday are
 * restricted, both must match (`0 0 13 * 5` is Friday the 13th), the rule
 * stored schedules were written for.
 *
 * Times are wall-clock times of `timezone` (an IANA name; UTC when absent),
 * resolved the way RFC 5545 and croner resolve them. A wall time that a DST
 * change skips runs at the instant it names on the clock before the change:
 * 02:30 on the spring-forward night in New York runs at 03:30 EDT, and when
 * several matching times fall in one gap only the first runs. A wall time
 * that a DST change repeats runs once, at its first instant.
 *
 * Bounded: croner's search recurses once per month it scans, up to the year
 * 3000, and overflows the stack for an expression that never matches (such
 * as `0 0 31 4,6,9,11 *`). Each search here gives croner a year field of at
 * most WINDOW_YEARS and looks at most HORIZON_YEARS ahead, so a next run is a
 * few croner calls of bounded depth; an expression with no run within
 * HORIZON_YEARS is refused when parsed.
 */
import { Cron, CronPattern, type CronOptions } from 'croner';
import { InvalidInput } from '../../errors.js';

/** Years one croner search covers (a recursion frame or two per month). */
const WINDOW_YEARS = 10;
/**
 * How far ahead a next run is looked for. The longest wait between two runs
 * of any expression is a leap day on a given weekday across a century
 * without one (2072 to 2112: 40 years).
 */
export const CRON_HORIZON_YEARS = 50;
/** Longer than any repeated stretch of wall time (DST overlaps are an hour, two at most). */
const MAX_REPEAT_MS = 6 * 3_600_000;

const ALIASES: Readonly<Record<string, string>> = {
  yearly: '0 0 1 1 *',
  annually: '0 0 1 1 *',
  monthly: '0 0 1 * *',
  weekly: '0 0 * * 0',
  daily: '0 0 * * *',
  midnight: '0 0 * * *',
  hourly: '0 * * * *',
};
const FULL_NAMES = new Set([
  'january',
  'february',
  'march',
  'april',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
  'sunday',
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
]);
/** The six fields, seconds first, with what each accepts (for the messages). */
const FIELDS: readonly { readonly name: string; readonly accepts: string }[] = [
  { name: 'second', accepts: '0-59' },
  { name: 'minute', accepts: '0-59' },
  { name: 'hour', accepts: '0-23' },
  { name: 'day of month', accepts: '1-31, L or nW' },
  { name: 'month', accepts: '1-12 or JAN-DEC' },
  { name: 'weekday', accepts: '0-7, SUN-SAT, dL or d#n' },
];
const PATTERN_OPTIONS = { mode: '6-part', sloppyRanges: true } as const;

export class CronSchedule {
  /** Croner jobs (never started) by the first year of their search window. */
  private readonly windows = new Map<number, Cron>();

  private constructor(
    readonly expression: string,
    /** The IANA name the wall clock is read in. */
    readonly timezone: string,
    /** The six fields, seconds first, aliases expanded and names shortened as croner reads them. */
    private readonly fields: string,
  ) {}

  /**
   * Parses `expression` on the wall clock of `timezone` (UTC when absent): a 400 naming the field or zone at fault, or
   * saying it never matches.
   */
  static parse(expression: string, timezone?: string): CronSchedule {
    const fields = fieldsOf(expression);
    const schedule = new CronSchedule(expression, zoneOf(timezone), fields);
    if (schedule.next(0) === undefined)
      throw new InvalidInput(
        `Cron expression '${expression}' never matches (no time within ${CRON_HORIZON_YEARS} years)`,
      );
    return schedule;
  }

  /**
   * The first run strictly after `afterMs` (runs are whole seconds), or undefined when none comes within
   * CRON_HORIZON_YEARS.
   */
  next(afterMs: number): number | undefined {
    const found = this.search(afterMs);
    if (found === undefined || found > afterMs) return found;
    return this.nextAfterRepeat(afterMs);
  }

  /**
   * The last run in [fromMs, toMs], or undefined when there is none: a
   * bisection over `next`, a few dozen searches however long the span (a
   * server down for a month with a schedule firing every second).
   */
  latestBetween(fromMs: number, toMs: number): number | undefined {
    const first = this.next(Math.ceil(fromMs / 1000) * 1000 - 1000);
    if (first === undefined || first > toMs) return undefined;
    let lo = first;
    let hi = Math.floor(toMs / 1000) * 1000;
    // Invariant: a run at or before `to` follows lo; next(hi) is after `to`.
    const following = this.next(lo);
    if (following === undefined || following > toMs) return lo;
    while (hi - lo > 1000) {
      const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
      const next = this.next(mid);
      if (next !== undefined && next <= toMs) lo = mid;
      else hi = mid;
    }
    const last = this.next(lo);
    return last !== undefined && last <= toMs ? last : lo;
  }

  /**
   * From inside the second pass of a repeated hour, croner answers with the
   * first instant of the next repeated wall time, already past: every wall
   * time of that stretch has run. The next run is then what croner answers
   * from the first instant whose answer lies ahead; the answers are past up
   * to some instant and ahead from it on, so bisect for it.
   */
  private nextAfterRepeat(after: number): number | undefined {
    let lo = Math.floor(after / 1000) * 1000;
    let hi = lo + MAX_REPEAT_MS;
    let best = this.search(hi);
    if (best === undefined || best <= after) return undefined;
    while (hi - lo > 1000) {
      const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
      const found = this.search(mid);
      if (found !== undefined && found > after) {
        hi = mid;
        best = found;
      } else {
        lo = mid;
      }
    }
    return best;
  }

  /** Croner's next wall-clock match after `after`, window by window up to the horizon. */
  private search(after: number): number | undefined {
    const first = new Date(after).getUTCFullYear() - 1;
    for (let from = first; from < first + CRON_HORIZON_YEARS && from + WINDOW_YEARS <= 10_000; from += WINDOW_YEARS) {
      const found = this.window(Math.max(1, from)).nextRun(new Date(after));
      if (found) return found.getTime();
    }
    return undefined;
  }

  private window(fromYear: number): Cron {
    let job = this.windows.get(fromYear);
    if (!job) {
      const options: CronOptions = {
        timezone: this.timezone,
        paused: true,
        domAndDow: true,
        mode: '7-part',
        sloppyRanges: true,
      };
      job = new Cron(`${this.fields} ${fromYear}-${fromYear + WINDOW_YEARS - 1}`, options);
      this.windows.set(fromYear, job);
    }
    return job;
  }
}

/** The six fields croner is given, checked one by one so a message names the field at fault. */
function fieldsOf(expression: string): string {
  const trimmed = expression.trim();
  const alias = ALIASES[trimmed.replace(/^@/, '').toLowerCase()];
  const parts = (alias ?? trimmed).split(/\s+/);
  if (parts.length === 5) parts.unshift('0');
  if (parts.length !== 6) {
    throw new InvalidInput(
      `Cron expression '${expression}' must have 5 fields (minute hour day-of-month month weekday) or 6 with ` +
        `seconds first, or be an alias such as @daily`,
    );
  }
  for (const index of [4, 5])
    parts[index] = parts[index]!.replace(/[a-z]+/gi, (w) => (FULL_NAMES.has(w.toLowerCase()) ? w.slice(0, 3) : w));
  parts.forEach((part, index) => {
    try {
      new CronPattern(parts.map((p, j) => (j === index ? p : '*')).join(' '), undefined, PATTERN_OPTIONS);
    } catch {
      const field = FIELDS[index]!;
      throw new InvalidInput(
        `Cron expression '${expression}': '${part}' is not a valid ${field.name} (${field.accepts}, ranges a-b, ` +
          `steps */n, lists)`,
      );
    }
  });
  const fields = parts.join(' ');
  try {
    new CronPattern(fields, undefined, PATTERN_OPTIONS);
  } catch (err) {
    throw new InvalidInput(
      `Cron expression '${expression}' is not valid: ${(err as Error).message.replace(/^CronPattern: /, '')}`,
    );
  }
  return fields;
}

/** The IANA name `timezone` resolves to (UTC when absent); a 400 for a name the runtime does not know. */
function zoneOf(timezone: string | undefined): string {
  if (timezone === undefined) return 'UTC';
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: timezone }).resolvedOptions().timeZone;
  } catch {
    throw new InvalidInput(
      `Unknown time zone '${timezone}': expected an IANA name such as 'America/New_York' or 'UTC'`,
    );
  }
}
