/**
 * Goals, goal templates, tasks and agents through a real server
 * (protocol.md 2.13): every route, the list envelopes, route precedence,
 * lifecycles with their 409s, tasks due on the manual clock, admin-only
 * access, durability across a restart, and a chat session made from an agent.
 */
import { expect } from 'chai';
import { TestServer } from '../helpers/test-server.js';

const T0 = Date.parse('2026-01-01T08:00:00Z');

describe('HTTP chat workflow: goals, goal templates, tasks, agents', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await TestServer.start();
    t.clock.set(T0);
  });
  afterEach(async () => {
    await t.stop();
  });

  const ok = async (method: string, path: string, body?: unknown, status = 200) => {
    const r = await t.request(method, path, body);
    expect(r.status, `${method} ${path}: ${r.text}`).to.equal(status);
    return r.body;
  };

  describe('goals', () => {
    it('creates, lists, gets, updates (partially) and deletes bare records', async () => {
      expect(await ok('GET', '/api/chat/goals')).to.deep.equal({ count: 0, goals: [] });
      const g = await ok('POST', '/api/chat/goals', {
        title: 'Launch',
        description: 'Ship v1',
        steps: [{ description: 'Build' }, 'Test'],
        owner: { team: 'core' },
      });
      expect(g).to.include({
        title: 'Launch',
        description: 'Ship v1',
        status: 'pending',
        created_at: '2026-01-01T08:00:00.000Z',
      });
      expect(g.id).to.be.a('string');
      expect(g.steps).to.deep.equal([
        { description: 'Build', status: 'pending', transitions: [] },
        { description: 'Test', status: 'pending', transitions: [] },
      ]);
      expect(await ok('GET', `/api/chat/goals/${g.id}`)).to.deep.equal(g);
      expect(await ok('GET', '/api/chat/goals')).to.deep.equal({ count: 1, goals: [g] });

      t.clock.advance(1000);
      const u = await ok('PUT', `/api/chat/goals/${g.id}`, { description: 'Ship v1.0', priority: 2 });
      expect(u).to.include({
        title: 'Launch',
        description: 'Ship v1.0',
        priority: 2,
        status: 'pending',
        created_at: g.created_at,
        updated_at: '2026-01-01T08:00:01.000Z',
      });
      expect(u.owner).to.deep.equal({ team: 'core' });

      expect(await ok('DELETE', `/api/chat/goals/${g.id}`)).to.deep.equal({ status: 'deleted', id: g.id });
      expect((await t.request('GET', `/api/chat/goals/${g.id}`)).status).to.equal(404);
      expect(await ok('GET', '/api/chat/goals')).to.deep.equal({ count: 0, goals: [] });
    });

    it('keeps members exactly as sent (typed-looking objects, dates, big integers)', async () => {
      const body = {
        title: 'Exact',
        meta: { type: 'String', value: 'not a wrapper' },
        when: '2026-01-01T00:00:00Z',
        big: 12345678901234567,
      };
      const raw = await t.request('POST', '/api/chat/goals', undefined, {
        raw: JSON.stringify(body).replace('12345678901234568', '12345678901234567'),
      });
      expect(raw.status).to.equal(200);
      expect(raw.text).to.include('"big":12345678901234567');
      expect(raw.body.meta).to.deep.equal({ type: 'String', value: 'not a wrapper' });
      expect(raw.body.when).to.equal('2026-01-01T00:00:00Z');
    });

    it('searches by words in any text member, steps included (search wins over {id})', async () => {
      const a = await ok('POST', '/api/chat/goals', {
        title: 'Launch the rocket',
        steps: [{ description: 'Fuel tanks' }],
      });
      const b = await ok('POST', '/api/chat/goals', { title: 'Write docs', description: 'Rocket manual' });
      await ok('POST', '/api/chat/goals', { title: 'Unrelated' });
      const ids = async (q: string) =>
        (await ok('GET', `/api/chat/goals/search?q=${encodeURIComponent(q)}`)).goals.map((g: any) => g.id);
      expect(await ids('rocket')).to.deep.equal([a.id, b.id]);
      expect(await ids('ROCKET fuel')).to.deep.equal([a.id]);
      expect(await ids('nothing-like-this')).to.deep.equal([]);
      expect(await ids('')).to.have.length(3);
      expect(await ok('GET', '/api/chat/goals/search?q=fuel')).to.deep.include({ count: 1 });
      await ok('POST', `/api/chat/goals/${b.id}/approve`);
      expect(await ids('approve')).to.deep.equal([]); // the kept transitions are not searched
    });

    it(
      'runs the review lifecycle, keeping each transition with its time: approval sends it back to work until ' +
        'every step is completed',
      async () => {
        const g = await ok('POST', '/api/chat/goals', { title: 'G', steps: [{ description: 's0' }] });
        t.clock.advance(1000);
        expect((await ok('POST', `/api/chat/goals/${g.id}/approve`)).status).to.equal('in_progress');
        t.clock.advance(1000);
        const done = await ok('POST', `/api/chat/goals/${g.id}/complete`, { summary: 'All done' });
        expect(done).to.include({ status: 'pending_review', summary: 'All done' });
        // s0 is still pending
        expect((await ok('POST', `/api/chat/goals/${g.id}/approve`)).status).to.equal('in_progress');
        await ok('POST', `/api/chat/goals/${g.id}/steps/0/start`);
        await ok('POST', `/api/chat/goals/${g.id}/steps/0/complete`, { result: 'ok' });
        await ok('POST', `/api/chat/goals/${g.id}/complete`, { summary: 'Really done' });
        const approved = await ok('POST', `/api/chat/goals/${g.id}/approve`);
        expect(approved).to.include({ status: 'completed', summary: 'Really done' });
        expect(approved.transitions).to.deep.equal([
          { action: 'approve', from: 'pending', to: 'in_progress', at: '2026-01-01T08:00:01.000Z' },
          { action: 'complete', from: 'in_progress', to: 'pending_review', at: '2026-01-01T08:00:02.000Z' },
          { action: 'approve', from: 'pending_review', to: 'in_progress', at: '2026-01-01T08:00:02.000Z' },
          { action: 'complete', from: 'in_progress', to: 'pending_review', at: '2026-01-01T08:00:02.000Z' },
          { action: 'approve', from: 'pending_review', to: 'completed', at: '2026-01-01T08:00:02.000Z' },
        ]);
        expect((await t.request('POST', `/api/chat/goals/${g.id}/reject`, { reason: 'late' })).status).to.equal(409);
      },
    );

    it(
      "runs the official TypeScript example's flow: steps right after the create, complete, approve; reject of a " +
        'new goal',
      async () => {
        const g = await ok('POST', '/api/chat/goals', {
          title: 'Deploy v2.0',
          description: 'Ship',
          steps: [
            { description: 'Run test suite' },
            { description: 'Build release artifacts' },
            { description: 'Deploy' },
          ],
        });
        expect((await ok('POST', `/api/chat/goals/${g.id}/steps/0/start`)).id).to.equal(g.id);
        expect(
          (await ok('POST', `/api/chat/goals/${g.id}/steps/0/complete`, { result: 'All 527 tests passed' })).steps[0],
        ).to.include({ status: 'completed', result: 'All 527 tests passed' });
        const failed = await ok('POST', `/api/chat/goals/${g.id}/steps/1/fail`, {
          error: 'Build timed out after 10 minutes',
        });
        expect(failed).to.include({ id: g.id, status: 'pending' });
        expect(failed.steps.map((s: any) => s.status)).to.deep.equal(['completed', 'failed', 'pending']);
        expect(failed.steps[1]).to.include({ error: 'Build timed out after 10 minutes' });
        expect(
          (await ok('POST', `/api/chat/goals/${g.id}/complete`, { summary: 'Deployed after a retry' })).status,
        ).to.equal('pending_review');
        expect((await ok('POST', `/api/chat/goals/${g.id}/approve`)).status).to.equal('in_progress');
        const other = await ok('POST', '/api/chat/goals', {
          title: 'Bad Plan',
          steps: [{ description: 'Do something wrong' }],
        });
        expect(
          await ok('POST', `/api/chat/goals/${other.id}/reject`, { reason: 'Plan does not meet requirements' }),
        ).to.include({ status: 'failed', rejection_reason: 'Plan does not meet requirements' });
      },
    );

    it(
      'rejects with a reason, then refuses approve of the failed goal with 409 naming its state and the allowed ' +
        'actions',
      async () => {
        const g = await ok('POST', '/api/chat/goals', { title: 'G' });
        const failed = await ok('POST', `/api/chat/goals/${g.id}/reject`, { reason: 'Out of scope' });
        expect(failed).to.include({ status: 'failed', rejection_reason: 'Out of scope' });
        const r = await t.request('POST', `/api/chat/goals/${g.id}/approve`);
        expect(r.status).to.equal(409);
        expect(r.body).to.include({ current_status: 'failed', action: 'approve' });
        expect(r.body.allowed_actions).to.deep.equal([]);
        expect(r.body.error).to.include('it is failed');
        const working = await ok('POST', '/api/chat/goals', { title: 'H', status: 'in_progress' });
        const early = await t.request('POST', `/api/chat/goals/${working.id}/approve`);
        expect(early.status).to.equal(409);
        expect(early.body).to.include({ current_status: 'in_progress' });
        expect(early.body.allowed_actions).to.deep.equal(['complete', 'reject']);
      },
    );

    it('may start in progress when created so, but no further', async () => {
      expect((await ok('POST', '/api/chat/goals', { title: 'G', status: 'in_progress' })).status).to.equal(
        'in_progress',
      );
      expect((await t.request('POST', '/api/chat/goals', { title: 'G', status: 'completed' })).status).to.equal(400);
    });

    it(
      'runs steps while the goal is pending or in progress: start, complete with a result, fail with an error, ' +
        'start again',
      async () => {
        const g = await ok('POST', '/api/chat/goals', {
          title: 'G',
          steps: [{ description: 'a' }, { description: 'b' }, { description: 'c' }],
        });
        expect(
          (await ok('POST', `/api/chat/goals/${g.id}/steps/2/complete`, { result: 'done already' })).steps[2],
        ).to.include({ status: 'completed', result: 'done already' });
        await ok('POST', `/api/chat/goals/${g.id}/approve`);

        t.clock.advance(500);
        expect((await ok('POST', `/api/chat/goals/${g.id}/steps/0/start`)).steps[0]).to.include({
          status: 'in_progress',
          started_at: '2026-01-01T08:00:00.500Z',
        });
        const s0 = (await ok('POST', `/api/chat/goals/${g.id}/steps/0/complete`, { result: { rows: 3 } })).steps[0];
        expect(s0).to.include({ status: 'completed', completed_at: '2026-01-01T08:00:00.500Z' });
        expect(s0.result).to.deep.equal({ rows: 3 });
        expect(s0.transitions.map((x: any) => x.to)).to.deep.equal(['in_progress', 'completed']);

        await ok('POST', `/api/chat/goals/${g.id}/steps/1/start`);
        const s1 = (await ok('POST', `/api/chat/goals/${g.id}/steps/1/fail`, { error: 'disk full' })).steps[1];
        expect(s1).to.include({ status: 'failed', error: 'disk full' });
        expect((await ok('POST', `/api/chat/goals/${g.id}/steps/1/start`)).steps[1].status).to.equal('in_progress');
        const again = await t.request('POST', `/api/chat/goals/${g.id}/steps/0/start`);
        expect(again.status).to.equal(409);
        expect(again.body).to.include({ current_status: 'completed' });
        expect(again.body.allowed_actions).to.deep.equal([]);

        await ok('POST', `/api/chat/goals/${g.id}/complete`, { summary: 'review me' });
        const frozen = await t.request('POST', `/api/chat/goals/${g.id}/steps/1/complete`, { result: 'x' });
        expect(frozen.status).to.equal(409);
        expect(frozen.body.error).to.include('pending_review').and.to.include('pending or in_progress');

        expect((await t.request('POST', `/api/chat/goals/${g.id}/steps/3/start`)).status).to.equal(404);
        expect((await t.request('POST', `/api/chat/goals/${g.id}/steps/x/start`)).status).to.equal(400);
        expect((await t.request('POST', `/api/chat/goals/nope/steps/0/start`)).status).to.equal(404);
      },
    );

    it('refuses lifecycle members in updates unless echoed unchanged, and new steps start pending', async () => {
      const g = await ok('POST', '/api/chat/goals', { title: 'G', steps: ['a'] });
      expect((await t.request('PUT', `/api/chat/goals/${g.id}`, { status: 'completed' })).status).to.equal(400);
      expect(
        (await t.request('PUT', `/api/chat/goals/${g.id}`, { steps: [{ description: 'a', status: 'completed' }] }))
          .status,
      ).to.equal(400);
      expect(
        (await t.request('PUT', `/api/chat/goals/${g.id}`, { created_at: '2020-01-01T00:00:00Z' })).status,
      ).to.equal(400);
      const echoed = await ok('PUT', `/api/chat/goals/${g.id}`, {
        ...g,
        title: 'G2',
        steps: [...g.steps, { description: 'b' }],
      });
      expect(echoed.title).to.equal('G2');
      expect(echoed.steps.map((s: any) => s.status)).to.deep.equal(['pending', 'pending']);
    });

    it('refuses bad input with 400 and unknown ids with 404', async () => {
      for (const body of [[1], 'text', { steps: 'x' }, { steps: [3] }, { id: 'mine' }, { transitions: [] }]) {
        expect((await t.request('POST', '/api/chat/goals', body)).status, JSON.stringify(body)).to.equal(400);
      }
      expect(
        (
          await t.request('POST', '/api/chat/goals', undefined, {
            raw: '{"title":"x","meta":{"constructor":{"prototype":1}}}',
          })
        ).status,
      ).to.equal(400);
      for (const [m, p] of [
        ['GET', '/api/chat/goals/nope'],
        ['PUT', '/api/chat/goals/nope'],
        ['DELETE', '/api/chat/goals/nope'],
        ['POST', '/api/chat/goals/nope/approve'],
      ] as const) {
        const r = await t.request(m, p, m === 'PUT' ? { title: 'x' } : undefined);
        expect(r.status, `${m} ${p}`).to.equal(404);
        expect(r.body.error).to.equal("Goal 'nope' not found");
      }
      expect((await t.request('POST', '/api/chat/goals/nope/complete', { summary: 3 })).status).to.equal(400);
    });
  });

  describe('goal templates', () => {
    it('creates, lists, gets, updates and deletes', async () => {
      const tp = await ok('POST', '/api/chat/goal-templates', {
        title: 'Release',
        description: 'Standard release',
        steps: [{ description: 'Tag' }],
      });
      expect(tp).to.include({ title: 'Release', status: 'active' });
      expect(await ok('GET', '/api/chat/goal-templates')).to.deep.equal({ templates: [tp] });
      expect(await ok('GET', `/api/chat/goal-templates/${tp.id}`)).to.deep.equal(tp);
      const u = await ok('PUT', `/api/chat/goal-templates/${tp.id}`, { description: 'Changed', status: 'archived' });
      expect(u).to.include({ title: 'Release', description: 'Changed', status: 'archived' });
      await ok('DELETE', `/api/chat/goal-templates/${tp.id}`);
      expect((await t.request('GET', `/api/chat/goal-templates/${tp.id}`)).status).to.equal(404);
      expect((await t.request('POST', '/api/chat/goal-templates', { status: 3 })).status).to.equal(400);
    });
  });

  describe('tasks', () => {
    it('computes next_run from cron, schedule, due_at or nothing', async () => {
      const cron = await ok('POST', '/api/chat/tasks', {
        name: 'digest',
        cron: '0 9 * * *',
        action: 'summarize',
        config: { n: 1 },
      });
      expect(cron).to.include({ status: 'active', next_run: '2026-01-01T09:00:00.000Z', run_count: 0, max_retries: 3 });
      const sched = await ok('POST', '/api/chat/tasks', {
        title: 'weekly',
        schedule: '@weekly',
        max_retries: 1,
        due_at: '2026-01-01T08:30:00Z',
      });
      expect(sched).to.include({ next_run: '2026-01-01T08:30:00.000Z', max_retries: 1 });
      const zoned = await ok('POST', '/api/chat/tasks', {
        name: 'ny',
        cron: '0 9 * * *',
        timezone: 'America/New_York',
      });
      expect(zoned.next_run).to.equal('2026-01-01T14:00:00.000Z');
      expect((await ok('POST', '/api/chat/tasks', { name: 'manual' })).next_run).to.equal(null);
      for (const body of [
        { cron: '99 * * * *' },
        { cron: 5 },
        { cron: '* * * * *', timezone: 'Nowhere/City' },
        { due_at: 'tomorrow' },
        { max_retries: -1 },
        { status: 'running' },
        { run_count: 4 },
      ]) {
        expect((await t.request('POST', '/api/chat/tasks', body)).status, JSON.stringify(body)).to.equal(400);
      }
    });

    it('lists due tasks on the manual clock (due wins over {id})', async () => {
      const a = await ok('POST', '/api/chat/tasks', { name: 'a', due_at: '2026-01-01T08:30:00Z' });
      const b = await ok('POST', '/api/chat/tasks', { name: 'b', cron: '0 9 * * *' });
      await ok('POST', '/api/chat/tasks', { name: 'manual' });
      const due = async (q = '') => (await ok('GET', `/api/chat/tasks/due${q}`)).tasks.map((x: any) => x.name);
      expect(await due()).to.deep.equal([]);
      expect(await due('?now=2026-01-01T08:30:00Z')).to.deep.equal(['a']);
      expect(await due(`?now=${Date.parse('2026-01-01T09:00:00Z')}`)).to.deep.equal(['a', 'b']);
      t.clock.set(Date.parse('2026-01-01T08:45:00Z'));
      expect(await due()).to.deep.equal(['a']);
      await ok('POST', `/api/chat/tasks/${b.id}/pause`);
      expect(await due('?now=2026-01-02T00:00:00Z')).to.deep.equal(['a']);
      expect((await t.request('GET', '/api/chat/tasks/due?now=yesterday')).status).to.equal(400);
      expect((await ok('GET', `/api/chat/tasks/${a.id}`)).name).to.equal('a');
    });

    it('runs: start, succeed to the next cron run, fail with retries, then failed; pause and resume', async () => {
      const task = await ok('POST', '/api/chat/tasks', {
        name: 'sync',
        cron: '0 * * * *',
        max_retries: 1,
        retry_delay_secs: 60,
      });
      expect((await ok('POST', `/api/chat/tasks/${task.id}/start`)).status).to.equal('running');
      t.clock.advance(10 * 60_000);
      const s = await ok('POST', `/api/chat/tasks/${task.id}/succeed`, { output: { synced: 4 } });
      expect(s).to.include({
        status: 'active',
        run_count: 1,
        success_count: 1,
        retry_count: 0,
        next_run: '2026-01-01T09:00:00.000Z',
        last_run_at: '2026-01-01T08:10:00.000Z',
      });
      expect(s.last_output).to.deep.equal({ synced: 4 });

      await ok('POST', `/api/chat/tasks/${task.id}/start`);
      const f1 = await ok('POST', `/api/chat/tasks/${task.id}/fail`, { error: 'timeout' });
      expect(f1).to.include({
        status: 'active',
        retry_count: 1,
        failure_count: 1,
        run_count: 2,
        last_error: 'timeout',
        next_run: '2026-01-01T08:11:00.000Z',
      });
      await ok('POST', `/api/chat/tasks/${task.id}/start`);
      const f2 = await ok('POST', `/api/chat/tasks/${task.id}/fail`, { error: 'again' });
      expect(f2).to.include({ status: 'failed', retry_count: 2, failure_count: 2, next_run: null });

      const refused = await t.request('POST', `/api/chat/tasks/${task.id}/start`);
      expect(refused.status).to.equal(409);
      expect(refused.body).to.include({ current_status: 'failed' });
      expect(refused.body.allowed_actions).to.deep.equal(['resume']);

      const resumed = await ok('POST', `/api/chat/tasks/${task.id}/resume`, {});
      expect(resumed).to.include({ status: 'active', retry_count: 0, next_run: '2026-01-01T09:00:00.000Z' });
      expect((await ok('POST', `/api/chat/tasks/${task.id}/pause`)).status).to.equal('paused');
      expect((await t.request('POST', `/api/chat/tasks/${task.id}/pause`)).status).to.equal(409);
      const at = await ok('POST', `/api/chat/tasks/${task.id}/resume`, { next_run: '2026-01-05T02:00:00+02:00' });
      expect(at).to.include({ status: 'active', next_run: '2026-01-05T00:00:00.000Z' });
      expect((await t.request('POST', `/api/chat/tasks/${task.id}/resume`)).status).to.equal(409);
      expect((await t.request('POST', `/api/chat/tasks/${task.id}/succeed`, { output: 1 })).status).to.equal(409);
      expect(at.transitions.map((x: any) => x.action)).to.deep.equal([
        'start',
        'succeed',
        'start',
        'fail',
        'start',
        'fail',
        'resume',
        'pause',
        'resume',
      ]);
    });

    it('takes a failure reported without a start, as the official Go example sends it after a resume', async () => {
      const task = await ok('POST', '/api/chat/tasks', { name: 'Flaky task', max_retries: 0 });
      await ok('POST', `/api/chat/tasks/${task.id}/start`);
      expect((await ok('POST', `/api/chat/tasks/${task.id}/pause`)).status).to.equal('paused');
      expect((await ok('POST', `/api/chat/tasks/${task.id}/resume`, {})).status).to.equal('active');
      const failed = await ok('POST', `/api/chat/tasks/${task.id}/fail`, { error: 'OOM killed' });
      expect(failed).to.include({ status: 'failed', failure_count: 1, last_error: 'OOM killed' });
      expect(failed.transitions.map((x: any) => `${x.from}>${x.to}`)).to.deep.equal([
        'active>running',
        'running>paused',
        'paused>active',
        'active>failed',
      ]);
    });

    it('lets one of two racing starts through and refuses the other with 409', async () => {
      const task = await ok('POST', '/api/chat/tasks', { name: 'race' });
      const replies = await Promise.all([1, 2].map(() => t.request('POST', `/api/chat/tasks/${task.id}/start`)));
      expect(replies.map((r) => r.status).sort()).to.deep.equal([200, 409]);
      expect((await ok('GET', `/api/chat/tasks/${task.id}`)).transitions).to.have.length(1);
    });

    it('completes a one-off task on success; updates reschedule it; deletes it', async () => {
      const task = await ok('POST', '/api/chat/tasks', { name: 'once', due_at: '2026-01-01T08:00:00Z' });
      await ok('POST', `/api/chat/tasks/${task.id}/start`);
      expect(await ok('POST', `/api/chat/tasks/${task.id}/succeed`, { output: 'ok' })).to.include({
        status: 'completed',
        next_run: null,
      });
      const u = await ok('PUT', `/api/chat/tasks/${task.id}`, { cron: '30 8 * * *', note: 'daily now' });
      expect(u).to.include({
        status: 'completed',
        next_run: '2026-01-01T08:30:00.000Z',
        note: 'daily now',
        name: 'once',
      });
      expect((await t.request('PUT', `/api/chat/tasks/${task.id}`, { status: 'active' })).status).to.equal(400);
      expect((await t.request('PUT', `/api/chat/tasks/${task.id}`, { cron: 'nope' })).status).to.equal(400);
      expect(
        (await ok('PUT', `/api/chat/tasks/${task.id}`, { next_run: '2026-01-02T10:00:00+01:00' })).next_run,
      ).to.equal('2026-01-02T09:00:00.000Z');
      expect((await ok('PUT', `/api/chat/tasks/${task.id}`, { due_at: '2026-03-01T00:00:00Z' })).next_run).to.equal(
        '2026-03-01T00:00:00.000Z',
      );
      expect((await ok('GET', '/api/chat/tasks')).tasks).to.have.length(1);
      await ok('DELETE', `/api/chat/tasks/${task.id}`);
      expect(await ok('GET', '/api/chat/tasks')).to.deep.equal({ tasks: [] });
    });
  });

  describe('agents', () => {
    it(
      'creates, lists, gets, finds by name and deployment, updates and deletes (by-name and by-deployment win over ' +
        '{id})',
      async () => {
        const a = await ok('POST', '/api/chat/agents', {
          name: 'scout',
          system_prompt: 'You scout.',
          model: 'gpt-4o',
          deployment_id: 'd1',
          capabilities: ['search'],
        });
        const b = await ok('POST', '/api/chat/agents', { name: 'by name', deployment_id: 'd1' });
        await ok('POST', '/api/chat/agents', { name: 'other', deployment_id: 'd2' });
        expect(a).to.include({ name: 'scout', status: 'active', deployment_id: 'd1' });
        expect((await ok('GET', '/api/chat/agents')).agents).to.have.length(3);
        expect(await ok('GET', `/api/chat/agents/${a.id}`)).to.deep.equal(a);
        expect(await ok('GET', '/api/chat/agents/by-name/scout')).to.deep.equal(a);
        expect((await ok('GET', '/api/chat/agents/by-name/by%20name')).id).to.equal(b.id);
        expect((await ok('GET', '/api/chat/agents/by-deployment/d1')).agents.map((x: any) => x.id)).to.deep.equal([
          a.id,
          b.id,
        ]);
        expect(await ok('GET', '/api/chat/agents/by-deployment/none')).to.deep.equal({ agents: [] });
        expect((await t.request('GET', '/api/chat/agents/by-name/ghost')).status).to.equal(404);

        expect((await t.request('POST', '/api/chat/agents', { name: 'scout' })).status).to.equal(409);
        expect((await t.request('PUT', `/api/chat/agents/${b.id}`, { name: 'scout' })).status).to.equal(409);
        for (const body of [{}, { name: '' }, { name: 3 }, { name: 'x', status: 1 }]) {
          expect((await t.request('POST', '/api/chat/agents', body)).status, JSON.stringify(body)).to.equal(400);
        }
        const u = await ok('PUT', `/api/chat/agents/${a.id}`, { name: 'scout-2', status: 'disabled' });
        expect(u).to.include({ name: 'scout-2', status: 'disabled', system_prompt: 'You scout.' });
        expect((await ok('GET', '/api/chat/agents/by-name/scout-2')).id).to.equal(a.id);
        await ok('DELETE', `/api/chat/agents/${a.id}`);
        expect((await t.request('GET', `/api/chat/agents/${a.id}`)).status).to.equal(404);
      },
    );

    it('concurrent creates of one name make one agent', async () => {
      const replies = await Promise.all([1, 2, 3].map(() => t.request('POST', '/api/chat/agents', { name: 'twin' })));
      expect(replies.map((r) => r.status).sort()).to.deep.equal([200, 409, 409]);
    });

    it("gives a chat session the agent's system prompt, model and provider unless the request overrides them", async () => {
      const agent = await ok('POST', '/api/chat/agents', {
        name: 'helper',
        system_prompt: 'Answer in French.',
        model: 'local-fr',
        provider: 'local',
      });
      const fromAgent = await ok('POST', '/api/chat', { collections: [], agent_id: agent.id });
      const s1 = (await ok('GET', `/api/chat/${fromAgent.chat_id}`)).session;
      expect(s1).to.include({
        system_prompt: 'Answer in French.',
        llm_model: 'local-fr',
        llm_provider: 'local',
        agent_id: agent.id,
      });

      const overridden = await ok('POST', '/api/chat', {
        collections: [],
        agent_id: agent.id,
        llm_provider: 'local',
        system_prompt: 'Answer in German.',
      });
      const s2 = (await ok('GET', `/api/chat/${overridden.chat_id}`)).session;
      expect(s2).to.include({ system_prompt: 'Answer in German.', llm_model: 'local-fr', agent_id: agent.id });

      const sent = await ok('POST', `/api/chat/${fromAgent.chat_id}/messages`, { message: 'Bonjour?' });
      expect(sent.responses).to.have.length(1);

      const missing = await t.request('POST', '/api/chat', {
        collections: [],
        agent_id: 'ghost',
        llm_provider: 'local',
      });
      expect(missing.status).to.equal(404);
      expect(missing.body.error).to.equal("Agent 'ghost' not found");

      // A non-admin key cannot manage agents, but its sessions may use one.
      const user = await t.userToken();
      const made = await t.request('POST', '/api/chat', { collections: [], agent_id: agent.id }, { token: user });
      expect(made.status).to.equal(200);
    });
  });

  describe('access and durability', () => {
    it('is admin-only, routes and records alike', async () => {
      const user = await t.userToken();
      for (const [m, p] of [
        ['GET', '/api/chat/goals'],
        ['POST', '/api/chat/tasks'],
        ['GET', '/api/chat/agents/by-name/x'],
        ['GET', '/api/chat/goal-templates'],
      ] as const) {
        expect((await t.request(m, p, m === 'POST' ? {} : undefined, { token: user })).status, `${m} ${p}`).to.equal(
          403,
        );
      }
      await ok('POST', '/api/chat/goals', { title: 'secret' });
      expect((await t.request('POST', '/api/find/__chat_goals', {}, { token: user })).status).to.equal(403);
      expect(
        (await t.request('POST', '/api/insert/__chat_tasks', { document: '{}' }, { token: user })).status,
      ).to.equal(403);
      const asAdmin = await t.request('POST', '/api/find/__chat_goals', {});
      expect(asAdmin.status).to.equal(200);
      expect(asAdmin.body).to.have.length(1);
    });

    it('survives a restart with every lifecycle state', async () => {
      const g = await ok('POST', '/api/chat/goals', { title: 'G' });
      await ok('POST', `/api/chat/goals/${g.id}/approve`);
      const task = await ok('POST', '/api/chat/tasks', { name: 'x', cron: '0 9 * * *' });
      await ok('POST', `/api/chat/tasks/${task.id}/pause`);
      const agent = await ok('POST', '/api/chat/agents', { name: 'keeper' });
      const dataDir = t.dataDir;
      await t.stop({ keepData: true });
      t = await TestServer.start({ dataDir });
      try {
        expect((await ok('GET', `/api/chat/goals/${g.id}`)).status).to.equal('in_progress');
        expect((await ok('GET', `/api/chat/tasks/${task.id}`)).status).to.equal('paused');
        expect((await ok('GET', '/api/chat/agents/by-name/keeper')).id).to.equal(agent.id);
      } finally {
        await t.stop();
        t = await TestServer.start();
      }
    });
  });
});
