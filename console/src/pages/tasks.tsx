/**
 * Tasks: the list by status with the next run, a form for a new task (one-off, due at a time, or on a cron), and a
 * task's page with its counters and the lifecycle moves a worker reports (start, succeed, fail, pause, resume).
 */
import { useState } from 'preact/hooks';
import { api, enc } from '../api.js';
import { ConfirmButton, ErrorBox, Loading } from '../components.js';
import { useApi } from '../hooks.js';
import { navigate } from '../router.js';
import {
  ActionButton,
  AdminOnlyNote,
  Crumbs,
  jsonOrText,
  Pager,
  pageOf,
  PromptButton,
  RecordJson,
  setQuery,
  StatusBadge,
  StatusFilter,
  text,
  Time,
  titleOf,
  Transitions,
  useActions,
  useWorkflowAccess,
  WorkflowTabs,
  type WorkflowRecord,
} from './workflow-parts.js';
import { allows, notAllowedReason, statesOf, TASK_LIFECYCLE } from './workflow-lifecycles.js';

/** When a task runs: its cron (and zone), else "by hand". */
function cadence(t: WorkflowRecord): string {
  const cron = typeof t.cron === 'string' ? t.cron : typeof t.schedule === 'string' ? t.schedule : undefined;
  if (cron) return typeof t.timezone === 'string' ? `${cron} (${t.timezone})` : cron;
  return typeof t.due_at === 'string' ? 'once' : 'by hand';
}

