/**
 * Schedules, which the server fires itself: the list with each cron, next run and whether it is paused, a form for
 * a new schedule (a stored function or an HTTP request on a cron), and a schedule's page with pause, resume,
 * delete and its run history.
 */
import { useState } from 'preact/hooks';
import { api, enc } from '../api.js';
import { ConfirmButton, ErrorBox, JsonEditor, jsonProblem, Loading } from '../components.js';
import { useApi } from '../hooks.js';
import { navigate } from '../router.js';
import { ScheduleRuns } from './schedule-runs.js';
import {
  ActionButton,
  AdminOnlyNote,
  Crumbs,
  Pager,
  pageOf,
  RecordJson,
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
import { allows, notAllowedReason, SCHEDULE_LIFECYCLE, statesOf } from './workflow-lifecycles.js';

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
  const { admin, reason } = useWorkflowAccess();
  const list = useApi<{ schedules: WorkflowRecord[] }>(admin ? '/api/schedules' : null);
  const path = '/workflow/schedules';
  const all = list.data?.schedules;
  const shown = all && pageOf(all, query);
  return (
    <main id="main">
      <h1>Schedules</h1>
      <WorkflowTabs current="schedules" />
      <AdminOnlyNote admin={admin} />
      <div class="wf-toolbar">
        <StatusFilter path={path} query={query} states={statesOf(SCHEDULE_LIFECYCLE)} />
        <div class="row">
          <button type="button" class="secondary" disabled={!admin} title={reason} onClick={() => list.reload()}>
            Refresh
          </button>
          {admin ? (
            <a class="wf-button" href="/workflow/schedules/new">
              New schedule
            </a>
          ) : (
            <button type="button" disabled title={reason}>
              New schedule
            </button>
          )}
        </div>
      </div>
      <ErrorBox error={list.error} />
      {admin && list.loading && !all && <Loading what="schedules" />}
      {shown && shown.matching === 0 && (
        <p class="muted">{all!.length ? 'No schedule has this status.' : 'No schedules yet.'}</p>
      )}
      {shown && shown.matching > 0 && (
        <>
          <div class="scroll" role="region" aria-label="Schedules" tabIndex={0}>
            <table class="data">
              <thead>
                <tr>
                  <th scope="col">Schedule</th>
                  <th scope="col">Status</th>
                  <th scope="col">Next run</th>
                  <th scope="col">Cron</th>
                  <th scope="col">Action</th>
                  <th scope="col">Last outcome</th>
                  <th scope="col" class="num">
                    Runs
                  </th>
                </tr>
              </thead>
              <tbody>
                {shown.rows.map((s) => (
                  <tr key={s.id} data-id={s.id}>
                    <td>
                      <a href={`/workflow/schedules/${enc(s.id)}`}>{titleOf(s)}</a>
                    </td>
                    <td>
                      <StatusBadge status={s.status} />
                    </td>
                    <td>
                      <Time iso={s.next_run} />
                    </td>
                    <td>
                      <code>{cronText(s)}</code>
                    </td>
                    <td>{actionSummary(s)}</td>
                    <td>{s.last_outcome ? <StatusBadge status={s.last_outcome} /> : <span class="muted">—</span>}</td>
                    <td class="num">{typeof s.run_count === 'number' ? s.run_count : 0}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager path={path} query={query} {...shown} noun="schedules" />
        </>
      )}
    </main>
  );
}

export function NewSchedule() {
  const { admin, reason } = useWorkflowAccess();
  const [form, setForm] = useState({
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
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const field = (name: keyof typeof form) => ({
    id: `schedule-${name}`,
    value: form[name],
    onInput: (e: { currentTarget: { value: string } }) => setForm({ ...form, [name]: e.currentTarget.value }),
  });
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const body: Record<string, unknown> = { name: form.name.trim(), cron: form.cron.trim(), missed_runs: form.missed };
    if (form.timezone.trim()) body.timezone = form.timezone.trim();
    if (form.kind === 'function') {
      body.function_label = form.label.trim();
      body.parameters = JSON.parse(params) as unknown;
    } else body.action = { type: 'http', url: form.url.trim(), method: form.method };
    if (paused) body.status = 'paused';
    try {
      const schedule = await api<WorkflowRecord>('POST', '/api/schedules', body);
      navigate(`/workflow/schedules/${enc(schedule.id)}`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const incomplete =
    !form.name.trim() ||
    !form.cron.trim() ||
    (form.kind === 'function' ? !form.label.trim() || jsonProblem(params) !== undefined : !form.url.trim());
  return (
    <main id="main">
      <Crumbs tab="schedules" here="New schedule" />
      <h1>New schedule</h1>
      <AdminOnlyNote admin={admin} />
      <form class="card wf-form" onSubmit={(e) => void submit(e)}>
        <label for="schedule-name">Name</label>
        <input required {...field('name')} />
        <label for="schedule-cron">Cron (five fields, or six with seconds first)</label>
        <input required placeholder="*/5 * * * *" {...field('cron')} />
        <label for="schedule-timezone">Time zone (IANA; UTC when empty)</label>
        <input placeholder="Europe/London" {...field('timezone')} />
        <label for="schedule-kind">Action</label>
        <select {...field('kind')} onChange={(e) => setForm({ ...form, kind: e.currentTarget.value })}>
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
            <select {...field('method')} onChange={(e) => setForm({ ...form, method: e.currentTarget.value })}>
              {['GET', 'POST', 'PUT', 'DELETE'].map((m) => (
                <option key={m}>{m}</option>
              ))}
            </select>
          </>
        )}
        <label for="schedule-missed">Runs missed while the server was down</label>
        <select {...field('missed')} onChange={(e) => setForm({ ...form, missed: e.currentTarget.value })}>
          <option value="skip">skip (record one skipped run)</option>
          <option value="run_once">run once</option>
        </select>
        <label class="wf-check">
          <input type="checkbox" checked={paused} onChange={(e) => setPaused(e.currentTarget.checked)} />
          Create paused
        </label>
        <ErrorBox error={error} />
        <div class="actions">
          <button type="submit" disabled={!admin || busy || incomplete} title={reason}>
            Create schedule
          </button>
          <a href="/workflow/schedules">Cancel</a>
        </div>
      </form>
    </main>
  );
}

export function ScheduleView({ id, query }: { id: string; query: URLSearchParams }) {
  const { admin, reason } = useWorkflowAccess();
  const schedule = useApi<WorkflowRecord>(admin ? `/api/schedules/${enc(id)}` : null);
  const { error, act } = useActions(() => schedule.reload());
  const s = schedule.data;
  const base = `/api/schedules/${enc(id)}`;
  const why = (action: string) =>
    reason ??
    (s && !allows(SCHEDULE_LIFECYCLE, s.status, action)
      ? notAllowedReason(SCHEDULE_LIFECYCLE, s.status, 'schedule')
      : '');
  const count = (m: string) => (typeof s?.[m] === 'number' ? (s[m] as number) : 0);
  return (
    <main id="main">
      <Crumbs tab="schedules" here={s ? titleOf(s) : id} />
      <h1>{s ? titleOf(s) : 'Schedule'}</h1>
      <AdminOnlyNote admin={admin} />
      <ErrorBox error={schedule.error} />
      {admin && !s && !schedule.error && <Loading what="the schedule" />}
      {s && (
        <>
          <section class="card" aria-labelledby="schedule-facts">
            <h2 id="schedule-facts" class="small">
              Schedule
            </h2>
            <dl class="facts">
              <dt>Status</dt>
              <dd data-testid="schedule-status">
                <StatusBadge status={s.status} />
              </dd>
              <dt>Cron</dt>
              <dd>
                <code>{cronText(s)}</code>
              </dd>
              <dt>Action</dt>
              <dd>{actionSummary(s)}</dd>
              <dt>Next run</dt>
              <dd data-testid="next-run">
                <Time iso={s.next_run} />
              </dd>
              <dt>Last run</dt>
              <dd>
                <Time iso={s.last_run} />
              </dd>
              <dt>Runs</dt>
              <dd data-testid="schedule-counts">
                {count('run_count')} ({count('success_count')} succeeded, {count('failure_count')} failed,{' '}
                {count('skipped_count')} skipped)
              </dd>
              {s.last_error !== undefined && s.last_error !== null && (
                <>
                  <dt>Last error</dt>
                  <dd class="wf-error-text">{text(s.last_error)}</dd>
                </>
              )}
              <dt>Missed runs</dt>
              <dd>{text(s.missed_runs) || 'skip'}</dd>
            </dl>
          </section>
          <ErrorBox error={error} />
          <div class="actions wf-actions">
            <ActionButton
              label="Pause"
              disabled={!!why('pause')}
              title={why('pause') || undefined}
              onClick={() => act('POST', `${base}/pause`)}
            />
            <ActionButton
              label="Resume"
              disabled={!!why('resume')}
              title={why('resume') || undefined}
              onClick={() => act('POST', `${base}/resume`)}
            />
            <ConfirmButton
              label="Delete"
              question={`Delete the schedule “${titleOf(s)}” and its run history?`}
              disabled={!admin}
              title={reason}
              onConfirm={async () => {
                if ((await act('DELETE', base)) !== undefined) navigate('/workflow/schedules');
              }}
            />
          </div>
          <ScheduleRuns id={id} path={`/workflow/schedules/${enc(id)}`} query={query} onRefresh={schedule.reload} />
          <section aria-labelledby="schedule-moves">
            <h2 id="schedule-moves">Pauses and resumes</h2>
            <Transitions list={s.transitions} />
          </section>
          <RecordJson record={s} label="The schedule as JSON" />
        </>
      )}
    </main>
  );
}
