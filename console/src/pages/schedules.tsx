/**
 * Schedules, which the server fires itself: the list with each cron, next run and whether it is paused, a form for
 * a new schedule (a stored function or an HTTP request on a cron), and a schedule's page with pause, resume,
 * delete and its run history.
 */
import { useState } from 'preact/hooks';
import { enc } from '../api.js';
import { JsonEditor, jsonProblem } from '../components.js';
import { ScheduleRuns } from './schedule-runs.js';
import {
  ActionButton,
  count,
  Dash,
  Fact,
  NewRecordForm,
  RecordActions,
  RecordFrame,
  StatusBadge,
  text,
  Time,
  TimeFact,
  titleOf,
  useFields,
  useRecordPage,
  useWorkflowAccess,
  type WorkflowRecord,
} from './workflow-parts.js';
import { nameColumn, STATUS_COLUMN, WorkflowListPage } from './workflow-list.js';
import { SCHEDULE_LIFECYCLE, statesOf } from './workflow-lifecycles.js';

/** What a schedule does, in short, from any client's spelling of its action. */
export function actionSummary(s: WorkflowRecord): string {
  for (const m of ['function_label', 'functionName', 'scriptName'])
    if (typeof s[m] === 'string') return `function ${s[m] as string}`;
  const action = s.action;
  if (typeof action === 'string') return `function ${action}`;
  if (action && typeof action === 'object') {
    const a = action as Record<string, unknown>;
    if (a.type === 'http') return `${typeof a.method === 'string' ? a.method.toUpperCase() : 'GET'} ${text(a.url)}`;
    if (a.type === 'function') return `function ${text(a.function_label)}`;
  }
  return '—';
}

const cronText = (s: WorkflowRecord) =>
  typeof s.timezone === 'string' && s.timezone ? `${text(s.cron)} (${s.timezone})` : text(s.cron);

export function SchedulesList({ query }: { query: URLSearchParams }) {
  return (
    <WorkflowListPage
      tab="schedules"
      query={query}
      states={statesOf(SCHEDULE_LIFECYCLE)}
      tools={(reload) => <RefreshButton reload={reload} />}
      columns={[
        nameColumn('schedules', 'Schedule'),
        STATUS_COLUMN,
        { label: 'Next run', cell: (s) => <Time iso={s.next_run} /> },
        { label: 'Cron', cell: (s) => <code>{cronText(s)}</code> },
        { label: 'Action', cell: actionSummary },
        { label: 'Last outcome', cell: (s) => (s.last_outcome ? <StatusBadge status={s.last_outcome} /> : <Dash />) },
        { label: 'Runs', num: true, cell: (s) => count(s, 'run_count') },
      ]}
    />
  );
}

function RefreshButton({ reload }: { reload: () => void }) {
  const { admin, reason } = useWorkflowAccess();
  return (
    <button type="button" class="secondary" disabled={!admin} title={reason} onClick={reload}>
      Refresh
    </button>
  );
}

export function NewSchedule() {
  const { form, set, field } = useFields('schedule', {
    name: '',
    cron: '',
    timezone: '',
    kind: 'function',
    label: '',
    url: '',
    method: 'GET',
    missed: 'skip',
  });
  const [params, setParams] = useState('{}');
  const [paused, setPaused] = useState(false);
  /** A select's field, also set on change. */
  const choice = (name: keyof typeof form) => ({
    ...field(name),
    onChange: (e: { currentTarget: { value: string } }) => set(name, e.currentTarget.value),
  });
  const body = () => {
    const body: Record<string, unknown> = { name: form.name.trim(), cron: form.cron.trim(), missed_runs: form.missed };
    if (form.timezone.trim()) body.timezone = form.timezone.trim();
    if (form.kind === 'function') {
      body.function_label = form.label.trim();
      body.parameters = JSON.parse(params) as unknown;
    } else body.action = { type: 'http', url: form.url.trim(), method: form.method };
    if (paused) body.status = 'paused';
    return body;
  };
  const ready =
    !!form.name.trim() &&
    !!form.cron.trim() &&
    (form.kind === 'function' ? !!form.label.trim() && jsonProblem(params) === undefined : !!form.url.trim());
  return (
    <NewRecordForm tab="schedules" body={body} ready={ready}>
      <label for="schedule-name">Name</label>
      <input required {...field('name')} />
      <label for="schedule-cron">Cron (five fields, or six with seconds first)</label>
      <input required placeholder="*/5 * * * *" {...field('cron')} />
      <label for="schedule-timezone">Time zone (IANA; UTC when empty)</label>
      <input placeholder="Europe/London" {...field('timezone')} />
      <label for="schedule-kind">Action</label>
      <select {...choice('kind')}>
        <option value="function">Run a stored function</option>
        <option value="http">Send an HTTP request</option>
      </select>
      {form.kind === 'function' ? (
        <>
          <label for="schedule-label">Function label</label>
          <input required {...field('label')} />
          <JsonEditor id="schedule-params" label="Parameters (JSON)" value={params} onInput={setParams} rows={4} />
        </>
      ) : (
        <>
          <label for="schedule-url">URL (its host must be allowed for outbound requests)</label>
          <input required type="url" {...field('url')} />
          <label for="schedule-method">Method</label>
          <select {...choice('method')}>
            {['GET', 'POST', 'PUT', 'DELETE'].map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
        </>
      )}
      <label for="schedule-missed">Runs missed while the server was down</label>
      <select {...choice('missed')}>
        <option value="skip">skip (record one skipped run)</option>
        <option value="run_once">run once</option>
      </select>
      <label class="wf-check">
        <input type="checkbox" checked={paused} onChange={(e) => setPaused(e.currentTarget.checked)} />
        Create paused
      </label>
    </NewRecordForm>
  );
}

export function ScheduleView({ id, query }: { id: string; query: URLSearchParams }) {
  const page = useRecordPage('schedules', id, SCHEDULE_LIFECYCLE);
  const { base, act, gate } = page;
  return (
    <RecordFrame
      page={page}
      history="Pauses and resumes"
      facts={(s) => (
        <>
          <Fact term="Cron">
            <code>{cronText(s)}</code>
          </Fact>
          <Fact term="Action">{actionSummary(s)}</Fact>
          <TimeFact term="Next run" iso={s.next_run} testid="next-run" />
          <TimeFact term="Last run" iso={s.last_run} />
          <Fact term="Runs" testid="schedule-counts">
            {count(s, 'run_count')} ({count(s, 'success_count')} succeeded, {count(s, 'failure_count')} failed,{' '}
            {count(s, 'skipped_count')} skipped)
          </Fact>
          {s.last_error !== undefined && s.last_error !== null && (
            <Fact term="Last error" class="wf-error-text">
              {text(s.last_error)}
            </Fact>
          )}
          <Fact term="Missed runs">{text(s.missed_runs) || 'skip'}</Fact>
        </>
      )}
    >
      {(s) => (
        <>
          <RecordActions page={page} question={`Delete the schedule “${titleOf(s)}” and its run history?`}>
            <ActionButton label="Pause" {...gate('pause')} onClick={() => act('POST', `${base}/pause`)} />
            <ActionButton label="Resume" {...gate('resume')} onClick={() => act('POST', `${base}/resume`)} />
          </RecordActions>
          <ScheduleRuns id={id} path={`/workflow/schedules/${enc(id)}`} query={query} onRefresh={page.load.reload} />
        </>
      )}
    </RecordFrame>
  );
}
