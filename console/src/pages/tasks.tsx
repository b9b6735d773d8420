/**
 * Tasks: the list by status with the next run, a form for a new task (one-off, due at a time, or on a cron), and a
 * task's page with its counters and the lifecycle moves a worker reports (start, succeed, fail, pause, resume).
 */
import {
  ActionButton,
  count,
  Fact,
  jsonOrText,
  NewRecordForm,
  PromptButton,
  RecordActions,
  RecordFrame,
  setQuery,
  text,
  Time,
  TimeFact,
  titleOf,
  useFields,
  useRecordPage,
  type WorkflowRecord,
} from './workflow-parts.js';
import { nameColumn, STATUS_COLUMN, WorkflowListPage } from './workflow-list.js';
import { statesOf, TASK_LIFECYCLE } from './workflow-lifecycles.js';

/** When a task runs: its cron (and zone), else "by hand". */
function cadence(t: WorkflowRecord): string {
  const cron = typeof t.cron === 'string' ? t.cron : typeof t.schedule === 'string' ? t.schedule : undefined;
  if (cron) return typeof t.timezone === 'string' ? `${cron} (${t.timezone})` : cron;
  return typeof t.due_at === 'string' ? 'once' : 'by hand';
}

export function TasksList({ query }: { query: URLSearchParams }) {
  const path = '/workflow/tasks';
  const dueOnly = query.get('due') === '1';
  return (
    <WorkflowListPage
      tab="tasks"
      source={dueOnly ? '/api/chat/tasks/due' : undefined}
      query={query}
      states={statesOf(TASK_LIFECYCLE)}
      filters={
        <label class="wf-check">
          <input
            type="checkbox"
            checked={dueOnly}
            onChange={(e) => setQuery(path, query, { due: e.currentTarget.checked ? '1' : '', page: '' })}
          />
          Due now only (active, next run passed; soonest first)
        </label>
      }
      empty={dueOnly ? 'No task is due now.' : 'No tasks yet.'}
      columns={[
        nameColumn('tasks', 'Task'),
        STATUS_COLUMN,
        { label: 'Runs', cell: (t) => <code>{cadence(t)}</code> },
        { label: 'Due (next run)', cell: (t) => <Time iso={t.next_run} /> },
        { label: 'Run count', num: true, cell: (t) => count(t, 'run_count') },
      ]}
    />
  );
}

export function NewTask() {
  const { form, field } = useFields('task', {
    title: '',
    description: '',
    cron: '',
    timezone: '',
    due: '',
    retries: '',
  });
  const body = () => {
    const body: Record<string, unknown> = { title: form.title.trim() };
    if (form.description.trim()) body.description = form.description.trim();
    if (form.cron.trim()) body.cron = form.cron.trim();
    if (form.timezone.trim()) body.timezone = form.timezone.trim();
    // datetime-local is the browser's wall clock; the server wants an instant.
    if (form.due) body.due_at = new Date(form.due).toISOString();
    if (form.retries !== '') body.max_retries = Number(form.retries);
    return body;
  };
  return (
    <NewRecordForm tab="tasks" body={body} ready={!!form.title.trim()}>
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
    </NewRecordForm>
  );
}

export function TaskView({ id }: { id: string }) {
  const page = useRecordPage('tasks', id, TASK_LIFECYCLE);
  const { base, act, gate } = page;
  return (
    <RecordFrame
      page={page}
      history="History"
      facts={(t) => (
        <>
          {typeof t.description === 'string' && <Fact term="Description">{t.description}</Fact>}
          <Fact term="Runs">
            <code>{cadence(t)}</code>
          </Fact>
          <TimeFact term="Next run" iso={t.next_run} />
          <Fact term="Runs so far" testid="task-counts">
            {count(t, 'run_count')} ({count(t, 'success_count')} succeeded, {count(t, 'failure_count')} failed)
          </Fact>
          <Fact term="Retries">
            {count(t, 'retry_count')} of {typeof t.max_retries === 'number' ? t.max_retries : 3}
          </Fact>
          <TimeFact term="Last started" iso={t.last_started_at} />
          <TimeFact term="Last run" iso={t.last_run_at} />
          {t.last_output !== undefined && t.last_output !== null && (
            <Fact term="Last output">
              <code>{text(t.last_output)}</code>
            </Fact>
          )}
          {t.last_error !== undefined && t.last_error !== null && (
            <Fact term="Last error" class="wf-error-text">
              {text(t.last_error)}
            </Fact>
          )}
        </>
      )}
    >
      {(t) => (
        <RecordActions page={page} question={`Delete the task “${titleOf(t)}”? This cannot be undone.`}>
          <ActionButton
            label="Start"
            secondary={false}
            {...gate('start')}
            onClick={() => act('POST', `${base}/start`)}
          />
          <PromptButton
            label="Succeed"
            field="Output (JSON or text)"
            {...gate('succeed')}
            onSubmit={(v) => act('POST', `${base}/succeed`, v ? { output: jsonOrText(v) } : {})}
          />
          <PromptButton
            label="Fail"
            field="Error (JSON or text)"
            {...gate('fail')}
            onSubmit={(v) => act('POST', `${base}/fail`, v ? { error: jsonOrText(v) } : {})}
            hint="The task retries while it has retries left, else it fails."
          />
          <ActionButton label="Pause" {...gate('pause')} onClick={() => act('POST', `${base}/pause`)} />
          <ActionButton label="Resume" {...gate('resume')} onClick={() => act('POST', `${base}/resume`, {})} />
        </RecordActions>
      )}
    </RecordFrame>
  );
}
