/** Next run times of cron expressions (lib/engine/cron.ts), in UTC and on a time zone's wall clock across DST changes. */
import { expect } from 'chai';
import { CronSchedule } from '../../lib/engine/index.js';
import { InvalidInput } from '../../lib/errors.js';

const at = (s: string) => Date.parse(s);
const next = (expr: string, from: string, tz?: string) => {
  const t = CronSchedule.parse(expr, tz).next(at(from));
  return t === undefined ? undefined : new Date(t).toISOString();
};

describe('cron next run', () => {
  it('reads five fields as minute-level and six with seconds', () => {
    expect(next('*/15 * * * *', '2026-01-01T10:07:30Z')).to.equal('2026-01-01T10:15:00.000Z');
    expect(next('*/5 * * * * *', '2026-01-01T10:07:31Z')).to.equal('2026-01-01T10:07:35.000Z');
    expect(next('* * * * * *', '2026-01-01T10:07:31.500Z')).to.equal('2026-01-01T10:07:32.000Z');
  });

  it('is strictly after the given time', () => {
    expect(next('0 9 * * *', '2026-01-01T09:00:00Z')).to.equal('2026-01-02T09:00:00.000Z');
    expect(next('0 9 * * *', '2026-01-01T08:59:59.999Z')).to.equal('2026-01-01T09:00:00.000Z');
  });

  it('takes ranges, steps from the range start, lists, names and weekday 7 as Sunday', () => {
    expect(next('0 0 1-10/3 * *', '2026-01-02T00:00:00Z')).to.equal('2026-01-04T00:00:00.000Z');
    expect(next('0 12 * * mon,FRI', '2026-01-01T00:00:00Z')).to.equal('2026-01-02T12:00:00.000Z'); // 2026-01-01 is a Thursday
    expect(next('0 0 * * 7', '2026-01-01T00:00:00Z')).to.equal('2026-01-04T00:00:00.000Z');
    expect(next('30 6 15 Mar *', '2026-01-01T00:00:00Z')).to.equal('2026-03-15T06:30:00.000Z');
    expect(next('0 0 29 2 *', '2026-01-01T00:00:00Z')).to.equal('2028-02-29T00:00:00.000Z');
  });

  it('needs day of month and weekday to match both (node-cron)', () => {
    expect(next('0 0 13 * 5', '2026-01-01T00:00:00Z')).to.equal('2026-02-13T00:00:00.000Z'); // the next Friday the 13th
  });

  it('knows the aliases', () => {
    expect(next('@daily', '2026-01-01T10:00:00Z')).to.equal('2026-01-02T00:00:00.000Z');
    expect(next('hourly', '2026-01-01T10:00:00Z')).to.equal('2026-01-01T11:00:00.000Z');
    expect(next('@weekly', '2026-01-01T10:00:00Z')).to.equal('2026-01-04T00:00:00.000Z');
  });

  it('matches the wall clock of a time zone', () => {
    expect(next('0 9 * * *', '2026-01-01T00:00:00Z', 'America/New_York')).to.equal('2026-01-01T14:00:00.000Z');
    expect(next('0 9 * * *', '2026-07-01T00:00:00Z', 'America/New_York')).to.equal('2026-07-01T13:00:00.000Z');
  });

  it('skips a wall time that a DST change skips and fires a repeated one at its first instant', () => {
    // 2026-03-08: New York clocks go from 02:00 to 03:00; 02:30 does not exist that day.
    expect(next('0 30 2 * * *', '2026-03-08T00:00:00Z', 'America/New_York')).to.equal('2026-03-09T06:30:00.000Z');
    // 2026-11-01: 01:30 happens twice (EDT then EST); the first is 05:30Z, the second 06:30Z.
    expect(next('0 30 1 * * *', '2026-11-01T00:00:00Z', 'America/New_York')).to.equal('2026-11-01T05:30:00.000Z');
    expect(next('0 30 1 * * *', '2026-11-01T05:30:00Z', 'America/New_York')).to.equal('2026-11-01T06:30:00.000Z');
    // Every 20 minutes through the repeated hour: wall 01:40 EDT (05:40Z) comes before wall 01:00 EST (06:00Z).
    expect(next('0 */20 1 * * *', '2026-11-01T05:20:00Z', 'America/New_York')).to.equal('2026-11-01T05:40:00.000Z');
    expect(next('0 */20 1 * * *', '2026-11-01T05:40:00Z', 'America/New_York')).to.equal('2026-11-01T06:00:00.000Z');
  });

  it('refuses bad expressions, bad zones and expressions that never fire, naming the field', () => {
    const refused = (expr: string, tz?: string) => {
      try {
        CronSchedule.parse(expr, tz);
      } catch (err) {
        expect(err).to.be.instanceOf(InvalidInput);
        return (err as Error).message;
      }
      throw new Error(`accepted ${expr}`);
    };
    expect(refused('61 * * * *')).to.include('minute');
    expect(refused('* * 32 * *')).to.include('day of month');
    expect(refused('* * * 13 *')).to.include('month');
    expect(refused('* * * * 8')).to.include('weekday');
    expect(refused('5-1 * * * *')).to.include('minute');
    expect(refused('*/0 * * * *')).to.include('minute');
    expect(refused('* * *')).to.include('5 or 6 fields');
    expect(refused('0 0 31 2 *')).to.include('never fires');
    expect(refused('0 * * * *', 'Mars/Olympus')).to.include('time zone');
  });
});
