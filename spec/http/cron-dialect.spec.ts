/**
 * The server's one cron dialect through a real server on a manual clock: an
 * expression that only names a time a DST change skips is answered at once
 * (it runs right after the gap, as documented) while another client's point
 * read is served; expressions that never match or name an unknown zone are a
 * 400; the schedule fires at its shifted instant; and the trash purge runs on
 * a CronTimer on the engine's clock.
 */
import { expect } from 'chai';
import { ManualClock } from '../../lib/engine/index.js';
import { ADMIN_KEY, TestServer } from '../helpers/test-server.js';

const T0 = Date.parse('2026-01-01T08:00:00Z');
/** 02:30 on the second Sunday of March: never a New York wall time (clocks go from 02:00 to 03:00 that night). */
const DST_GAP_ONLY = '0 30 2 8-14 3 0';
const NY = 'America/New_York';

describe('HTTP cron dialect', () => {
  let t: TestServer;
  let clock: ManualClock;
  /** Another client: its own key and token. */
  let reader: string;
  beforeEach(async () => {
    clock = new ManualClock(T0);
    t = await TestServer.start({ clock, schedulerTickMs: 0, schedulerStopGraceMs: 50, trashPurgeCron: '0 * * * *' });
    await t.saveFunction({ label: 'beat', functions: [{ type: 'Insert', collection: 'beats', record: { at: 'x' } }] });
    expect((await t.request('POST', '/api/insert/things', { id: 'r1', name: 'kept' })).status).to.equal(201);
    const key = await t.request('POST', '/api/auth/keys', { name: 'reader' });
    expect(key.status, key.text).to.equal(201);
    reader = await t.tokenFor(key.body.key);
  });
  afterEach(async () => {
    await t.stop();
  });

  /** `call` and, from another client with its own token, a point read started at the same moment; both timed. */
  const alongsideARead = async (call: () => Promise<{ status: number; body: any; text: string }>) => {
    const started = performance.now();
    const [answer, read] = await Promise.all([
      call().then((r) => ({ r, ms: performance.now() - started })),
      t
        .request('GET', '/api/find/things/r1', undefined, { token: reader })
        .then((r) => ({ r, ms: performance.now() - started })),
    ]);
    expect(read.r.status, read.r.text).to.equal(200);
    // A generous bound: a stalled event loop took seconds here; this only catches that.
    expect(answer.ms, 'the cron answer').to.be.below(1000);
    expect(read.ms, 'the point read').to.be.below(1000);
    return answer.r;
  };

  it('answers a schedule and a task whose cron only names a skipped time at once: they run right after the gap', async () => {
    const s = await alongsideARead(() =>
      t.request('POST', '/api/schedules', { name: 'gap', cron: DST_GAP_ONLY, timezone: NY, functionName: 'beat' }),
    );
    expect(s.status, s.text).to.equal(200);
    expect(s.body.next_run).to.equal('2026-03-08T07:30:00.000Z'); // 03:30 EDT: 02:30 on the clock before the change
    const task = await alongsideARead(() =>
      t.request('POST', '/api/chat/tasks', { name: 'gap', cron: DST_GAP_ONLY, timezone: NY }),
    );
    expect(task.status, task.text).to.equal(200);
    expect(task.body.next_run).to.equal('2026-03-08T07:30:00.000Z');

    clock.set(Date.parse('2026-03-08T07:29:59Z'));
    const token = await t.tokenFor(ADMIN_KEY); // the first one expired with the months the clock moved
    const schedule = async () => (await t.request('GET', `/api/schedules/${s.body.id}`, undefined, { token })).body;
    await t.server.scheduler.tick();
    expect((await schedule()).run_count).to.equal(0);
    clock.advance(1000);
    await t.server.scheduler.tick();
    await t.server.scheduler.idle();
    expect(await schedule()).to.include({
      run_count: 1,
      last_run: '2026-03-08T07:30:00.000Z',
      next_run: '2027-03-14T07:30:00.000Z',
    });
  });

  it('refuses at once, with 400, an expression that never matches or a zone that does not exist', async () => {
    for (const [cron, timezone, says] of [
      ['0 0 30 2 *', undefined, 'never matches'],
      ['0 0 31 4,6,9,11 *', NY, 'never matches'],
      ['0 9 * * *', 'Nowhere/City', "Unknown time zone 'Nowhere/City'"],
      ['0 25 * * *', NY, "'25' is not a valid hour"],
    ] as const) {
      const s = await alongsideARead(() =>
        t.request('POST', '/api/schedules', { name: 'x', cron, timezone, functionName: 'beat' }),
      );
      expect(s.status, `${cron}: ${s.text}`).to.equal(400);
      expect(s.body.error).to.include(says);
      const task = await t.request('POST', '/api/chat/tasks', { name: 'x', cron, timezone });
      expect(task.status, `${cron}: ${task.text}`).to.equal(400);
      expect(task.body.error).to.include(says);
    }
  });

  it("purges the trash on a cron timer on the engine's clock", async () => {
    expect((await t.request('DELETE', '/api/delete/things/r1')).status).to.equal(200);
    const purge = t.server.maintenance.trashPurge!;
    expect(purge.nextRun)
      .to.be.above(T0)
      .and.at.most(T0 + 3_600_000);
    await purge.tick();
    expect(t.server.db.trash.count('things')).to.equal(1);
    clock.advance(31 * 24 * 3_600_000);
    await purge.tick();
    expect(t.server.db.trash.count('things')).to.equal(0);
    expect(purge.nextRun).to.be.above(clock.now());
  });
});
