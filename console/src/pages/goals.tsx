/**
 * Goals: the list by status, a form for a new goal with its steps, and a goal's page with its steps and their
 * states, the review actions its lifecycle allows (approve, complete, reject) and delete.
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
import {
  allows,
  GOAL_LIFECYCLE,
  GOAL_STEPS_OPEN,
  notAllowedReason,
  statesOf,
  STEP_LIFECYCLE,
} from './workflow-lifecycles.js';

interface Step {
  description?: unknown;
  status?: string;
  result?: unknown;
  error?: unknown;
  started_at?: string;
  completed_at?: string;
  failed_at?: string;
}

const stepsOf = (g: WorkflowRecord): Step[] => (Array.isArray(g.steps) ? (g.steps as Step[]) : []);

function stepProgress(g: WorkflowRecord): string {
  const steps = stepsOf(g);
  if (steps.length === 0) return '—';
  return `${steps.filter((s) => s.status === 'completed').length} of ${steps.length}`;
}

export function GoalsList({ query }: { query: URLSearchParams }) {
  const { admin, reason } = useWorkflowAccess();
  const list = useApi<{ goals: WorkflowRecord[] }>(admin ? '/api/chat/goals' : null);
  const path = '/workflow/goals';
  const all = list.data?.goals;
  const shown = all && pageOf(all, query);
  return (
    <main id="main">
      <h1>Goals</h1>
      <WorkflowTabs current="goals" />
      <AdminOnlyNote admin={admin} />
      <div class="wf-toolbar">
        <StatusFilter path={path} query={query} states={statesOf(GOAL_LIFECYCLE)} />
        {admin ? (
          <a class="wf-button" href="/workflow/goals/new">
            New goal
          </a>
        ) : (
          <button type="button" disabled title={reason}>
            New goal
          </button>
        )}
      </div>
      <ErrorBox error={list.error} />
      {admin && list.loading && !all && <Loading what="goals" />}
      {shown && shown.matching === 0 && (
        <p class="muted">{all!.length ? 'No goal has this status.' : 'No goals yet. Create one to plan its steps.'}</p>
      )}
      {shown && shown.matching > 0 && (
        <>
          <div class="scroll" role="region" aria-label="Goals" tabIndex={0}>
            <table class="data">
              <thead>
                <tr>
                  <th scope="col">Goal</th>
                  <th scope="col">Status</th>
                  <th scope="col">Steps done</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {shown.rows.map((g) => (
                  <tr key={g.id} data-id={g.id}>
                    <td>
                      <a href={`/workflow/goals/${enc(g.id)}`}>{titleOf(g)}</a>
                    </td>
                    <td>
                      <StatusBadge status={g.status} />
                    </td>
                    <td>{stepProgress(g)}</td>
                    <td>
                      <Time iso={g.updated_at} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager path={path} query={query} {...shown} noun="goals" />
        </>
      )}
    </main>
  );
}

export function NewGoal() {
  const { admin, reason } = useWorkflowAccess();
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const [steps, setSteps] = useState('');
  const [inProgress, setInProgress] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const body: Record<string, unknown> = { title: title.trim() };
    if (description.trim()) body.description = description.trim();
    const lines = steps
      .split('\n')
      .map((s) => s.trim())
      .filter(Boolean);
    if (lines.length) body.steps = lines.map((description) => ({ description }));
    if (inProgress) body.status = 'in_progress';
    try {
      const goal = await api<WorkflowRecord>('POST', '/api/chat/goals', body);
      navigate(`/workflow/goals/${enc(goal.id)}`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main">
      <Crumbs tab="goals" here="New goal" />
      <h1>New goal</h1>
      <AdminOnlyNote admin={admin} />
      <form class="card wf-form" onSubmit={(e) => void submit(e)}>
        <label for="goal-title">Title</label>
        <input id="goal-title" required value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
        <label for="goal-description">Description</label>
        <textarea
          id="goal-description"
          rows={3}
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
        />
        <label for="goal-steps">Steps, one a line</label>
        <textarea id="goal-steps" rows={5} value={steps} onInput={(e) => setSteps(e.currentTarget.value)} />
        <label class="wf-check">
          <input type="checkbox" checked={inProgress} onChange={(e) => setInProgress(e.currentTarget.checked)} />
          Start in progress (no plan approval)
        </label>
        <ErrorBox error={error} />
        <div class="actions">
          <button type="submit" disabled={!admin || busy || !title.trim()} title={reason}>
            Create goal
          </button>
          <a href="/workflow/goals">Cancel</a>
        </div>
      </form>
    </main>
  );
}

export function GoalView({ id }: { id: string }) {
  const { admin, reason } = useWorkflowAccess();
  const goal = useApi<WorkflowRecord>(admin ? `/api/chat/goals/${enc(id)}` : null);
  const { error, act } = useActions(() => goal.reload());
  const g = goal.data;
  const base = `/api/chat/goals/${enc(id)}`;
  const why = (action: string) =>
    reason ??
    (g && !allows(GOAL_LIFECYCLE, g.status, action) ? notAllowedReason(GOAL_LIFECYCLE, g.status, 'goal') : '');
  const can = (action: string) => !why(action);
  return (
    <main id="main">
      <Crumbs tab="goals" here={g ? titleOf(g) : id} />
      <h1>{g ? titleOf(g) : 'Goal'}</h1>
      <AdminOnlyNote admin={admin} />
      <ErrorBox error={goal.error} />
      {admin && !g && !goal.error && <Loading what="the goal" />}
      {g && (
        <>
          <section class="card" aria-labelledby="goal-facts">
            <h2 id="goal-facts" class="small">
              Goal
            </h2>
            <dl class="facts">
              <dt>Status</dt>
              <dd data-testid="goal-status">
                <StatusBadge status={g.status} />
              </dd>
              {typeof g.description === 'string' && (
                <>
                  <dt>Description</dt>
                  <dd>{g.description}</dd>
                </>
              )}
              {g.summary !== undefined && (
                <>
                  <dt>Summary</dt>
                  <dd>{text(g.summary)}</dd>
                </>
              )}
              {g.rejection_reason !== undefined && (
                <>
                  <dt>Rejected because</dt>
                  <dd>{text(g.rejection_reason)}</dd>
                </>
              )}
              <dt>Created</dt>
              <dd>
                <Time iso={g.created_at} />
              </dd>
              <dt>Updated</dt>
              <dd>
                <Time iso={g.updated_at} />
              </dd>
            </dl>
          </section>
          <ErrorBox error={error} />
          <div class="actions wf-actions">
            <ActionButton
              label="Approve"
              secondary={false}
              disabled={!can('approve')}
              title={why('approve') || undefined}
              onClick={() => act('POST', `${base}/approve`)}
            />
            <PromptButton
              label="Complete"
              field="Summary of the work"
              disabled={!can('complete')}
              title={why('complete') || undefined}
              onSubmit={(summary) => act('POST', `${base}/complete`, summary ? { summary } : {})}
              hint="The goal goes to review; approving the review completes it when every step is completed."
            />
            <PromptButton
              label="Reject"
              field="Reason"
              disabled={!can('reject')}
              title={why('reject') || undefined}
              onSubmit={(r) => act('POST', `${base}/reject`, r ? { reason: r } : {})}
            />
            <ConfirmButton
              label="Delete"
              question={`Delete the goal “${titleOf(g)}”? This cannot be undone.`}
              disabled={!admin}
              title={reason}
              onConfirm={async () => {
                if ((await act('DELETE', base)) !== undefined) navigate('/workflow/goals');
              }}
            />
          </div>
          <Steps goal={g} act={act} base={base} reason={reason} />
          <section aria-labelledby="goal-moves">
            <h2 id="goal-moves">History</h2>
            <Transitions list={g.transitions} />
          </section>
          <RecordJson record={g} label="The goal as JSON" />
        </>
      )}
    </main>
  );
}

function Steps({
  goal,
  act,
  base,
  reason,
}: {
  goal: WorkflowRecord;
  act: (method: string, path: string, body?: unknown) => Promise<unknown>;
  base: string;
  reason: string | undefined;
}) {
  const steps = stepsOf(goal);
  const open = GOAL_STEPS_OPEN.includes(goal.status ?? '');
  const why = (step: Step, action: string) =>
    reason ??
    (!allows(STEP_LIFECYCLE, step.status, action) ? notAllowedReason(STEP_LIFECYCLE, step.status, 'step') : '');
  return (
    <section aria-labelledby="goal-steps">
      <h2 id="goal-steps">Steps</h2>
      {steps.length === 0 && <p class="muted">This goal has no steps.</p>}
      {steps.length > 0 && !open && (
        <p class="muted small">
          The goal is {String(goal.status).replace(/_/g, ' ')}: steps move only while it is pending or in progress.
        </p>
      )}
      {steps.length > 0 && (
        <ol class="wf-steps">
          {steps.map((s, i) => (
            <li key={i} class="card" data-step={i}>
              <div class="wf-step-head">
                <span>{text(s.description) || `Step ${i + 1}`}</span>
                <StatusBadge status={s.status} />
              </div>
              {s.result !== undefined && <p class="small">Result: {text(s.result)}</p>}
              {s.error !== undefined && <p class="small wf-error-text">Error: {text(s.error)}</p>}
              {open ? (
                <div class="actions">
                  <ActionButton
                    label={`Start step ${i + 1}`}
                    disabled={!!why(s, 'start')}
                    title={why(s, 'start') || undefined}
                    onClick={() => act('POST', `${base}/steps/${i}/start`)}
                  />
                  <PromptButton
                    label={`Complete step ${i + 1}`}
                    field="Result (JSON or text)"
                    disabled={!!why(s, 'complete')}
                    title={why(s, 'complete') || undefined}
                    onSubmit={(v) => act('POST', `${base}/steps/${i}/complete`, v ? { result: jsonOrText(v) } : {})}
                  />
                  <PromptButton
                    label={`Fail step ${i + 1}`}
                    field="Error (JSON or text)"
                    disabled={!!why(s, 'fail')}
                    title={why(s, 'fail') || undefined}
                    onSubmit={(v) => act('POST', `${base}/steps/${i}/fail`, v ? { error: jsonOrText(v) } : {})}
                  />
                </div>
              ) : null}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