export function TasksList({ query }: { query: URLSearchParams }) {
  const { admin, reason } = useWorkflowAccess();
  const dueOnly = query.get('due') === '1';
  const list = useApi<{ tasks: WorkflowRecord[] }>(
    admin ? (dueOnly ? '/api/chat/tasks/due' : '/api/chat/tasks') : null,
  );
  const path = '/workflow/tasks';
  const all = list.data?.tasks;
  const shown = all && pageOf(all, query);
  return (
    <main id="main">
      <h1>Tasks</h1>
      <WorkflowTabs current="tasks" />
      <AdminOnlyNote admin={admin} />
      <div class="wf-toolbar">
        <div class="row">
          <StatusFilter path={path} query={query} states={statesOf(TASK_LIFECYCLE)} />
          <label class="wf-check">
            <input
              type="checkbox"
              checked={dueOnly}
              onChange={(e) => setQuery(path, query, { due: e.currentTarget.checked ? '1' : '', page: '' })}
            />
            Due now only (active, next run passed; soonest first)
          </label>
        </div>
        {admin ? (
          <a class="wf-button" href="/workflow/tasks/new">
            New task
          </a>
        ) : (
          <button type="button" disabled title={reason}>
            New task
          </button>
        )}
      </div>
      <ErrorBox error={list.error} />
      {admin && list.loading && !all && <Loading what="tasks" />}
      {shown && shown.matching === 0 && (
        <p class="muted">
          {all!.length ? 'No task has this status.' : dueOnly ? 'No task is due now.' : 'No tasks yet.'}
        </p>
      )}
      {shown && shown.matching > 0 && (
        <>
          <div class="scroll" role="region" aria-label="Tasks" tabIndex={0}>
            <table class="data">
              <thead>
                <tr>
                  <th scope="col">Task</th>
                  <th scope="col">Status</th>
                  <th scope="col">Runs</th>
                  <th scope="col">Due (next run)</th>
                  <th scope="col" class="num">
                    Run count
                  </th>
                </tr>
              </thead>
              <tbody>
                {shown.rows.map((t) => (
                  <tr key={t.id} data-id={t.id}>
                    <td>
                      <a href={`/workflow/tasks/${enc(t.id)}`}>{titleOf(t)}</a>
                    </td>
                    <td>
                      <StatusBadge status={t.status} />
                    </td>
                    <td>
                      <code>{cadence(t)}</code>
                    </td>
                    <td>
                      <Time iso={t.next_run} />
                    </td>
                    <td class="num">{typeof t.run_count === 'number' ? t.run_count : 0}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager path={path} query={query} {...shown} noun="tasks" />
        </>
      )}
    </main>
  );
}

export function NewTask() {
  const { admin, reason } = useWorkflowAccess();
  const [form, setForm] = useState({ title: '', description: '', cron: '', timezone: '', due: '', retries: '' });
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const field = (name: keyof typeof form) => ({
    id: `task-${name}`,
    value: form[name],
    onInput: (e: { currentTarget: { value: string } }) => setForm({ ...form, [name]: e.currentTarget.value }),
  });
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const body: Record<string, unknown> = { title: form.title.trim() };
    if (form.description.trim()) body.description = form.description.trim();
    if (form.cron.trim()) body.cron = form.cron.trim();
    if (form.timezone.trim()) body.timezone = form.timezone.trim();
    // datetime-local is the browser's wall clock; the server wants an instant.
    if (form.due) body.due_at = new Date(form.due).toISOString();
    if (form.retries !== '') body.max_retries = Number(form.retries);
    try {
      const task = await api<WorkflowRecord>('POST', '/api/chat/tasks', body);
      navigate(`/workflow/tasks/${enc(task.id)}`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main">
      <Crumbs tab="tasks" here="New task" />
      <h1>New task</h1>
      <AdminOnlyNote admin={admin} />
      <form class="card wf-form" onSubmit={(e) => void submit(e)}>
        <label for="task-title">Title</label>
        <input required {...field('title')} />
        <label for="task-description">Description</label>
        <textarea rows={3} {...field('description')} />
        <label for="task-cron">Cron (optional: five fields, or six with seconds first)</label>
        <input placeholder="0 9 * * MON-FRI" {...field('cron')} />
        <label for="task-timezone">Time zone of the cron (IANA; UTC when empty)</label>
        <input placeholder="Europe/London" {...field('timezone')} />
        <label for="task-due">First run at (optional; your browser’s time)</label>
        <input type="datetime-local" {...field('due')} />
        <label for="task-retries">Retries after a failure (default 3)</label>
        <input type="number" min={0} step={1} {...field('retries')} />
        <p class="muted small">With neither a cron nor a first run, the task runs by hand only.</p>
        <ErrorBox error={error} />
        <div class="actions">
          <button type="submit" disabled={!admin || busy || !form.title.trim()} title={reason}>
            Create task
          </button>
          <a href="/workflow/tasks">Cancel</a>
        </div>
      </form>
    </main>
  );
}

export function TaskView({ id }: { id: string }) {
  const { admin, reason } = useWorkflowAccess();
  const task = useApi<WorkflowRecord>(admin ? `/api/chat/tasks/${enc(id)}` : null);
  const { error, act } = useActions(() => task.reload());
  const t = task.data;
  const base = `/api/chat/tasks/${enc(id)}`;
  const why = (action: string) =>
    reason ??
    (t && !allows(TASK_LIFECYCLE, t.status, action) ? notAllowedReason(TASK_LIFECYCLE, t.status, 'task') : '');
  const button = (action: string) => ({ disabled: !!why(action), title: why(action) || undefined });
  const count = (m: string) => (typeof t?.[m] === 'number' ? (t[m] as number) : 0);
  return (
    <main id="main">
      <Crumbs tab="tasks" here={t ? titleOf(t) : id} />
      <h1>{t ? titleOf(t) : 'Task'}</h1>
      <AdminOnlyNote admin={admin} />
      <ErrorBox error={task.error} />
      {admin && !t && !task.error && <Loading what="the task" />}
      {t && (
        <>
          <section class="card" aria-labelledby="task-facts">
            <h2 id="task-facts" class="small">
              Task
            </h2>
            <dl class="facts">
              <dt>Status</dt>
              <dd data-testid="task-status">
                <StatusBadge status={t.status} />
              </dd>
              {typeof t.description === 'string' && (
                <>
                  <dt>Description</dt>
                  <dd>{t.description}</dd>
                </>
              )}
              <dt>Runs</dt>
              <dd>
                <code>{cadence(t)}</code>
              </dd>
              <dt>Next run</dt>
              <dd>
                <Time iso={t.next_run} />
              </dd>
              <dt>Runs so far</dt>
              <dd data-testid="task-counts">
                {count('run_count')} ({count('success_count')} succeeded, {count('failure_count')} failed)
              </dd>
              <dt>Retries</dt>
              <dd>
                {count('retry_count')} of {typeof t.max_retries === 'number' ? t.max_retries : 3}
              </dd>
              <dt>Last started</dt>
              <dd>
                <Time iso={t.last_started_at} />
              </dd>
              <dt>Last run</dt>
              <dd>
                <Time iso={t.last_run_at} />
              </dd>
              {t.last_output !== undefined && t.last_output !== null && (
                <>
                  <dt>Last output</dt>
                  <dd>
                    <code>{text(t.last_output)}</code>
                  </dd>
                </>
              )}
              {t.last_error !== undefined && t.last_error !== null && (
                <>
                  <dt>Last error</dt>
                  <dd class="wf-error-text">{text(t.last_error)}</dd>
                </>
              )}
            </dl>
          </section>
          <ErrorBox error={error} />
          <div class="actions wf-actions">
            <ActionButton
              label="Start"
              secondary={false}
              {...button('start')}
              onClick={() => act('POST', `${base}/start`)}
            />
            <PromptButton
              label="Succeed"
              field="Output (JSON or text)"
              {...button('succeed')}
              onSubmit={(v) => act('POST', `${base}/succeed`, v ? { output: jsonOrText(v) } : {})}
            />
            <PromptButton
              label="Fail"
              field="Error (JSON or text)"
              {...button('fail')}
              onSubmit={(v) => act('POST', `${base}/fail`, v ? { error: jsonOrText(v) } : {})}
              hint="The task retries while it has retries left, else it fails."
            />
            <ActionButton label="Pause" {...button('pause')} onClick={() => act('POST', `${base}/pause`)} />
            <ActionButton label="Resume" {...button('resume')} onClick={() => act('POST', `${base}/resume`, {})} />
            <ConfirmButton
              label="Delete"
              question={`Delete the task “${titleOf(t)}”? This cannot be undone.`}
              disabled={!admin}
              title={reason}
              onConfirm={async () => {
                if ((await act('DELETE', base)) !== undefined) navigate('/workflow/tasks');
              }}
            />
          </div>
          <section aria-labelledby="task-moves">
            <h2 id="task-moves">History</h2>
            <Transitions list={t.transitions} />
          </section>
          <RecordJson record={t} label="The task as JSON" />
        </>
      )}
    </main>
  );
}
