/**
 * Next run times of cron expressions (lib/engine/time/cron.ts, on croner), in UTC and on a time zone's wall clock
 * across DST changes.
 */
import { expect } from 'chai';
import { CronSchedule } from '../../../lib/engine/index.js';
import { InvalidInput } from '../../../lib/errors.js';

const at = (s: string) => Date.parse(s);
const iso = (t: number | undefined) => (t === undefined ? undefined : new Date(t).toISOString());
const next = (expr: string, from: string, tz?: string) => iso(CronSchedule.parse(expr, tz).next(at(from)));
/** The runs of `expr` in [from, to), each found from the one before. */
const runs = (expr: string, from: string | number, to: string | number, tz?: string) => {
  const s = CronSchedule.parse(expr, tz);
  const ms = (v: string | number) => (typeof v === 'number' ? v : at(v));
  const out: string[] = [];
  for (let t = s.next(ms(from) - 1); t !== undefined && t < ms(to); t = s.next(t)) out.push(iso(t)!);
  return out;
};
const refused = (expr: string, tz?: string) => {
  try {
    CronSchedule.parse(expr, tz);
  } catch (err) {
    expect(err).to.be.instanceOf(InvalidInput);
    return (err as Error).message;
  }
  throw new Error(`accepted ${expr}`);
};
const NY = 'America/New_York';
const LONDON = 'Europe/London';

