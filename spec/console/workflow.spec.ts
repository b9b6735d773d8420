/**
 * The console's workflow pages in headless Chromium: a goal planned, approved, its steps done and its review
 * approved; a task moved through its lifecycle; an agent created and edited as JSON; a schedule created in the form
 * that fires (the server's clock is moved and its scheduler ticked by hand) with its runs in the history, paused and
 * resumed; and what a restricted key sees, since every workflow route is admin-only.
 */
import { expect } from 'chai';
import { consoleHarness } from '../helpers/console-browser.js';

describe('browser console: workflow', function () {
  this.timeout(30_000);
  const h = consoleHarness({
    server: { schedulerTickMs: 0, schedulerStopGraceMs: 50 },
    seed: async (t) => {
      await t.saveFunction({ label: 'beat', functions: [{ type: 'Insert', collection: 'beats', record: { n: 1 } }] });
    },
  });
  const page = () => h.page;
  const button = (name: string) => h.page.getByRole('button', { name, exact: true });
  /** Opens an action's dialog, types the text it asks for and submits it. */
  const prompt = async (name: string, value: string) => {
    await button(name).click();
    const dialog = h.page.locator(`dialog[open][aria-label="${name}"]`);
    await dialog.locator('input').fill(value);
    await dialog.locator('button[type="submit"]').click();
    await dialog.waitFor({ state: 'hidden' });
  };
  const status = (testId: string, value: string) =>
    h.page.locator(`[data-testid="${testId}"] [data-status="${value}"]`).waitFor();
  /** Moves the server's clock, fires what is due and waits for the runs to end. */
  const fire = async (secs: number) => {
    h.t.clock.advance(secs * 1000);
    await h.t.server.scheduler.tick();
    await h.t.server.scheduler.idle();
  };

  it('shows the empty workflow section and its tabs', async () => {
    await page().click('nav.sections a[href="/workflow"]');
    await page().locator('[data-testid="goals-count"]', { hasText: '0' }).waitFor();
    await page().locator('[data-testid="schedules-count"]', { hasText: '0' }).waitFor();
    await page().click('.wf-tabs a[href="/workflow/goals"]');
    await page().getByText('No goals yet').waitFor();
  });

  it('creates a goal with steps, approves it, does its steps and approves its review', async () => {
    await page().click('a[href="/workflow/goals/new"]');
    await page().fill('#goal-title', 'Ship the console');
    await page().fill('#goal-description', 'Pages for every part of the server');
    await page().fill('#goal-steps', 'Write the pages\nTest them in Chromium\n');
    await shot('workflow-goal-new');
    await button('Create goal').click();
    await status('goal-status', 'pending');
    expect(page().url()).to.match(/\/workflow\/goals\/[^/]+$/);
    // A pending goal's steps may move, but its review may not be approved before it is completed.
    await button('Approve').click();
    await status('goal-status', 'in_progress');
    expect(await button('Approve').isDisabled()).to.equal(true);
    expect(await button('Approve').getAttribute('title')).to.match(/in progress.*only complete, reject/);
    await button('Start step 1').click();
    await page().locator('li[data-step="0"] [data-status="in_progress"]').waitFor();
    await prompt('Complete step 1', 'all pages written');
    await page().locator('li[data-step="0"] [data-status="completed"]').waitFor();
    expect(await button('Complete step 1').getAttribute('title')).to.equal(
      'Not while the step is completed: it allows nothing more',
    );
    await prompt('Complete step 2', '{"passed": 7}');
    await page().locator('li[data-step="1"] [data-status="completed"]').waitFor();
    expect(await page().locator('li[data-step="1"]').textContent()).to.include('{"passed":7}');
    await prompt('Complete', 'both steps done');
    await status('goal-status', 'pending_review');
    await page().getByText('steps move only while it is pending or in progress').waitFor();
    expect(await button('Start step 1').count()).to.equal(0);
    await button('Approve').click();
    await status('goal-status', 'completed');
    await shot('workflow-goal');
    await page().click('.crumbs a[href="/workflow/goals"]');
    await page().locator('tr', { hasText: 'Ship the console' }).locator('[data-status="completed"]').waitFor();
    await page().selectOption('#status-filter', 'failed');
    await page().getByText('No goal has this status').waitFor();
    expect(page().url()).to.include('status=failed');
  });

  it('creates a task and moves it through its lifecycle', async () => {
    await page().goto(`${h.t.url}/workflow/tasks/new`);
    await page().fill('#task-title', 'Reindex the catalogue');
    await page().fill('#task-retries', '1');
    await button('Create task').click();
    await status('task-status', 'active');
    expect(await button('Succeed').isDisabled()).to.equal(true);
    await button('Start').click();
    await status('task-status', 'running');
    await button('Fail').click();
    await page().locator('dialog[open] input').fill('disk full');
    await shot('workflow-task-fail-dialog');
    await page().locator('dialog[open] button[type="submit"]').click();
    await status('task-status', 'active'); // a retry: one failure of at most one
    expect(await page().locator('dd.wf-error-text').textContent()).to.equal('disk full');
    await button('Start').click();
    await status('task-status', 'running');
    await prompt('Succeed', '{"indexed": 1200}');
    await status('task-status', 'completed'); // a one-off is done
    await button('Resume').click();
    await status('task-status', 'active');
    await button('Pause').click();
    await status('task-status', 'paused');
    expect(await button('Start').getAttribute('title')).to.match(/paused: it allows only resume/);
    await button('Resume').click();
    await status('task-status', 'active');
    expect(await page().locator('[data-testid="task-counts"]').textContent()).to.equal('2 (1 succeeded, 1 failed)');
    await shot('workflow-task');
    await page().click('.crumbs a[href="/workflow/tasks"]');
    await page().locator('tr', { hasText: 'Reindex the catalogue' }).locator('[data-status="active"]').waitFor();
    await page().check('text=Due now only');
    await page().locator('tr', { hasText: 'Reindex the catalogue' }).waitFor(); // resumed: due at once
    expect(page().url()).to.include('due=1');
    const later = await h.t.request('POST', '/api/chat/tasks', { title: 'Next year', due_at: '2099-01-01T00:00:00Z' });
    expect(later.status).to.equal(200);
    await page().reload();
    await page().locator('tr', { hasText: 'Reindex the catalogue' }).waitFor();
    expect(await page().locator('tr', { hasText: 'Next year' }).count()).to.equal(0);
    await page().goto(`${h.t.url}/workflow/tasks/${later.body.id as string}`);
    await button('Delete').click();
    await page().locator('dialog[open] button.danger').click();
    await page().waitForURL(/\/workflow\/tasks$/);
    await page().locator('tr', { hasText: 'Reindex the catalogue' }).waitFor();
    expect(await page().locator('tr', { hasText: 'Next year' }).count()).to.equal(0);
    expect((await h.t.request('GET', `/api/chat/tasks/${later.body.id as string}`)).status).to.equal(404);
    await shot('workflow-tasks');
  });

  it('creates an agent and edits its definition as JSON', async () => {
    await page().goto(`${h.t.url}/workflow/agents/new`);
    await page().fill('#agent-name', 'librarian');
    await page().fill('#agent-model', 'local-echo');
    await page().fill('#agent-provider', 'local');
    await page().fill('#agent-prompt', 'You answer from the catalogue.');
    await button('Create agent').click();
    await page().locator('h1', { hasText: 'Agent librarian' }).waitFor();
    const editor = page().locator('#agent-definition');
    const definition = JSON.parse(await editor.inputValue()) as Record<string, unknown>;
    await editor.fill(JSON.stringify({ ...definition, capabilities: ['search'] }, null, 2));
    await button('Save agent').click();
    await page().getByRole('status').filter({ hasText: 'Saved' }).waitFor();
    const saved = await h.t.request('GET', '/api/chat/agents/by-name/librarian');
    expect(saved.body).to.include({ model: 'local-echo', provider: 'local' });
    expect(saved.body.capabilities).to.deep.equal(['search']);
    await shot('workflow-agent');
    await editor.fill('{"name": ');
    expect(await button('Save agent').isDisabled()).to.equal(true);
    await page().getByText('Not JSON').waitFor();
    await page().click('.crumbs a[href="/workflow/agents"]');
    await page().locator('tr', { hasText: 'librarian' }).waitFor();
    await shot('workflow-agents');
  });

  it('creates a schedule that fires, shows its runs, and pauses and resumes it', async () => {
    const missing = await h.t.request('POST', '/api/schedules', {
      name: 'orphan',
      cron: '* * * * * *',
      function_label: 'not-there',
    });
    expect(missing.status).to.equal(200);
    await page().goto(`${h.t.url}/workflow/schedules/new`);
    await page().fill('#schedule-name', 'heartbeat');
    await page().fill('#schedule-cron', '*/2 * * * * *');
    await page().fill('#schedule-label', 'beat');
    await button('Create schedule').click();
    await status('schedule-status', 'active');
    await page().getByText('No runs yet').waitFor();
    await fire(2);
    await button('Refresh runs').click();
    await page().locator('[data-testid="runs"] tr[data-run="success"]').waitFor();
    await page().locator('[data-testid="schedule-counts"]', { hasText: '1 (1 succeeded' }).waitFor();
    expect((await h.t.request('POST', '/api/find/beats', {})).body).to.have.length(1);
    await button('Pause').click();
    await status('schedule-status', 'paused');
    expect(await page().locator('[data-testid="next-run"]').textContent()).to.equal('—');
    await fire(2); // paused: no run
    await button('Refresh runs').click();
    await button('Resume').click();
    await status('schedule-status', 'active');
    await fire(2);
    await button('Refresh runs').click();
    await page().locator('[data-testid="runs"] tr[data-run="success"]').nth(1).waitFor();
    expect(await page().locator('[data-testid="runs"] tbody tr').count()).to.equal(2);
    await shot('workflow-schedule');

    // The failed run is recorded by the scheduler on its own write: wait for the server to hold it, then look.
    const runsOf = `/api/schedules/${missing.body.id as string}/runs`;
    for (let i = 0; i < 100 && !JSON.stringify((await h.t.request('GET', runsOf)).body).includes('fail'); i++)
      await new Promise((r) => setTimeout(r, 50));
    await page().goto(`${h.t.url}/workflow/schedules/${missing.body.id as string}`);
    const failed = page().locator('[data-testid="runs"] tr[data-run="failure"]').first();
    await failed.waitFor();
    expect(await failed.textContent()).to.match(/not-there/);
    await shot('workflow-schedule-failures');
    await page().click('.crumbs a[href="/workflow/schedules"]');
    await page().locator('tr', { hasText: 'heartbeat' }).locator('[data-status="active"]').waitFor();
    await shot('workflow-schedules');
    await page().click('nav.sections a[href="/workflow"]');
    await page().locator('[data-testid="schedules-count"]', { hasText: '2' }).waitFor();
    await shot('workflow');
  });

  it('works at phone width', async () => {
    await page().setViewportSize({ width: 390, height: 800 });
    await page().click('.wf-tabs a[href="/workflow/goals"]');
    await page().click('a:has-text("Ship the console")');
    await status('goal-status', 'completed');
    await shot('workflow-goal-phone');
    await page().goto(`${h.t.url}/workflow/schedules`);
    await page().locator('tr', { hasText: 'heartbeat' }).waitFor();
    await shot('workflow-schedules-phone');
    await page().setViewportSize({ width: 1100, height: 760 });
  });

  it('shows a restricted key why it may not use the workflow', async () => {
    const created = await h.t.request('POST', '/api/auth/keys', {
      name: 'reader',
      collection_permissions: { '*': { read: true, write: false } },
    });
    expect(created.status).to.equal(201);
    await h.signIn(created.body.key as string);
    await page().goto(`${h.t.url}/workflow/schedules`);
    await page().locator('[data-testid="admin-only"]').waitFor();
    expect(await button('New schedule').isDisabled()).to.equal(true);
    expect(await button('New schedule').getAttribute('title')).to.match(/Only an admin key/);
    await page().goto(`${h.t.url}/workflow/tasks/new`);
    await page().locator('[data-testid="admin-only"]').waitFor();
    expect(await button('Create task').getAttribute('title')).to.match(/Only an admin key/);
    await shot('workflow-restricted');
  });

  async function shot(name: string) {
    await h.shot(name);
  }
});
