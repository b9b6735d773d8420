/**
 * Goals: the list by status, a form for a new goal with its steps, and a goal's page with its steps and their
 * states, the review actions its lifecycle allows (approve, complete, reject) and delete.
 */
import { useState } from 'preact/hooks';
import {
  ActionButton,
  Fact,
  gate,
  jsonOrText,
  NewRecordForm,
  PromptButton,
  RecordActions,
  RecordFrame,
  StatusBadge,
  text,
  Time,
  TimeFact,
  titleOf,
  useFields,
  useRecordPage,
  type RecordPage,
  type WorkflowRecord,
} from './workflow-parts.js';
import { nameColumn, STATUS_COLUMN, WorkflowListPage } from './workflow-list.js';
import { GOAL_LIFECYCLE, GOAL_STEPS_OPEN, statesOf, STEP_LIFECYCLE } from './workflow-lifecycles.js';

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
  return (
    <WorkflowListPage
      tab="goals"
      query={query}
      states={statesOf(GOAL_LIFECYCLE)}
      empty="No goals yet. Create one to plan its steps."
      columns={[
        nameColumn('goals', 'Goal'),
        STATUS_COLUMN,
        { label: 'Steps done', cell: stepProgress },
        { label: 'Updated', cell: (g) => <Time iso={g.updated_at} /> },
      ]}
    />
  );
}

export function NewGoal() {
  const { form, field } = useFields('goal', { title: '', description: '', steps: '' });
  const [inProgress, setInProgress] = useState(false);
  const body = () => {
    const body: Record<string, unknown> = { title: form.title.trim() };
    if (form.description.trim()) body.description = form.description.trim();
    const lines = form.steps
      .split('\n')
      .map((s) => s.trim())
      .filter(Boolean);
    if (lines.length) body.steps = lines.map((description) => ({ description }));
    if (inProgress) body.status = 'in_progress';
    return body;
  };
  return (
    <NewRecordForm tab="goals" body={body} ready={!!form.title.trim()}>
      <label for="goal-title">Title</label>
      <input required {...field('title')} />
      <label for="goal-description">Description</label>
      <textarea rows={3} {...field('description')} />
      <label for="goal-steps">Steps, one a line</label>
      <textarea rows={5} {...field('steps')} />
      <label class="wf-check">
        <input type="checkbox" checked={inProgress} onChange={(e) => setInProgress(e.currentTarget.checked)} />
        Start in progress (no plan approval)
      </label>
    </NewRecordForm>
  );
}

export function GoalView({ id }: { id: string }) {
  const page = useRecordPage('goals', id, GOAL_LIFECYCLE);
  const { base, act, gate } = page;
  return (
    <RecordFrame
      page={page}
      history="History"
      facts={(g) => (
        <>
          {typeof g.description === 'string' && <Fact term="Description">{g.description}</Fact>}
          {g.summary !== undefined && <Fact term="Summary">{text(g.summary)}</Fact>}
          {g.rejection_reason !== undefined && <Fact term="Rejected because">{text(g.rejection_reason)}</Fact>}
          <TimeFact term="Created" iso={g.created_at} />
          <TimeFact term="Updated" iso={g.updated_at} />
        </>
      )}
    >
      {(g) => (
        <>
          <RecordActions page={page} question={`Delete the goal “${titleOf(g)}”? This cannot be undone.`}>
            <ActionButton
              label="Approve"
              secondary={false}
              {...gate('approve')}
              onClick={() => act('POST', `${base}/approve`)}
            />
            <PromptButton
              label="Complete"
              field="Summary of the work"
              {...gate('complete')}
              onSubmit={(summary) => act('POST', `${base}/complete`, summary ? { summary } : {})}
              hint="The goal goes to review; approving the review completes it when every step is completed."
            />
            <PromptButton
              label="Reject"
              field="Reason"
              {...gate('reject')}
              onSubmit={(r) => act('POST', `${base}/reject`, r ? { reason: r } : {})}
            />
          </RecordActions>
          <Steps goal={g} page={page} />
        </>
      )}
    </RecordFrame>
  );
}

function Steps({ goal, page }: { goal: WorkflowRecord; page: RecordPage }) {
  const { act, base } = page;
  const steps = stepsOf(goal);
  const open = GOAL_STEPS_OPEN.includes(goal.status ?? '');
  const why = (step: Step, action: string) => gate(page.reason, STEP_LIFECYCLE, step.status, 'step', action);
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
                    {...why(s, 'start')}
                    onClick={() => act('POST', `${base}/steps/${i}/start`)}
                  />
                  <PromptButton
                    label={`Complete step ${i + 1}`}
                    field="Result (JSON or text)"
                    {...why(s, 'complete')}
                    onSubmit={(v) => act('POST', `${base}/steps/${i}/complete`, v ? { result: jsonOrText(v) } : {})}
                  />
                  <PromptButton
                    label={`Fail step ${i + 1}`}
                    field="Error (JSON or text)"
                    {...why(s, 'fail')}
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
