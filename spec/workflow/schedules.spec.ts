/**
 * The pure parts of schedules (lib/workflow/schedules.ts,
 * schedule-action.ts): the action read from every client spelling, the
 * missed-run policy, and the next run on the cron with seconds and time zones.
 */
import { expect } from 'chai';
import { actionOf, cronOf, missedRunPolicy, nextRunAfter } from '../../lib/workflow/index.js';
import { InvalidInput } from '../../lib/errors.js';

const T0 = Date.parse('2026-01-01T08:00:00Z');

describe('schedules (pure)', () => {
  describe('the action', () => {
    it('reads a stored function by function_label, functionName or scriptName, with parameters or params', () => {
      expect(actionOf({ function_label: 'tick', parameters: { n: 1 } })).to.deep.equal({
        type: 'function',
        label: 'tick',
        parameters: { n: 1 },
      });
      expect(actionOf({ functionName: 'tick', params: { n: 2 } })).to.deep.equal({
        type: 'function',
        label: 'tick',
        parameters: { n: 2 },
      });
      expect(actionOf({ scriptName: 'tick' })).to.deep.equal({ type: 'function', label: 'tick', parameters: {} });
      expect(actionOf({ action: { type: 'function', function_label: 'tick', parameters: { a: true } } })).to.deep.equal(
        { type: 'function', label: 'tick', parameters: { a: true } },
      );
    });

    it("reads the TS clients' action string as a function label with config as its parameters", () => {
      expect(actionOf({ action: 'backup', config: { target: 's3' } })).to.deep.equal({
        type: 'function',
        label: 'backup',
        parameters: { target: 's3' },
      });
    });

    it("reads the Rust clients' http action, method upper-cased, JSON bodies encoded", () => {
      expect(
        actionOf({ action: { type: 'http', url: 'http://127.0.0.1:9/x', method: 'post', body: { a: 1 } } }),
      ).to.deep.equal({
        type: 'http',
        url: 'http://127.0.0.1:9/x',
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"a":1}',
      });
      expect(actionOf({ action: { type: 'http', url: 'http://h/x' } })).to.deep.equal({
        type: 'http',
        url: 'http://h/x',
        method: 'GET',
        headers: {},
      });
    });

    it('refuses a record without an action, or a malformed one, with 400', () => {
      for (const bad of [
        {},
        { function_label: '' },
        { functionName: 3 },
        { function_label: 'f', parameters: [1] },
        { action: { type: 'shell', cmd: 'rm' } },
        { action: { type: 'http' } },
        { action: { type: 'http', url: 'http://h', headers: { a: 1 } } },
        { action: 7 },
      ]) {
        expect(() => actionOf(bad), JSON.stringify(bad)).to.throw(InvalidInput);
      }
    });
  });

  describe('the missed-run policy', () => {
    it('is skip by default, or run_once; anything else is 400', () => {
      expect(missedRunPolicy({})).to.equal('skip');
      expect(missedRunPolicy({ missed_runs: 'run_once' })).to.equal('run_once');
      expect(() => missedRunPolicy({ missed_runs: 'all' })).to.throw(InvalidInput, /skip, run_once/);
    });
  });

  describe('the next run', () => {
    it('is the next cron instant strictly after now, seconds included', () => {
      expect(nextRunAfter({ cron: '* * * * * *' }, T0)).to.equal('2026-01-01T08:00:01.000Z');
      expect(nextRunAfter({ cron: '* * * * * *' }, T0 + 400)).to.equal('2026-01-01T08:00:01.000Z');
      expect(nextRunAfter({ cron: '*/15 * * * * *' }, T0 + 1000)).to.equal('2026-01-01T08:00:15.000Z');
      expect(nextRunAfter({ cron: '0 9 * * *' }, T0)).to.equal('2026-01-01T09:00:00.000Z');
    });

    it("follows the wall clock of the schedule's timezone", () => {
      expect(nextRunAfter({ cron: '0 9 * * *', timezone: 'Europe/Paris' }, T0)).to.equal('2026-01-02T08:00:00.000Z');
      expect(nextRunAfter({ cron: '0 9 * * *', timezone: 'America/New_York' }, T0)).to.equal(
        '2026-01-01T14:00:00.000Z',
      );
    });

    it('refuses a missing or bad cron or time zone with 400', () => {
      expect(() => cronOf({})).to.throw(InvalidInput, /cron/);
      expect(() => cronOf({ cron: '61 * * * *' })).to.throw(InvalidInput);
      expect(() => cronOf({ cron: '* * * * *', timezone: 'Mars/Olympus' })).to.throw(InvalidInput);
      expect(() => cronOf({ cron: '* * * * *', timezone: 5 })).to.throw(InvalidInput);
    });
  });
});