describe('cron next run', () => {
  it('reads five fields as minute-level and six with seconds first', () => {
    expect(next('*/15 * * * *', '2026-01-01T10:07:30Z')).to.equal('2026-01-01T10:15:00.000Z');
    expect(next('*/5 * * * * *', '2026-01-01T10:07:31Z')).to.equal('2026-01-01T10:07:35.000Z');
    expect(next('* * * * * *', '2026-01-01T10:07:31.500Z')).to.equal('2026-01-01T10:07:32.000Z');
    expect(next('30 0 9 * * *', '2026-01-01T09:00:00Z')).to.equal('2026-01-01T09:00:30.000Z');
  });

  it('is strictly after the given time', () => {
    expect(next('0 9 * * *', '2026-01-01T09:00:00Z')).to.equal('2026-01-02T09:00:00.000Z');
    expect(next('0 9 * * *', '2026-01-01T08:59:59.999Z')).to.equal('2026-01-01T09:00:00.000Z');
  });

  it('takes ranges, steps, lists, names short or full, and weekday 7 as Sunday', () => {
    expect(next('0 0 1-10/3 * *', '2026-01-02T00:00:00Z')).to.equal('2026-01-04T00:00:00.000Z');
    expect(next('5/20 * * * *', '2026-01-01T10:06:00Z')).to.equal('2026-01-01T10:25:00.000Z'); // from 5 to the field's end
    // 2026-01-01 is a Thursday
    expect(next('0 12 * * mon,FRI', '2026-01-01T00:00:00Z')).to.equal('2026-01-02T12:00:00.000Z');
    expect(next('0 12 * * Monday-Friday', '2026-01-03T00:00:00Z')).to.equal('2026-01-05T12:00:00.000Z');
    expect(next('0 0 * * 7', '2026-01-01T00:00:00Z')).to.equal('2026-01-04T00:00:00.000Z');
    expect(next('30 6 15 Mar *', '2026-01-01T00:00:00Z')).to.equal('2026-03-15T06:30:00.000Z');
    expect(next('0 0 1 January *', '2026-01-02T00:00:00Z')).to.equal('2027-01-01T00:00:00.000Z');
    expect(next('0 0 29 2 *', '2026-01-01T00:00:00Z')).to.equal('2028-02-29T00:00:00.000Z');
  });

  it('needs day of month and weekday both to match when both are restricted', () => {
    expect(next('0 0 13 * 5', '2026-01-01T00:00:00Z')).to.equal('2026-02-13T00:00:00.000Z'); // the next Friday the 13th
    // A leap day on a Monday: 2044, then 2072, then 2112 (2100 has no Feb 29), the longest wait of any expression.
    expect(next('0 0 29 2 1', '2026-01-01T00:00:00Z')).to.equal('2044-02-29T00:00:00.000Z');
    expect(next('0 0 29 2 1', '2072-03-01T00:00:00Z')).to.equal('2112-02-29T00:00:00.000Z');
  });

  it("knows the aliases with or without @, and croner's L, W and #", () => {
    expect(next('@daily', '2026-01-01T10:00:00Z')).to.equal('2026-01-02T00:00:00.000Z');
    expect(next('hourly', '2026-01-01T10:00:00Z')).to.equal('2026-01-01T11:00:00.000Z');
    expect(next('@weekly', '2026-01-01T10:00:00Z')).to.equal('2026-01-04T00:00:00.000Z');
    expect(next('0 0 L * *', '2026-02-01T00:00:00Z')).to.equal('2026-02-28T00:00:00.000Z');
    expect(next('0 0 1W * *', '2026-02-03T00:00:00Z')).to.equal('2026-03-02T00:00:00.000Z'); // 2026-03-01 is a Sunday
    expect(next('0 0 * * 5#2', '2026-01-01T00:00:00Z')).to.equal('2026-01-09T00:00:00.000Z');
  });

  it('matches the wall clock of an IANA time zone, UTC when none is given', () => {
    expect(next('0 9 * * *', '2026-01-01T00:00:00Z', NY)).to.equal('2026-01-01T14:00:00.000Z');
    expect(next('0 9 * * *', '2026-07-01T00:00:00Z', NY)).to.equal('2026-07-01T13:00:00.000Z');
    expect(next('0 9 * * *', '2026-07-01T00:00:00Z', LONDON)).to.equal('2026-07-01T08:00:00.000Z');
    expect(next('0 9 * * *', '2026-07-01T00:00:00Z', 'UTC')).to.equal(next('0 9 * * *', '2026-07-01T00:00:00Z'));
    expect(CronSchedule.parse('* * * * *').timezone).to.equal('UTC');
    expect(CronSchedule.parse('* * * * *', 'america/new_york').timezone).to.equal(NY);
  });

  describe('across DST changes', () => {
    it('runs a wall time a change skips once, at the instant it names on the clock before the change (New York)', () => {
      // 2026-03-08: New York clocks go from 02:00 EST to 03:00 EDT; 02:30 does not exist that day: it runs at 03:30
      // EDT.
      expect(runs('0 30 2 * * *', '2026-03-07T00:00:00Z', '2026-03-10T00:00:00Z', NY)).to.deep.equal([
        '2026-03-07T07:30:00.000Z',
        '2026-03-08T07:30:00.000Z',
        '2026-03-09T06:30:00.000Z',
      ]);
      // 02:30 on the second Sunday of March never exists there: it runs at 03:30 EDT each year.
      expect(runs('0 30 2 8-14 3 0', '2026-01-01T00:00:00Z', '2028-12-31T00:00:00Z', NY)).to.deep.equal([
        '2026-03-08T07:30:00.000Z',
        '2027-03-14T07:30:00.000Z',
        '2028-03-12T07:30:00.000Z',
      ]);
      // Several matching times in the gap: only the first runs, and it merges with a real 03:00.
      expect(runs('0 0,30 2,3 * * *', '2026-03-08T00:00:00Z', '2026-03-08T12:00:00Z', NY)).to.deep.equal([
        '2026-03-08T07:00:00.000Z',
        '2026-03-08T07:30:00.000Z',
      ]);
    });

    it('runs a wall time a change repeats once, at its first instant (New York)', () => {
      // 2026-11-01: 01:00-02:00 happens twice (EDT, then EST); 01:30 is 05:30Z, then 06:30Z.
      expect(runs('0 30 1 * * *', '2026-10-31T00:00:00Z', '2026-11-03T00:00:00Z', NY)).to.deep.equal([
        '2026-10-31T05:30:00.000Z',
        '2026-11-01T05:30:00.000Z',
        '2026-11-02T06:30:00.000Z',
      ]);
      expect(runs('0 */20 1 * * *', '2026-11-01T00:00:00Z', '2026-11-02T00:00:00Z', NY)).to.deep.equal([
        '2026-11-01T05:00:00.000Z',
        '2026-11-01T05:20:00.000Z',
        '2026-11-01T05:40:00.000Z',
      ]);
      // Asked from inside the second pass: every wall time of it has run already.
      expect(next('0 */20 1 * * *', '2026-11-01T06:10:00Z', NY)).to.equal('2026-11-02T06:00:00.000Z');
      expect(next('* * * * *', '2026-11-01T06:10:00Z', NY)).to.equal('2026-11-01T07:00:00.000Z');
    });

    it('does the same in London', () => {
      // 2026-03-29: 01:00 GMT -> 02:00 BST; 01:30 runs at 02:30 BST (01:30Z).
      expect(runs('0 30 1 * * *', '2026-03-28T00:00:00Z', '2026-03-31T00:00:00Z', LONDON)).to.deep.equal([
        '2026-03-28T01:30:00.000Z',
        '2026-03-29T01:30:00.000Z',
        '2026-03-30T00:30:00.000Z',
      ]);
      // 2026-10-25: 02:00 BST -> 01:00 GMT; 01:30 runs once, in BST (00:30Z).
      expect(runs('0 30 1 * * *', '2026-10-24T00:00:00Z', '2026-10-27T00:00:00Z', LONDON)).to.deep.equal([
        '2026-10-24T00:30:00.000Z',
        '2026-10-25T00:30:00.000Z',
        '2026-10-26T01:30:00.000Z',
      ]);
    });

    it('gives each wall time of a DST day at most one run, in increasing order', () => {
      for (const [zone, gapDay, overlapDay] of [
        [NY, '2026-03-08', '2026-11-01'],
        [LONDON, '2026-03-29', '2026-10-25'],
      ] as const) {
        const localDate = new Intl.DateTimeFormat('en-CA', { timeZone: zone });
        const dayRuns = (day: string) =>
          runs(
            '*/30 * * * *',
            at(`${day}T00:00:00Z`) - 86_400_000,
            at(`${day}T00:00:00Z`) + 2 * 86_400_000,
            zone,
          ).filter((r) => localDate.format(new Date(r)) === day);
        const gap = dayRuns(gapDay);
        const overlap = dayRuns(overlapDay);
        for (const list of [gap, overlap]) expect([...list].sort()).to.deep.equal([...new Set(list)]);
        // 48 half hours; in the gap 02:00 and 02:30 (01:00 and 01:30 in London) fold into the first time after it.
        expect(gap.length, `${zone} gap day`).to.equal(46);
        expect(overlap.length, `${zone} overlap day`).to.equal(48);
      }
    });
  });

  it('finds the last run in a span by bisection, however many runs it holds', () => {
    const everySecond = CronSchedule.parse('* * * * * *');
    expect(iso(everySecond.latestBetween(at('2026-01-01T00:00:00Z'), at('2026-02-01T12:34:56.789Z')))).to.equal(
      '2026-02-01T12:34:56.000Z',
    );
    const daily = CronSchedule.parse('0 9 * * *', NY);
    expect(iso(daily.latestBetween(at('2026-01-01T14:00:00Z'), at('2026-03-01T13:59:59Z')))).to.equal(
      '2026-02-28T14:00:00.000Z',
    );
    expect(iso(daily.latestBetween(at('2026-01-01T14:00:00Z'), at('2026-01-01T14:00:00Z')))).to.equal(
      '2026-01-01T14:00:00.000Z',
    );
    expect(daily.latestBetween(at('2026-01-01T14:00:01Z'), at('2026-01-02T13:00:00Z'))).to.equal(undefined);
  });

  it('refuses bad expressions and zones with a message naming the field or zone', () => {
    expect(refused('61 * * * *')).to.include("'61' is not a valid minute");
    expect(refused('0 0 24 * * *')).to.include('hour');
    expect(refused('* * 32 * *')).to.include('day of month');
    expect(refused('* * * 13 *')).to.include('month');
    expect(refused('* * * * 8')).to.include('weekday');
    expect(refused('0 0 * * Funday')).to.include('weekday');
    expect(refused('5-1 * * * *')).to.include('minute');
    expect(refused('*/0 * * * *')).to.include('minute');
    expect(refused('* * *')).to.include('5 fields');
    expect(refused('0 0 0 1 1 * 2030')).to.include('5 fields'); // no year field
    expect(refused('every day')).to.include('5 fields');
    expect(refused('0 * * * *', 'Mars/Olympus')).to.include("Unknown time zone 'Mars/Olympus'");
    expect(refused('0 * * * *', '')).to.include('Unknown time zone');
  });

  it('refuses an expression that never matches, even from deep in a call stack', () => {
    expect(refused('0 0 30 2 *')).to.include('never matches');
    expect(refused('0 0 31 4,6,9,11 *', NY)).to.include('never matches');
    expect(refused('* * * 31 2 *')).to.include('never matches');
    // Croner alone recurses once per month scanned, to the year 3000: thousands of frames deep, this overflowed the
    // stack.
    const deep = (n: number): string => (n === 0 ? refused('0 0 31 4,6,9,11 *', NY) : deep(n - 1));
    expect(deep(5000)).to.include('never matches');
  });
});
