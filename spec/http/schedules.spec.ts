/**
 * Schedules through a real server (protocol.md 2.14) on a manual clock: the
 * routes and their envelopes, the pause/resume lifecycle, a schedule calling
 * a stored function every second observed through its effect and its run
 * history, overlapping runs skipped, an HTTP action to a local server under
 * the outbound allow-list, and a restart in the middle that neither loses
 * nor doubles a run, with both missed-run policies.
 *
 * The servers run with `schedulerTickMs: 0`: the spec moves the clock and
 * calls `scheduler.tick()` itself, then `scheduler.idle()` for the runs.
 */
import { expect } from 'chai';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ManualClock } from '../../lib/engine/index.js';
import { TestServer } from '../helpers/test-server.js';

const T0 = Date.parse('2026-01-01T08:00:00Z');
const at = (secs: number) => new Date(T0 + secs * 1000).toISOString();

describe('HTTP schedules', () => {
  let t: TestServer;
  let clock: ManualClock;
  beforeEach(async () => {
    clock = new ManualClock(T0);
    t = await TestServer.start({ clock, schedulerTickMs: 0, schedulerStopGraceMs: 50 });
    const saved = await t.request('POST', '/api/functions', {
      label: 'beat',
      name: 'beat',
      parameters: { tag: { required: false, default: 'none' } },
      functions: [{ type: 'Insert', collection: 'beats', record: { tag: '{{tag}}' } }],
    });
    expect(saved.status, saved.text).to.equal(200);
  });
  afterEach(async () => {
    await t.stop();
  });

  const ok = async (method: string, path: string, body?: unknown, status = 200) => {
    const r = await t.request(method, path, body);
    expect(r.status, `${method} ${path}: ${r.text}`).to.equal(status);
    return r.body;
  };
  /** Moves the clock by `secs`, fires what is due and waits for the runs. */
  const step = async (secs = 1) => {
    clock.advance(secs * 1000);
    await t.server.scheduler.tick();
    await t.server.scheduler.idle();
  };
  const beats = async () => (await ok('POST', '/api/find/beats', {})).length as number;
  const runs = async (id: string, query = '') =>
    (await ok('GET', `/api/schedules/${id}/runs${query}`)).runs as Record<string, any>[];

  it('creates, lists, gets, updates (partially) and deletes schedules', async () => {
    expect(await ok('GET', '/api/schedules')).to.deep.equal({ schedules: [] });
    const s = await ok('POST', '/api/schedules', {
      name: 'nightly',
      cron: '0 2 * * *',
      timezone: 'UTC',
      functionName: 'beat',
      params: { tag: 'n' },
      owner: { team: 'ops' },
    });
    expect(s).to.include({
      name: 'nightly',
      status: 'active',
      next_run: '2026-01-02T02:00:00.000Z',
      last_run: null,
      missed_runs: 'skip',
      created_at: at(0),
      updated_at: at(0),
    });
    expect(s.id).to.be.a('string');
    expect(await ok('GET', `/api/schedules/${s.id}`)).to.deep.equal(s);
    expect(await ok('GET', '/api/schedules')).to.deep.equal({ schedules: [s] });

    clock.advance(1000);
    const u = await ok('PUT', `/api/schedules/${s.id}`, { cron: '*/10 * * * * *', description: 'often' });
    expect(u).to.include({
      name: 'nightly',
      description: 'often',
      next_run: at(10),
      updated_at: at(1),
      created_at: at(0),
    });
    expect(u.owner).to.deep.equal({ team: 'ops' });
    // An update may echo the server's members unchanged (a client sending back what it read), not change them.
    expect((await ok('PUT', `/api/schedules/${s.id}`, { ...u, name: 'renamed' })).name).to.equal('renamed');
    expect((await t.request('PUT', `/api/schedules/${s.id}`, { next_run: at(99) })).status).to.equal(400);
    expect((await t.request('PUT', `/api/schedules/${s.id}`, { status: 'paused' })).status).to.equal(400);

    expect(await ok('DELETE', `/api/schedules/${s.id}`)).to.deep.equal({ status: 'deleted', id: s.id });
    const gone = await t.request('GET', `/api/schedules/${s.id}`);
    expect(gone.status).to.equal(404);
    expect(gone.body.message ?? gone.body.error).to.match(/Schedule '.*' not found/);
    expect((await t.request('GET', `/api/schedules/${s.id}/runs`)).status).to.equal(404);
  });

  it('accepts every client spelling of the action and of a paused start, and refuses bad bodies with 400', async () => {
    const ts = await ok('POST', '/api/schedules', {
      name: 'backup',
      cron: '0 * * * *',
      action: 'beat',
      config: { tag: 'b' },
    });
    expect(ts.status).to.equal('active');
    const rust = await ok('POST', '/api/schedules', {
      name: 'ping',
      description: 'd',
      cron: '0 * * * *',
      timezone: 'Europe/Paris',
      action: { type: 'http', url: 'http://127.0.0.1:1/', method: 'GET' },
      enabled: false,
    });
    expect(rust).to.include({ status: 'paused', next_run: null });
    expect(
      (await ok('POST', '/api/schedules', { name: 'p', cron: '0 * * * *', functionName: 'beat', paused: true })).status,
    ).to.equal('paused');
    for (const bad of [
      { name: 'x', cron: '0 * * * *' },
      { name: 'x', functionName: 'beat' },
      { name: 'x', cron: 'every day', functionName: 'beat' },
      { name: 'x', cron: '0 * * * *', timezone: 'Nowhere/City', functionName: 'beat' },
      { name: 'x', cron: '0 * * * *', functionName: 'beat', missed_runs: 'all' },
      { name: 'x', cron: '0 * * * *', functionName: 'beat', status: 'running' },
      { name: 'x', cron: '0 * * * *', functionName: 'beat', run_count: 5 },
      JSON.parse('{"name":"x","cron":"0 * * * *","functionName":"beat","__proto__":{"a":1}}'),
    ]) {
      const r = await t.request('POST', '/api/schedules', bad);
      expect(r.status, JSON.stringify(bad) + r.text).to.equal(400);
    }
    expect((await t.request('GET', '/api/schedules/nope')).status).to.equal(404);
    expect((await t.request('GET', `/api/schedules/${ts.id}/runs?limit=0`)).status).to.equal(400);
  });

  it('is admin-only', async () => {
    const user = await t.userToken();
    expect((await t.request('GET', '/api/schedules', undefined, { token: user })).status).to.equal(403);
    expect(
      (
        await t.request(
          'POST',
          '/api/schedules',
          { name: 'x', cron: '* * * * *', functionName: 'beat' },
          { token: user },
        )
      ).status,
    ).to.equal(403);
    expect((await t.request('GET', '/api/schedules', undefined, { token: null })).status).to.equal(401);
  });

  it('calls a function every second, seen through its effect and its run history, paused and resumed at once', async () => {
    const s = await ok('POST', '/api/schedules', {
      name: 'beat',
      cron: '* * * * * *',
      functionName: 'beat',
      params: { tag: 'hb' },
    });
    expect(s.next_run).to.equal(at(1));
    await t.server.scheduler.tick();
    expect(await beats()).to.equal(0); // nothing due before its first instant

    await step();
    expect(await beats()).to.equal(1);
    await step();
    expect(await beats()).to.equal(2);
    // Ticking again at the same instant fires nothing: each instant runs once.
    await t.server.scheduler.tick();
    await t.server.scheduler.idle();
    expect(await beats()).to.equal(2);

    const history = await runs(s.id);
    expect(history.map((r) => r.scheduled_for)).to.deep.equal([at(2), at(1)]);
    expect(history[0]).to.include({ schedule_id: s.id, outcome: 'success', started_at: at(2), ended_at: at(2) });
    expect(history[0]!.result).to.deep.equal({ record_count: 1 });
    expect(history[0]!.error).to.equal(undefined);
    expect((await runs(s.id, '?limit=1')).map((r) => r.scheduled_for)).to.deep.equal([at(2)]);
    expect(await ok('GET', `/api/schedules/${s.id}`)).to.include({
      last_run: at(2),
      next_run: at(3),
      run_count: 2,
      success_count: 2,
      last_outcome: 'success',
    });

    const paused = await ok('POST', `/api/schedules/${s.id}/pause`);
    expect(paused).to.include({ status: 'paused', next_run: null });
    expect(paused.transitions).to.deep.equal([{ action: 'pause', from: 'active', to: 'paused', at: at(2) }]);
    const again = await t.request('POST', `/api/schedules/${s.id}/pause`);
    expect(again.status).to.equal(409);
    await step();
    await step();
    expect(await beats()).to.equal(2);

    const resumed = await ok('POST', `/api/schedules/${s.id}/resume`);
    expect(resumed).to.include({ status: 'active', next_run: at(5) }); // the instants passed while paused are not run
    const twice = await t.request('POST', `/api/schedules/${s.id}/resume`);
    expect(twice.status).to.equal(409);
    expect(twice.text)
      .to.match(/active/)
      .and.to.match(/pause/);
    await step();
    expect(await beats()).to.equal(3);
    expect((await runs(s.id)).length).to.equal(3);

    // A deleted schedule fires no more and takes its runs with it.
    await ok('DELETE', `/api/schedules/${s.id}`);
    await step();
    expect(await beats()).to.equal(3);
    expect(await ok('POST', '/api/find/__schedule_runs', {})).to.deep.equal([]);
  });

  it('records a failed run with its error (a missing function, a Return with an error status)', async () => {
    const s = await ok('POST', '/api/schedules', {
      name: 'missing',
      cron: '* * * * * *',
      function_label: 'no_such_function',
    });
    await step();
    const [run] = await runs(s.id);
    expect(run).to.include({ outcome: 'failure', scheduled_for: at(1) });
    expect(run!.error).to.match(/no_such_function/);
    expect(await ok('GET', `/api/schedules/${s.id}`)).to.include({ failure_count: 1, last_outcome: 'failure' });
    await ok('POST', '/api/functions', {
      label: 'refuse',
      name: 'refuse',
      parameters: {},
      functions: [{ type: 'Return', fields: { ok: false }, status_code: 503 }],
    });
    const r = await ok('POST', '/api/schedules', { name: 'refusing', cron: '* * * * * *', function_label: 'refuse' });
    await step();
    const [refused] = await runs(r.id);
    expect(refused).to.include({ outcome: 'failure', error: 'The function returned status 503' });
  });

  describe('HTTP actions', () => {
    let http: HttpServer;
    let hits: string[];
    let held: ServerResponse[];
    let hold: boolean;
    let port: number;
    /** An every-second schedule whose HTTP action the local server holds: fired once, its request held open. */
    const startHeldRun = async (): Promise<Record<string, any>> => {
      await ok('PUT', '/api/config', { outbound_allow_hosts: ['127.0.0.1'] });
      const s = await ok('POST', '/api/schedules', {
        name: 'slow',
        cron: '* * * * * *',
        action: { type: 'http', url: `http://127.0.0.1:${port}/slow` },
      });
      hold = true;
      clock.advance(1000);
      await t.server.scheduler.tick();
      while (held.length === 0) await new Promise((r) => setTimeout(r, 5));
      return s;
    };
    beforeEach(async () => {
      hits = [];
      held = [];
      hold = false;
      http = createServer((req: IncomingMessage, res: ServerResponse) => {
        let body = '';
        req.on('data', (c) => {
          body += c;
        });
        req.on('end', () => {
          hits.push(`${req.method} ${req.url} ${body}`);
          if (req.url === '/broken') {
            res.statusCode = 500;
            res.end('boom');
            return;
          }
          if (hold) held.push(res);
          else res.end('pong');
        });
      });
      await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
      port = (http.address() as AddressInfo).port;
    });
    afterEach(async () => {
      for (const r of held) r.end('late');
      await new Promise((resolve) => http.close(resolve));
    });

    it('sends the request through the outbound allow-list', async () => {
      const s = await ok('POST', '/api/schedules', {
        name: 'ping',
        cron: '* * * * * *',
        action: { type: 'http', url: `http://127.0.0.1:${port}/ping`, method: 'POST', body: { from: 'schedule' } },
      });
      await step();
      const [denied] = await runs(s.id);
      expect(denied).to.include({ outcome: 'failure' });
      expect(denied!.error).to.match(/127\.0\.0\.1/);
      expect(hits).to.deep.equal([]);

      await ok('PUT', '/api/config', { outbound_allow_hosts: ['127.0.0.1'] });
      await step();
      const [sent] = await runs(s.id);
      expect(sent).to.include({ outcome: 'success', scheduled_for: at(2) });
      expect(sent!.result).to.deep.equal({ status: 200, body: 'pong' });
      expect(hits).to.deep.equal(['POST /ping {"from":"schedule"}']);

      await ok('PUT', `/api/schedules/${s.id}`, { action: { type: 'http', url: `http://127.0.0.1:${port}/broken` } });
      await step();
      const [broken] = await runs(s.id);
      expect(broken).to.include({ outcome: 'failure', error: 'HTTP 500' });
    });

    it('closes a run cut short by a restart as interrupted, and fires on after it', async () => {
      const s = await startHeldRun();
      const dataDir = t.dataDir;
      await t.stop({ keepData: true }); // the held request outlives the 50 ms grace
      t = await TestServer.start({ dataDir, clock, schedulerTickMs: 0, schedulerStopGraceMs: 50 });
      const [cut] = await runs(s.id);
      expect(cut).to.include({ scheduled_for: at(1), status: 'failure', outcome: 'failure' });
      expect(cut!.error).to.match(/interrupted/);
      expect(await ok('GET', `/api/schedules/${s.id}`)).to.include({ last_run: at(1), next_run: at(2) });
      hold = false;
      await step();
      expect(hits.length).to.equal(2);
      expect((await runs(s.id))[0]).to.include({ scheduled_for: at(2), outcome: 'success' });
    });

    it('lets a schedule be deleted during its run, which then ends without a trace', async () => {
      const s = await startHeldRun();
      await ok('DELETE', `/api/schedules/${s.id}`);
      held.shift()!.end('done');
      await t.server.scheduler.idle();
      expect(await ok('POST', '/api/find/__schedule_runs', {})).to.deep.equal([]);
      expect(await ok('GET', '/api/schedules')).to.deep.equal({ schedules: [] });
      expect(t.logged.filter((l) => /schedule/.test(JSON.stringify(l)))).to.deep.equal([]);
    });

    it('skips an instant whose previous run is still going instead of stacking a second run', async () => {
      const s = await startHeldRun();
      clock.advance(1000);
      await t.server.scheduler.tick();
      clock.advance(1000);
      await t.server.scheduler.tick();
      expect(hits.length).to.equal(1);
      const during = await runs(s.id);
      expect(during.map((r) => [r.scheduled_for, r.status])).to.deep.equal([
        [at(3), 'skipped'],
        [at(2), 'skipped'],
        [at(1), 'running'],
      ]);
      expect(during[0]!.error).to.match(/still in progress/);

      held.shift()!.end('done');
      await t.server.scheduler.idle();
      const after = await runs(s.id);
      expect(after.find((r) => r.scheduled_for === at(1))).to.include({ outcome: 'success' });
      expect(await ok('GET', `/api/schedules/${s.id}`)).to.include({
        run_count: 3,
        skipped_count: 2,
        success_count: 1,
      });
      hold = false;
      await step();
      expect(hits.length).to.equal(2);
    });
  });

  it("fires from the server's own timer when one is configured (production ticking)", async () => {
    const dataDir = t.dataDir;
    await t.stop({ keepData: true });
    t = await TestServer.start({ dataDir, clock, schedulerTickMs: 10 });
    await ok('POST', '/api/schedules', { name: 'beat', cron: '* * * * * *', functionName: 'beat' });
    clock.advance(1000);
    for (let i = 0; i < 200 && (await beats()) === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(await beats()).to.equal(1);
  });

  it('fires nothing, missed runs included, on a server started with runSchedules: false (a ripple peer)', async () => {
    await ok('POST', '/api/schedules', {
      name: 'beat',
      cron: '* * * * * *',
      functionName: 'beat',
      missed_runs: 'run_once',
    });
    const dataDir = t.dataDir;
    await t.stop({ keepData: true });
    clock.advance(5000);
    t = await TestServer.start({ dataDir, clock, schedulerTickMs: 10, runSchedules: false });
    clock.advance(1000);
    await new Promise((r) => setTimeout(r, 100));
    expect(await beats()).to.equal(0);
    expect((await ok('GET', '/api/schedules')).schedules).to.have.length(1);
  });

  describe('across a restart', () => {
    const restart = async (downSecs: number) => {
      const dataDir = t.dataDir;
      await t.stop({ keepData: true });
      clock.advance(downSecs * 1000);
      t = await TestServer.start({ dataDir, clock, schedulerTickMs: 0 });
    };

    it('carries the schedule across without firing an instant twice', async () => {
      const s = await ok('POST', '/api/schedules', {
        name: 'beat',
        cron: '* * * * * *',
        functionName: 'beat',
        params: { tag: 'r' },
      });
      await step();
      await step();
      expect(await beats()).to.equal(2);
      await restart(0);
      await t.server.scheduler.tick();
      await t.server.scheduler.idle();
      expect(await beats()).to.equal(2);
      expect(await ok('GET', `/api/schedules/${s.id}`)).to.include({
        status: 'active',
        last_run: at(2),
        next_run: at(3),
      });
      await step();
      expect(await beats()).to.equal(3);
      expect((await runs(s.id)).map((r) => r.scheduled_for)).to.deep.equal([at(3), at(2), at(1)]);
    });

    it('keeps a paused schedule paused', async () => {
      const s = await ok('POST', '/api/schedules', { name: 'beat', cron: '* * * * * *', functionName: 'beat' });
      await ok('POST', `/api/schedules/${s.id}/pause`);
      await restart(5);
      await step();
      expect(await beats()).to.equal(0);
      expect((await ok('GET', `/api/schedules/${s.id}`)).status).to.equal('paused');
    });

    it('skips the runs missed while down by default, recording one skipped run', async () => {
      const s = await ok('POST', '/api/schedules', { name: 'beat', cron: '* * * * * *', functionName: 'beat' });
      await step();
      await restart(10);
      await t.server.scheduler.idle();
      expect(await beats()).to.equal(1);
      const [missed] = await runs(s.id);
      expect(missed).to.include({ outcome: 'skipped', scheduled_for: at(11) });
      expect(missed!.error).to.match(/missed while the server was down/);
      expect(await ok('GET', `/api/schedules/${s.id}`)).to.include({ next_run: at(12), last_run: at(11) });
      await step();
      expect(await beats()).to.equal(2);
    });

    it('runs once for the runs missed while down with missed_runs: run_once', async () => {
      const s = await ok('POST', '/api/schedules', {
        name: 'beat',
        cron: '* * * * * *',
        functionName: 'beat',
        missed_runs: 'run_once',
      });
      await step();
      await restart(10);
      await t.server.scheduler.idle();
      expect(await beats()).to.equal(2);
      const [once] = await runs(s.id);
      expect(once).to.include({ outcome: 'success', scheduled_for: at(11) });
      expect(await ok('GET', `/api/schedules/${s.id}`)).to.include({ next_run: at(12), last_run: at(11) });
      await t.server.scheduler.tick();
      await t.server.scheduler.idle();
      expect(await beats()).to.equal(2);
    });
  });
});
